# kafka-python 2.0.2 with pinned old protocol versions, used by kafka-python-legacy.test.ts:
#   api_version=(0, 9)  -> Produce v1 (magic 0 message sets), Fetch v1 (magic 0 answers)
#   api_version=(0, 10) -> Produce v2 (magic 1), Fetch v2 (magic 1)
#   api_version=None    -> probed: modern Produce/Fetch (RecordBatch v2, headers)
# Each producer writes N keyed records (some null keys / values) into its own topic; each
# consumer reads every topic back with assign() (no group). Prints a JSON summary on stdout.
import json
import sys
import time

from kafka import KafkaConsumer, KafkaProducer, TopicPartition

bootstrap, prefix, n, codec = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
compression = None if codec == 'none' else codec

PRODUCERS = {'v09': (0, 9), 'v010': (0, 10), 'modern': None}
CONSUMERS = {'v09': (0, 9), 'v010': (0, 10), 'modern': None}


def key_of(i):
    return None if i % 10 == 0 else ('k%d' % i).encode()


def value_of(i):
    return None if i % 37 == 5 and i % 10 != 0 else ('value-%d-%s' % (i, 'x' * (i % 30))).encode()


summary = {'produced': {}, 'errors': [], 'consumed': {}}
sent_ts = {}
for name, version in PRODUCERS.items():
    topic = '%s-%s' % (prefix, name)
    kwargs = {'bootstrap_servers': bootstrap, 'acks': 1, 'compression_type': compression, 'linger_ms': 5}
    if version is not None:
        kwargs['api_version'] = version
    p = KafkaProducer(**kwargs)
    futures = []
    for i in range(n):
        headers = [('i', str(i).encode())] if version is None else None
        futures.append(p.send(topic, key=key_of(i), value=value_of(i), partition=0,
                              headers=headers, timestamp_ms=None if version == (0, 9) else 1_700_000_000_000 + i))
    p.flush(30)
    offsets = []
    for f in futures:
        try:
            offsets.append(f.get(timeout=30).offset)
        except Exception as e:  # noqa: BLE001 - reported in the summary
            summary['errors'].append('%s: %r' % (name, e))
            break
    summary['produced'][name] = {'count': len(offsets), 'in_order': offsets == list(range(n))}
    p.close()

for producer_name, producer_version in PRODUCERS.items():
    topic = '%s-%s' % (prefix, producer_name)
    for name, version in CONSUMERS.items():
        kwargs = {'bootstrap_servers': bootstrap, 'enable_auto_commit': False, 'group_id': None,
                  'auto_offset_reset': 'earliest', 'consumer_timeout_ms': 10000}
        if version is not None:
            kwargs['api_version'] = version
        c = KafkaConsumer(**kwargs)
        tp = TopicPartition(topic, 0)
        c.assign([tp])
        c.seek_to_beginning(tp)
        got = []
        deadline = time.time() + 30
        while len(got) < n and time.time() < deadline:
            for records in c.poll(timeout_ms=1000).values():
                got.extend(records)
        c.close()
        bad = []
        for r in got:
            i = r.offset
            if r.key != key_of(i) or r.value != value_of(i):
                bad.append('offset %d: %r %r' % (i, r.key, (r.value or b'')[:20]))
            # Magic 0 carries no timestamp; magic 1 and 2 carry the producer's (magic-0
            # producers: -1). Down-converted answers lose the headers.
            if version == (0, 9):
                expected_ts = None
            elif producer_version == (0, 9):
                expected_ts = -1
            else:
                expected_ts = 1_700_000_000_000 + i
            if r.timestamp != expected_ts:
                bad.append('offset %d: timestamp %r, expected %r' % (i, r.timestamp, expected_ts))
            expected_headers = [('i', str(i).encode())] if producer_version is None and version is None else []
            if list(r.headers or []) != expected_headers:
                bad.append('offset %d: headers %r' % (i, r.headers))
        summary['consumed']['%s<-%s' % (name, producer_name)] = {
            'count': len(got),
            'in_order': [r.offset for r in got] == list(range(n)),
            'bad': bad[:3],
        }

print(json.dumps(summary))
