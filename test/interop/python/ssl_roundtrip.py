# confluent-kafka-python over TLS: produces N records with security.protocol=SSL and
# ssl.ca.location (optionally a client certificate), reads them back with assign(), prints JSON.
import json
import sys

from confluent_kafka import Consumer, Producer, TopicPartition

bootstrap, topic, n, ca = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
ssl = {"security.protocol": "SSL", "ssl.ca.location": ca}
if len(sys.argv) > 6:
    ssl["ssl.certificate.location"] = sys.argv[5]
    ssl["ssl.key.location"] = sys.argv[6]

errors = []
p = Producer({"bootstrap.servers": bootstrap, "acks": "all", **ssl})
for i in range(n):
    p.produce(topic, key=str(i).encode(), value=("v%d" % i).encode(),
              on_delivery=lambda err, msg: errors.append(str(err)) if err else None)
    p.poll(0)
unflushed = p.flush(60)

c = Consumer({"bootstrap.servers": bootstrap, "group.id": "py-ssl", "enable.auto.commit": False, **ssl})
c.assign([TopicPartition(topic, 0, 0)])
values = []
misses = 0
while len(values) < n and misses < 60:
    m = c.poll(1.0)
    if m is None:
        misses += 1
        continue
    if m.error():
        errors.append(str(m.error()))
        continue
    values.append(m.value().decode())
c.close()
print(json.dumps({"unflushed": unflushed, "errors": errors, "ok": values == ["v%d" % i for i in range(n)]}))
