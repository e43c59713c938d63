# Child process for the `samsa groups` tests: joins a consumer group with confluent-kafka
# (librdkafka), commits the given offsets synchronously and leaves, so the group is Empty with
# exactly those offsets. argv: bootstrap group topic partition:offset[,partition:offset...]
import sys, time
from confluent_kafka import Consumer, TopicPartition

bootstrap, group, topic, spec = sys.argv[1:5]
offsets = [TopicPartition(topic, int(p), int(o)) for p, o in (x.split(':') for x in spec.split(','))]
c = Consumer({
    'bootstrap.servers': bootstrap,
    'group.id': group,
    'client.id': 'ck-billing',
    'enable.auto.commit': False,
    'auto.offset.reset': 'earliest',
})
assigned = []
c.subscribe([topic], on_assign=lambda _c, parts: assigned.extend(parts))
deadline = time.time() + 60
while not assigned and time.time() < deadline:
    c.poll(0.2)
if not assigned:
    sys.exit('no partitions assigned within 60 s')
c.commit(offsets=offsets, asynchronous=False)
c.close()
print('committed', flush=True)
