# confluent-kafka-python (librdkafka) against a broker with ACLs, over SASL_PLAINTEXT PLAIN.
# argv: bootstrap user password mode [args...]; prints one JSON object.
#   consume TOPIC GROUP   subscribe and poll: the first error's code and name
#   txn TXN_ID            init_transactions(): the error code and name it fails with
#   admin TOPIC           create_acls / describe_acls / delete_acls if this version has them
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
    from confluent_kafka import admin as adm

    if not hasattr(adm.AdminClient, "create_acls"):
        import confluent_kafka

        out = {"skipped": "confluent-kafka-python %s has no ACL admin API" % confluent_kafka.version()[0]}
    else:
        (topic,) = sys.argv[5:6]
        a = adm.AdminClient(conf)
        binding = adm.AclBinding(adm.ResourceType.TOPIC, topic, adm.ResourcePatternType.LITERAL,
                                 "User:bob", "*", adm.AclOperation.READ, adm.AclPermissionType.ALLOW)
        for f in a.create_acls([binding]).values():
            f.result(30)
        flt = adm.AclBindingFilter(adm.ResourceType.TOPIC, topic, adm.ResourcePatternType.ANY,
                                   None, None, adm.AclOperation.ANY, adm.AclPermissionType.ANY)
        described = a.describe_acls(flt).result(30)
        deleted = [b for f in a.delete_acls([flt]).values() for b in f.result(30)]
        out = {"described": len(described), "deleted": len(deleted)}
print(json.dumps(out))
