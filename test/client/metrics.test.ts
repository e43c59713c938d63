// producer.metrics() and consumer.metrics() against a real in-process broker: counts match what
// was produced and consumed, batch sizes stay within what the records and batch.size allow,
// latencies are measured, and consumer lag follows the backlog. Plus the window arithmetic.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { SampledStat } from '../../src/client/metrics/client-metrics.js';
import { Producer } from '../../src/client/producer/producer.js';
import type { TestBroker } from '../../src/testkit/index.js';
import { scaled } from '../support/timeouts.js';
import { broker, consumer, createTopic, pollN, produce, sleep } from './consumer/support.js';

const N = 500;
const VALUE_BYTES = 100;
const BATCH_SIZE = 4096;
const BATCH_HEADER = 61;

let b: TestBroker;
before(async () => {
  b = await broker();
  await createTopic(b, 'metrics-1', 1);
  await createTopic(b, 'metrics-gzip', 1);
  await createTopic(b, 'metrics-group', 1);
});
after(async () => {
  await b?.close();
});

async function waitFor(what: string, cond: () => boolean, ms = 30_000): Promise<void> {
  const deadline = Date.now() + scaled(ms);
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

test('SampledStat: Kafka window arithmetic (2 samples × 30 s, rate over at least one window)', () => {
  const s = new SampledStat();
  assert.ok(Number.isNaN(s.avg(0)));
  assert.ok(Number.isNaN(s.max(0)));
  assert.equal(s.rate(0), 0);
  s.record(10, 1000);
  s.record(30, 2000);
  assert.equal(s.avg(2000), 20);
  assert.equal(s.max(2000), 30);
  // 40 over less than one full window: divided by elapsed + one window (Kafka's Rate).
  assert.equal(s.rate(2000), 40 / (1 + 30));
  assert.equal(s.countRate(2000), 2 / 31);
  s.recordMany(100, 10, 40_000); // a second sample
  assert.equal(s.avg(40_000), 140 / 12);
  assert.equal(s.total, 140);
  assert.equal(s.totalCount, 12);
  // The first sample (started at 1 s) expires 60 s later; the second still counts.
  assert.equal(s.avg(61_500), 10);
  assert.ok(Number.isNaN(s.max(61_500)), 'recordMany does not set a maximum');
  assert.ok(Number.isNaN(s.avg(200_000)));
  assert.equal(s.total, 140, 'totals are lifetime');
});

test('producer.metrics(): sends, batch and record sizes, request latency, buffer', async () => {
  // Fixed-size batches (no growth past batch.size), so the batch arithmetic below holds.
  const p = new Producer({
    bootstrapServers: b.bootstrap,
    lingerMs: 5,
    batchSize: BATCH_SIZE,
    batchMaxSize: BATCH_SIZE,
  });
  try {
    const m0 = p.metrics();
    assert.equal(m0['record-send-total'], 0);
    assert.equal(m0['request-total'], 0);
    assert.ok(Number.isNaN(m0['batch-size-avg']));
    const value = Buffer.alloc(VALUE_BYTES, 'v');
    const sends: Promise<unknown>[] = [];
    for (let i = 0; i < N; i++) sends.push(p.send({ topic: 'metrics-1', value }));
    await Promise.all(sends);
    await p.flush();
    const m = p.metrics();
    assert.equal(m['record-send-total'], N);
    assert.equal(m['record-error-total'], 0);
    assert.equal(m['record-retry-total'], 0);
    assert.ok(m['record-send-rate'] > 0);
    // A record of 100 value bytes takes 100 + 7..12 bytes in a v2 batch (length, attributes,
    // timestamp and offset deltas, key/value lengths, header count).
    assert.ok(
      m['record-size-avg'] >= VALUE_BYTES + 5 && m['record-size-avg'] <= VALUE_BYTES + 14,
      String(m['record-size-avg']),
    );
    assert.ok(m['batch-size-max'] <= BATCH_SIZE, `batch-size-max ${m['batch-size-max']}`);
    assert.ok(m['batch-size-avg'] >= BATCH_HEADER + VALUE_BYTES, `batch-size-avg ${m['batch-size-avg']}`);
    assert.ok(m['batch-size-avg'] <= m['batch-size-max']);
    // N records cannot fit in fewer than N * size / batch.size batches.
    const minBatches = Math.ceil((N * (VALUE_BYTES + 5)) / (BATCH_SIZE - BATCH_HEADER));
    assert.ok(m['records-per-batch-avg'] <= N / minBatches + 1e-9, String(m['records-per-batch-avg']));
    assert.ok(m['records-per-batch-avg'] >= 1);
    assert.equal(m['compression-rate-avg'], 1);
    assert.ok(m['request-total'] >= 1);
    assert.ok(m['request-latency-avg'] > 0);
    assert.ok(m['request-latency-max'] >= m['request-latency-avg']);
    assert.equal(m['requests-in-flight'], 0);
    assert.equal(m['produce-throttle-time-avg'], 0);
    assert.equal(m['buffer-available-bytes'], m['buffer-total-bytes']);
    const nodes = Object.entries(m.nodes);
    assert.equal(nodes.length, 1);
    assert.match(nodes[0]![0], /^node-\d+$/);
    assert.equal(nodes[0]![1]['request-total'], m['request-total']);
    assert.ok(nodes[0]![1]['request-latency-avg'] > 0);
    // A plain, serializable object.
    assert.doesNotThrow(() => JSON.stringify(m));
  } finally {
    await p.close();
  }
});

test('producer.metrics(): compression-rate-avg below 1 for compressible records', async () => {
  const p = new Producer({ bootstrapServers: b.bootstrap, lingerMs: 5, compressionType: 'gzip' });
  try {
    const value = Buffer.alloc(1000, 'a');
    await Promise.all(Array.from({ length: 50 }, () => p.send({ topic: 'metrics-gzip', value })));
    const m = p.metrics();
    assert.equal(m['record-send-total'], 50);
    assert.ok(
      m['compression-rate-avg'] > 0 && m['compression-rate-avg'] < 0.5,
      String(m['compression-rate-avg']),
    );
    // Sent bytes are the compressed ones; record size is measured before compression.
    assert.ok(m['record-size-avg'] >= 1000);
    assert.ok(m['batch-size-avg'] < 1000);
  } finally {
    await p.close();
  }
});

test('consumer.metrics(): records and bytes consumed, fetch latency, lag down to 0 and back', async () => {
  const tp = { topic: 'metrics-1', partition: 0 };
  const c = consumer(b, { maxPollRecords: 10 });
  try {
    c.assign([tp]);
    const m0 = c.metrics();
    assert.equal(m0['assigned-partitions'], 1);
    assert.ok(Number.isNaN(m0['records-lag-max']), 'no lag before the first fetch');
    assert.ok(Number.isNaN(m0['last-poll-seconds-ago']));
    // The first poll: everything was produced before, so every fetch answer has HW = N.
    const first = await c.poll(scaled(30_000));
    assert.ok(first.length > 0 && first.length <= 10);
    const m1 = c.metrics();
    assert.equal(m1['records-consumed-total'], first.length);
    assert.equal(m1['records-lag-max'], N - first.length, 'lag = the backlog not yet consumed');
    assert.equal(m1.partitions[0]!['records-lag'], N - first.length);
    assert.equal(m1.partitions[0]!['log-end'], BigInt(N));
    assert.equal(m1.partitions[0]!['records-lead'], first.length);
    const rest = await pollN(c, N - first.length);
    assert.equal(first.length + rest.length, N);
    const m = c.metrics();
    assert.equal(m['records-consumed-total'], N);
    assert.ok(m['bytes-consumed-total'] >= N * VALUE_BYTES);
    assert.ok(m['records-consumed-rate'] > 0);
    assert.ok(m['bytes-consumed-rate'] > 0);
    assert.ok(m['fetch-total'] >= 1);
    assert.ok(m['fetch-latency-avg'] > 0);
    assert.ok(m['fetch-latency-max'] >= m['fetch-latency-avg']);
    assert.ok(m['fetch-size-max'] >= VALUE_BYTES);
    assert.equal(m['records-lag-max'], 0, 'caught up');
    assert.ok(m['last-poll-seconds-ago'] >= 0 && m['last-poll-seconds-ago'] < scaled(30));
    assert.ok(m['time-between-poll-avg'] >= 0);
    assert.equal(Object.keys(m.nodes).length, 1);

    // A backlog produced while the partition is paused. The seek drops whatever a fetch still
    // in flight brings back, so the next answer (after resume) is the one that sees all 100.
    c.pause([tp]);
    c.seek(tp, BigInt(N));
    await produce(b, 'metrics-1', 100);
    assert.equal(c.metrics()['records-lag-max'], 0, 'lag is only learned from fetches');
    c.resume([tp]);
    const got = await c.poll(scaled(30_000));
    assert.ok(got.length > 0 && got.length <= 10);
    const lag = c.metrics()['records-lag-max'];
    assert.ok(lag >= 100 - got.length, `lag ${lag} ≥ remaining backlog ${100 - got.length}`);
    assert.equal(lag, 100 - got.length);
    await pollN(c, 100 - got.length);
    await waitFor('lag 0', () => c.metrics()['records-lag-max'] === 0);
    assert.equal(c.metrics()['records-consumed-total'], N + 100);
  } finally {
    await c.close();
  }
});

test('consumer.metrics(): commits and rebalances of a group member', async () => {
  await produce(b, 'metrics-group', 20);
  const c = consumer(b, { groupId: 'metrics-g', enableAutoCommit: false });
  try {
    c.subscribe(['metrics-group']);
    const recs = await pollN(c, 20);
    assert.equal(recs.length, 20);
    await c.commitSync();
    const m = c.metrics();
    assert.equal(m['rebalance-total'], 1);
    assert.ok(m['last-rebalance-seconds-ago'] >= 0);
    assert.equal(m['assigned-partitions'], 1);
    assert.ok(m['commit-total'] >= 1);
    assert.ok(m['commit-latency-avg'] > 0);
    assert.equal(m['records-consumed-total'], 20);
    assert.equal(m['records-lag-max'], 0);
  } finally {
    await c.close();
  }
});
