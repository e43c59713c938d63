# Child process: one confluent-kafka (librdkafka) consumer of a group. Prints JSON lines:
# {"ev":"assign"|"revoke","p":[...]} on rebalance callbacks, "m <partition> <offset>" per message.
# argv: bootstrap group topic strategy [group.instance.id]; SIGTERM → close().
import json, signal, sys
from confluent_kafka import Consumer

bootstrap, group, topic, strategy = sys.argv[1:5]
conf = {
    'bootstrap.servers': bootstrap,
    'group.id': group,
    'partition.assignment.strategy': strategy,
    'session.timeout.ms': 10000,
    'heartbeat.interval.ms': 500,
    'auto.offset.reset': 'earliest',
    'enable.auto.commit': True,
    'auto.commit.interval.ms': 200,
    'topic.metadata.refresh.interval.ms': 2000,
}
if len(sys.argv) > 5:
    conf['group.instance.id'] = sys.argv[5]
c = Consumer(conf)
running = True

def stop(*_):
    global running
    running = False

signal.signal(signal.SIGTERM, stop)

def out(line):
    sys.stdout.write(line + '\n')
    sys.stdout.flush()

def on_assign(consumer, parts):
    # The client applies the (incremental) assignment itself after the callback.
    out('assign ' + json.dumps(sorted(p.partition for p in parts)))

def on_revoke(consumer, parts):
    out('revoke ' + json.dumps(sorted(p.partition for p in parts)))

c.subscribe([topic], on_assign=on_assign, on_revoke=on_revoke)
while running:
    m = c.poll(0.2)
    if m is None or m.error():
        continue
    out('m %d %d' % (m.partition(), m.offset()))
c.close()
