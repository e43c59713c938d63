# Child process: one confluent-kafka (librdkafka) consumer with cooperative-sticky assignment
# that manages its assignment itself, as an incremental-rebalance application must:
#   on_assign  -> incremental_assign(partitions)
#   on_revoke  -> commit the revoked partitions' positions synchronously, incremental_unassign
#   on_lost    -> incremental_unassign (reported: the test expects none)
# incremental_assign raises in EAGER mode, so an "assign" line proves the cooperative protocol.
# After every change it prints the client's own view of its assignment (Consumer.assignment()).
# Output lines:
#   assign [p...] / revoke [p...] / lost [p...]   the callback's partitions
#   owned [p...]                                  consumer.assignment() after the change
#   committed [[p, offset]...]                    synchronous commit on revoke succeeded
#   error <text>                                  anything unexpected (the test fails on it)
#   m <partition> <offset>                        one consumed record
# argv: bootstrap group topic; SIGTERM -> close() (which revokes, and so commits, everything).
import json, signal, sys
from confluent_kafka import Consumer, KafkaException, TopicPartition

bootstrap, group, topic = sys.argv[1:4]
c = Consumer({
    'bootstrap.servers': bootstrap,
    'group.id': group,
    'partition.assignment.strategy': 'cooperative-sticky',
    'session.timeout.ms': 10000,
    'heartbeat.interval.ms': 500,
    'auto.offset.reset': 'earliest',
    # Offsets are committed only by on_revoke: exactly-once hand-over depends on that commit.
    'enable.auto.commit': False,
    'topic.metadata.refresh.interval.ms': 2000,
})
running = True
# Next offset to consume per partition, from the records this process actually handled.
positions = {}


def stop(*_):
    global running
    running = False


signal.signal(signal.SIGTERM, stop)


def out(line):
    sys.stdout.write(line + '\n')
    sys.stdout.flush()


def parts_of(tps):
    return json.dumps(sorted(tp.partition for tp in tps))


def report_owned(consumer):
    out('owned ' + parts_of(consumer.assignment()))


def on_assign(consumer, tps):
    out('assign ' + parts_of(tps))
    try:
        consumer.incremental_assign(tps)
    except KafkaException as e:
        out('error incremental_assign: %s' % e)
    report_owned(consumer)


def on_revoke(consumer, tps):
    out('revoke ' + parts_of(tps))
    offsets = [TopicPartition(topic, tp.partition, positions[tp.partition])
               for tp in tps if tp.partition in positions]
    if offsets:
        try:
            res = consumer.commit(offsets=offsets, asynchronous=False)
            bad = [tp for tp in res if tp.error is not None]
            if bad:
                out('error commit: %s' % bad)
            else:
                out('committed ' + json.dumps(sorted([tp.partition, tp.offset] for tp in res)))
        except KafkaException as e:
            out('error commit: %s' % e)
    try:
        consumer.incremental_unassign(tps)
    except KafkaException as e:
        out('error incremental_unassign: %s' % e)
    report_owned(consumer)


def on_lost(consumer, tps):
    out('lost ' + parts_of(tps))
    try:
        consumer.incremental_unassign(tps)
    except KafkaException as e:
        out('error incremental_unassign: %s' % e)
    report_owned(consumer)


c.subscribe([topic], on_assign=on_assign, on_revoke=on_revoke, on_lost=on_lost)
while running:
    m = c.poll(0.1)
    if m is None:
        continue
    if m.error():
        out('error poll: %s' % m.error())
        continue
    positions[m.partition()] = m.offset() + 1
    out('m %d %d' % (m.partition(), m.offset()))
c.close()
