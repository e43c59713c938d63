// Shared by the fan-out tests (library and CLI): a source topic of keyed and keyless records with
// headers and explicit timestamps, three independent read_committed readers of the target (our
// consumer, kcat, confluent-kafka-python), and the record-by-record check of a fan-out.
import assert from 'node:assert/strict';
import { Partitioners } from 'kafkajs';
import { Consumer } from '../../../src/client/consumer/consumer.js';
import { Producer } from '../../../src/client/producer/producer.js';
import { murmur2Partition } from '../../../src/protocol/partitioners.js';
import { exec } from '../../interop/support/exec.js';

/** One record as every reader reports it; `value` is `r<i>`, the source record's number. */
export interface Seen {
  partition: number;
  offset: number;
  key: string | null;
  value: string;
  timestamp: number;
  /** The `seq` header's value. */
  seq: string | null;
}

/** Timestamp of source record i: fixed and distinct, so a copied timestamp is recognisable. */
export const timestampOf = (i: number): number => 1_700_000_000_000 + i * 7;

/** Key of source record i: null for every `keylessEvery`-th record, else one of `keys` keys. */
export function keyOf(i: number, keys: number, keylessEvery: number): string | null {
  return keylessEvery > 0 && i % keylessEvery === keylessEvery - 1 ? null : `key-${i % keys}`;
}

/** Appends records `from` .. `from + count - 1` to the source (partitioned by murmur2 of the key). */
export async function fillSource(
  bootstrap: string,
  topic: string,
  from: number,
  count: number,
  o: { keys: number; keylessEvery: number },
): Promise<void> {
  const p = new Producer({ bootstrapServers: bootstrap, lingerMs: 5 });
  try {
    const sends: Promise<unknown>[] = [];
    for (let i = from; i < from + count; i++)
      sends.push(
        p.send({
          topic,
          key: keyOf(i, o.keys, o.keylessEvery),
          value: `r${i}`,
          headers: { seq: String(i), origin: 'fan-out-test' },
          timestamp: timestampOf(i),
        }),
      );
    await Promise.all(sends);
  } finally {
    await p.close();
  }
}

/** Every committed record of a topic, read by our consumer (read_committed, to the LSO). */
export async function readOurs(bootstrap: string, topic: string, partitions: number): Promise<Seen[]> {
  const c = new Consumer({
    bootstrapServers: bootstrap,
    isolationLevel: 'read_committed',
    fetchMaxWaitMs: 100,
  });
  try {
    const tps = Array.from({ length: partitions }, (_, partition) => ({ topic, partition }));
    c.assign(tps);
    c.seekToBeginning(tps);
    const ends = await c.endOffsets(tps);
    const out: Seen[] = [];
    for (;;) {
      const positions = await Promise.all(tps.map((tp) => c.position(tp)));
      if (positions.every((p, i) => p >= ends[i]!)) break;
      for (const r of await c.poll(500)) {
        const seq = r.headers.find((h) => h.key === 'seq')?.value;
        out.push({
          partition: r.partition,
          offset: Number(r.offset),
          key: r.key === null ? null : r.key.toString(),
          value: r.value!.toString(),
          timestamp: r.timestamp,
          seq: seq === undefined || seq === null ? null : seq.toString(),
        });
      }
    }
    return out;
  } finally {
    await c.close();
  }
}

/** The same through kcat (librdkafka), isolation.level=read_committed. */
export async function readKcat(bootstrap: string, topic: string): Promise<Seen[]> {
  const r = await exec(
    'kcat',
    ['-C', '-b', bootstrap, '-t', topic, '-e', '-q', '-X', 'isolation.level=read_committed', '-Z'].concat([
      '-f',
      '%p\t%o\t%T\t%k\t%h\t%s\n',
    ]),
    { timeoutMs: 60_000 },
  );
  assert.equal(r.code, 0, `kcat ${r.timedOut ? 'timed out' : 'failed'}: ${r.stderr}`);
  return r.stdout
    .toString()
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => {
      const [p, o, ts, k, h, v] = l.split('\t');
      const seq = /(?:^|,)seq=([^,]*)/.exec(h ?? '')?.[1] ?? null;
      return {
        partition: Number(p),
        offset: Number(o),
        timestamp: Number(ts),
        key: k === 'NULL' ? null : k!,
        value: v!,
        seq,
      };
    });
}

const PYTHON_READER = `
import sys, json
from confluent_kafka import Consumer, TopicPartition, OFFSET_BEGINNING
bootstrap, topic, parts = sys.argv[1], sys.argv[2], int(sys.argv[3])
c = Consumer({'bootstrap.servers': bootstrap, 'group.id': 'fan-out-check-py', 'enable.auto.commit': False,
              'isolation.level': 'read_committed', 'enable.partition.eof': True})
c.assign([TopicPartition(topic, p, OFFSET_BEGINNING) for p in range(parts)])
eof = set()
while len(eof) < parts:
    m = c.poll(1.0)
    if m is None:
        continue
    if m.error():
        if m.error().code() == -191:  # _PARTITION_EOF
            eof.add(m.partition())
            continue
        raise Exception(str(m.error()))
    eof.discard(m.partition())
    headers = dict((k, v.decode()) for k, v in (m.headers() or []))
    print(json.dumps({'partition': m.partition(), 'offset': m.offset(), 'timestamp': m.timestamp()[1],
                      'key': None if m.key() is None else m.key().decode(), 'value': m.value().decode(),
                      'seq': headers.get('seq')}))
c.close()
`;

/** The same through confluent-kafka-python (librdkafka 2.0.2, Debian's /usr/bin/python3). */
export async function readPython(bootstrap: string, topic: string, partitions: number): Promise<Seen[]> {
  const r = await exec('/usr/bin/python3', ['-c', PYTHON_READER, bootstrap, topic, String(partitions)], {
    timeoutMs: 120_000,
  });
  assert.equal(r.code, 0, `python reader ${r.timedOut ? 'timed out' : 'failed'}: ${r.stderr}`);
  return r.stdout
    .toString()
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Seen);
}

const kafkajsPartition = Partitioners.DefaultPartitioner();

/** What kafkajs's default (Java-compatible murmur2) partitioner picks for a key. */
function kafkajsPartitionOf(key: string, partitions: number): number {
  return kafkajsPartition({
    topic: 't',
    partitionMetadata: Array.from({ length: partitions }, (_, partitionId) => ({
      partitionId,
      leader: 0,
      replicas: [0],
      isr: [0],
      offlineReplicas: [],
      partitionErrorCode: 0,
    })),
    message: { key, value: null },
  });
}

/**
 * The target holds source records 0 .. total-1 exactly once each, with their key, timestamp and
 * headers; each keyed record on murmur2(key) % partitions (checked against kafkajs's partitioner
 * too); each key's records in source order. `who` names the reader in failure messages.
 */
export function checkFanOut(
  got: readonly Seen[],
  total: number,
  partitions: number,
  o: { keys: number; keylessEvery: number },
  who: string,
): void {
  const seen = new Map<number, Seen>();
  for (const r of got) {
    const i = Number(r.value.slice(1));
    assert.ok(!seen.has(i), `${who}: r${i} is in the target twice (${r.partition}@${r.offset} and earlier)`);
    seen.set(i, r);
  }
  const missing: number[] = [];
  for (let i = 0; i < total; i++) if (!seen.has(i)) missing.push(i);
  assert.deepEqual(
    missing.slice(0, 20),
    [],
    `${who}: ${missing.length} source records missing from the target`,
  );
  assert.equal(seen.size, total, `${who}: records in the target that were never in the source`);
  const lastOfKey = new Map<string, { partition: number; offset: number; i: number }>();
  const sorted = [...got].sort((a, b) => a.partition - b.partition || a.offset - b.offset);
  for (const r of sorted) {
    const i = Number(r.value.slice(1));
    assert.equal(r.key, keyOf(i, o.keys, o.keylessEvery), `${who}: key of r${i}`);
    assert.equal(r.timestamp, timestampOf(i), `${who}: timestamp of r${i}`);
    assert.equal(r.seq, String(i), `${who}: seq header of r${i}`);
    if (r.key === null) continue;
    const want = murmur2Partition(r.key, partitions);
    assert.equal(
      r.partition,
      want,
      `${who}: ${r.key} (r${i}) on partition ${r.partition}, murmur2 says ${want}`,
    );
    assert.equal(want, kafkajsPartitionOf(r.key, partitions), `kafkajs agrees on ${r.key}`);
    const prev = lastOfKey.get(r.key);
    if (prev !== undefined)
      assert.ok(
        prev.i < i,
        `${who}: ${r.key}: r${i} at offset ${r.offset} after r${prev.i} at ${prev.offset}`,
      );
    lastOfKey.set(r.key, { partition: r.partition, offset: r.offset, i });
  }
}

/** Records in the log including aborted ones (kcat, read_uncommitted): for a diagnostic. */
export async function countUncommitted(bootstrap: string, topic: string): Promise<number> {
  const r = await exec(
    'kcat',
    ['-C', '-b', bootstrap, '-t', topic, '-e', '-q', '-X', 'isolation.level=read_uncommitted', '-f', '.\n'],
    { timeoutMs: 60_000 },
  );
  assert.equal(r.code, 0, r.stderr);
  return r.stdout
    .toString()
    .split('\n')
    .filter((l) => l !== '').length;
}
