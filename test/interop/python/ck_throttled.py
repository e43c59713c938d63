# confluent-kafka-python under a client quota. argv: bootstrap topic n mode client_id, mode
# `produce` (n records of 500 bytes, acks=all) or `consume` (reads n records of partition 0 with
# assign()). Prints JSON: what throttle_cb reported (ms), the largest `throttle` max of the
# statistics (ms), how long producing took, and how many records were delivered / consumed, with any errors.
import json
import sys
import time

from confluent_kafka import Consumer, Producer, TopicPartition

bootstrap, topic, n, mode, client_id = sys.argv[1:6]
n = int(n)
throttles = []
stats_max = [0]
errors = []


def on_throttle(event):
    # librdkafka's throttle_time is in seconds (a float).
    throttles.append(round(event.throttle_time * 1000))


def on_stats(text):
    for b in json.loads(text).get("brokers", {}).values():
        stats_max[0] = max(stats_max[0], b.get("throttle", {}).get("max", 0))


conf = {
    "bootstrap.servers": bootstrap,
    "client.id": client_id,
    "throttle_cb": on_throttle,
    "stats_cb": on_stats,
    "statistics.interval.ms": 200,
    "error_cb": lambda e: errors.append(e.name()),
}

result = {"mode": mode}
if mode == "produce":
    delivered = [0]

    def on_delivery(err, msg):
        if err:
            errors.append(str(err))
        else:
            delivered[0] += 1

    p = Producer({**conf, "acks": "all", "linger.ms": 5, "batch.size": 2000,
                  "message.timeout.ms": 120000})
    value = b"p" * 500
    started = time.monotonic()
    for i in range(n):
        p.produce(topic, key=str(i).encode(), value=value, partition=0, on_delivery=on_delivery)
        p.poll(0)
    result["unflushed"] = p.flush(120)
    result["elapsed_ms"] = round((time.monotonic() - started) * 1000)
    # One more statistics round after the last response.
    for _ in range(3):
        p.poll(0.25)
    result["delivered"] = delivered[0]
else:
    c = Consumer({**conf, "group.id": "py-throttled-" + topic, "enable.auto.commit": False})
    c.assign([TopicPartition(topic, 0, 0)])
    consumed = 0
    misses = 0
    while consumed < n and misses < 120:
        m = c.poll(1.0)
        if m is None:
            misses += 1
            continue
        if m.error():
            errors.append(str(m.error()))
            continue
        consumed += 1
    for _ in range(3):
        c.poll(0.25)
    c.close()
    result["consumed"] = consumed

result["throttles"] = throttles
result["stats_throttle_max"] = stats_max[0]
result["errors"] = errors
print(json.dumps(result))
