# confluent-kafka-python 1.7.0 (librdkafka 2.0.2): a group consumer subscribed to two topics,
# one deleted while it consumes, then closed (issue 14, item 6). argv: bootstrap. librdkafka's
# debug log goes to stderr; "STEP <name>" lines mark the phases for the test.
import sys
import time

from confluent_kafka import Consumer, Producer
from confluent_kafka.admin import AdminClient, NewTopic

bs = sys.argv[1]


def step(name):
    print('STEP ' + name, file=sys.stderr, flush=True)


admin = AdminClient({'bootstrap.servers': bs})
for f in admin.create_topics([NewTopic('keep', 1, 1), NewTopic('gone', 1, 1)]).values():
    f.result()
p = Producer({'bootstrap.servers': bs})
for t in ('keep', 'gone'):
    for i in range(5):
        p.produce(t, b'v%d' % i)
p.flush(30)
c = Consumer({'bootstrap.servers': bs, 'group.id': 'deleted-topic-close', 'auto.offset.reset': 'earliest',
              'debug': 'cgrp,protocol', 'topic.metadata.refresh.interval.ms': 1000})
c.subscribe(['keep', 'gone'])
got = 0
deadline = time.time() + 60
while got < 10 and time.time() < deadline:
    m = c.poll(0.5)
    if m is not None and not m.error():
        got += 1
step('consumed %d' % got)
for f in admin.delete_topics(['gone']).values():
    f.result()
step('deleted')
until = time.time() + 5
while time.time() < until:
    m = c.poll(0.5)
    if m is not None and m.error():
        print('ERR %s' % m.error(), file=sys.stderr, flush=True)
step('closing')
c.close()
step('closed')
