# confluent-kafka-python (librdkafka 2.0.2) round trip used by confluent-python.test.ts:
# produce N keyed messages with headers (acks=all, idempotent, given codec), then consume them
# back with assign() (no consumer group) and print a JSON summary on stdout.
# (Header values are never None: confluent-kafka-python 1.7 has a refcount bug on None header values.)
import json
import sys

from confluent_kafka import OFFSET_BEGINNING, Consumer, Producer, TopicPartition

bootstrap, topic, n, codec = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]

errors = []


def on_delivery(err, msg):
    if err is not None:
        errors.append(str(err))


p = Producer({
    'bootstrap.servers': bootstrap,
    'acks': 'all',
    'enable.idempotence': True,
    'compression.type': codec,
    'linger.ms': 5,
})
for i in range(n):
    p.produce(topic, key=('k%d' % i).encode(), value=('value-%d' % i).encode() * 3,
              headers=[('idx', str(i).encode()), ('empty', b'')], partition=i % 2,
              on_delivery=on_delivery)
    if i % 10000 == 0:
        p.poll(0)
left = p.flush(30)

c = Consumer({
    'bootstrap.servers': bootstrap,
    'group.id': 'unused-assign-only',
    'enable.auto.commit': False,
    'enable.partition.eof': True,
})
c.assign([TopicPartition(topic, 0, OFFSET_BEGINNING), TopicPartition(topic, 1, OFFSET_BEGINNING)])
got = {}
eof = set()
bad = []
while len(eof) < 2:
    m = c.poll(10)
    if m is None:
        break
    if m.error():
        if m.error().code() == -191:  # _PARTITION_EOF
            eof.add(m.partition())
            continue
        bad.append(str(m.error()))
        break
    i = int(m.key()[1:])
    hdrs = m.headers() or []
    ok = (m.value() == ('value-%d' % i).encode() * 3 and hdrs == [('idx', str(i).encode()), ('empty', b'')]
          and m.partition() == i % 2)
    if not ok:
        bad.append('mismatch at %d: %r %r' % (i, m.value()[:40], hdrs))
    got[i] = m.offset()
c.close()
print(json.dumps({'unflushed': left, 'delivery_errors': errors[:5], 'consumed': len(got),
                  'distinct_ok': sorted(got) == list(range(n)), 'bad': bad[:5]}))
