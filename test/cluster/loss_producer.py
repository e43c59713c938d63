# confluent-kafka-python (librdkafka 2.0.2) producer of the loss checker (loss-checker.test.ts):
# writes numbered records ("<prefix>-<i>", record i to partition i % partitions) with acks=all and
# enable.idempotence=True, paced at `rate` records/s, until its stdin closes; then flushes and
# exits. Every delivery report is one stdout line, so the test knows what was acknowledged even
# if this process dies:
#   A <i> <partition> <offset>     acknowledged (offset -1: acknowledged without one)
#   E <i> <error>                  delivery failed
#   F <error>                      fatal client error (the idempotent producer gave up)
#   DONE <records left unflushed>
import os
import sys
import threading
import time

from confluent_kafka import KafkaException, Producer

bootstrap, topic, partitions, prefix, rate = (sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4],
                                              float(sys.argv[5]))

stop = threading.Event()


def watch_stdin():
    sys.stdin.read()
    stop.set()


threading.Thread(target=watch_stdin, daemon=True).start()

out = []


def on_delivery(err, msg):
    i = int(msg.value().decode().rsplit('-', 1)[1])
    if err is None:
        # An implicit ack (a later batch of the partition succeeded first, librdkafka's
        # IMPLICITACK) carries no offset: -1.
        offset = msg.offset()
        out.append('A %d %d %d' % (i, msg.partition(), -1 if offset is None or offset < 0 else offset))
    else:
        out.append('E %d %s' % (i, str(err).replace('\n', ' ')))


def on_error(err):
    if err.fatal():
        out.append('F %s' % str(err).replace('\n', ' '))


def drain():
    if out:
        sys.stdout.write('\n'.join(out) + '\n')
        sys.stdout.flush()
        del out[:]


conf = {
    'bootstrap.servers': bootstrap,
    'acks': 'all',
    'enable.idempotence': True,
    'linger.ms': 5,
    # Retries are bounded by the delivery timeout only: a fault must delay a record, never fail it.
    'message.timeout.ms': 600000,
    'request.timeout.ms': 15000,
    'retry.backoff.ms': 100,
    'topic.metadata.refresh.interval.ms': 5000,
    'error_cb': on_error,
}
# LOSS_PRODUCER_DEBUG=eos,msg,... : librdkafka's debug contexts, logged to stderr (the test can
# keep that in a file, SAMSA_LOSS_DEBUG_DIR) to follow a failure request by request.
if os.environ.get('LOSS_PRODUCER_DEBUG'):
    conf['debug'] = os.environ['LOSS_PRODUCER_DEBUG']
p = Producer(conf)

i = 0
t0 = time.time()
while not stop.is_set():
    # Pace: record i is due at t0 + i / rate.
    ahead = t0 + i / rate - time.time()
    if ahead > 0:
        p.poll(min(ahead, 0.05))
        drain()
        continue
    try:
        p.produce(topic, value=('%s-%d' % (prefix, i)).encode(), partition=i % partitions,
                  on_delivery=on_delivery)
        i += 1
    except BufferError:
        p.poll(0.05)
    except KafkaException as e:
        out.append('F %s' % str(e).replace('\n', ' '))
        break
    p.poll(0)
    drain()

deadline = time.time() + 600
while len(p) > 0 and time.time() < deadline:
    p.poll(0.1)
    drain()
p.flush(1)
drain()
sys.stdout.write('DONE %d\n' % len(p))
sys.stdout.flush()
