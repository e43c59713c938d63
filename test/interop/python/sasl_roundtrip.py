# confluent-kafka-python with SASL: produces N records with security.protocol SASL_PLAINTEXT or
# SASL_SSL (argv: bootstrap topic n protocol mechanism user password [ca]), reads them back with
# assign(), prints JSON. A failed authentication shows up in `errors`.
import json
import sys

from confluent_kafka import Consumer, Producer, TopicPartition

bootstrap, topic, n, protocol, mechanism, user, password = sys.argv[1:8]
n = int(n)
conf = {
    "bootstrap.servers": bootstrap,
    "security.protocol": protocol,
    "sasl.mechanism": mechanism,
    "sasl.username": user,
    "sasl.password": password,
}
if len(sys.argv) > 8:
    conf["ssl.ca.location"] = sys.argv[8]

errors = []
p = Producer({**conf, "acks": "all", "message.timeout.ms": 30000,
              "error_cb": lambda e: errors.append(e.name())})
for i in range(n):
    p.produce(topic, key=str(i).encode(), value=("v%d" % i).encode(),
              on_delivery=lambda err, msg: errors.append(str(err)) if err else None)
    p.poll(0)
unflushed = p.flush(60)

values = []
if not errors:
    c = Consumer({**conf, "group.id": "py-sasl-" + topic, "enable.auto.commit": False})
    c.assign([TopicPartition(topic, 0, 0)])
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
print(json.dumps({"unflushed": unflushed, "errors": sorted(set(errors)), "ok": values == ["v%d" % i for i in range(n)]}))
