# A confluent-kafka-python (librdkafka) group member for mixed-group tests. Prints one JSON line
# per event: {"assigned": [...]} / {"revoked": [...]} / {"record": key, "partition": p}.
# Runs until stdin closes.
import json
import sys
import threading

from confluent_kafka import Consumer

bootstrap, group, topic, strategy = sys.argv[1:5]
done = threading.Event()


def watch_stdin():
    sys.stdin.read()
    done.set()


threading.Thread(target=watch_stdin, daemon=True).start()


def emit(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def on_assign(consumer, partitions):
    emit({"assigned": [p.partition for p in partitions]})
    if strategy == "cooperative-sticky":
        consumer.incremental_assign(partitions)
    else:
        consumer.assign(partitions)


def on_revoke(consumer, partitions):
    emit({"revoked": [p.partition for p in partitions]})
    if strategy == "cooperative-sticky":
        consumer.incremental_unassign(partitions)
    else:
        consumer.unassign()


c = Consumer({
    "bootstrap.servers": bootstrap,
    "group.id": group,
    "partition.assignment.strategy": strategy,
    "auto.offset.reset": "earliest",
    "session.timeout.ms": 6000,
    "heartbeat.interval.ms": 500,
    "enable.auto.commit": True,
    "auto.commit.interval.ms": 200,
    "topic.metadata.refresh.interval.ms": 1000,
})
c.subscribe([topic], on_assign=on_assign, on_revoke=on_revoke)
while not done.is_set():
    m = c.poll(0.1)
    if m is None or m.error():
        continue
    emit({"record": m.key().decode(), "partition": m.partition()})
c.close()
