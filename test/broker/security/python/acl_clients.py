# confluent-kafka-python (librdkafka) against a broker with ACLs, over SASL_PLAINTEXT PLAIN.
# argv: bootstrap user password mode [args...]; prints one JSON object.
#   consume TOPIC GROUP   subscribe and poll: the first error's code and name
#   txn TXN_ID            init_transactions(): the error code and name it fails with
#   admin TOPIC           CreateAcls (READ for bob), DescribeAcls, DeleteAcls, DescribeAcls on TOPIC:
#                         each call's error code and the bindings it returned
import json
import sys

from confluent_kafka import Consumer, KafkaException, Producer

bootstrap, user, password, mode = sys.argv[1:5]
conf = {
    "bootstrap.servers": bootstrap,
    "security.protocol": "SASL_PLAINTEXT",
    "sasl.mechanism": "PLAIN",
    "sasl.username": user,
    "sasl.password": password,
}
out = {}

if mode == "consume":
    topic, group = sys.argv[5:7]
    c = Consumer({**conf, "group.id": group, "auto.offset.reset": "earliest"})
    c.subscribe([topic])
    for _ in range(60):
        m = c.poll(1.0)
        if m is not None and m.error():
            out = {"code": m.error().code(), "name": m.error().name()}
            break
    c.close()
elif mode == "txn":
    (txn_id,) = sys.argv[5:6]
    p = Producer({**conf, "transactional.id": txn_id})
    try:
        p.init_transactions(30)
        out = {"code": 0}
    except KafkaException as e:
        err = e.args[0]
        out = {"code": err.code(), "name": err.name(), "fatal": err.fatal()}
elif mode == "admin":
    # Through librdkafka's own ACL admin calls (rdkafka_acls.py: this binding lacks wrappers).
    import rdkafka_acls as acls

    (topic,) = sys.argv[5:6]
    topic_filter = (acls.RESOURCE_TOPIC, topic, acls.PATTERN_ANY, None, None, acls.OPERATION_ANY,
                    acls.PERMISSION_ANY)
    a = acls.AclAdmin(conf)
    try:
        out = {
            "created": a.create(acls.RESOURCE_TOPIC, topic, acls.PATTERN_LITERAL, "User:bob", "*",
                                acls.OPERATION_READ, acls.PERMISSION_ALLOW),
            "described": a.describe(*topic_filter),
            "deleted": a.delete(*topic_filter),
            "after": a.describe(*topic_filter),
        }
    finally:
        a.close()
print(json.dumps(out))
