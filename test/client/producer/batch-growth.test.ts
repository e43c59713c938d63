// Expandable batches (batch.max.size) and the split of a batch the broker refuses as too large:
// growth only while a batch is not drained, within batch.max.size and buffer.memory; records in
// order and exactly once with 5 requests in flight; a too-large batch split into batch.size
// pieces that keep its sequence range, later in-flight batches resent behind them; a single
// record too large for the topic fails alone.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { KafkaResponseError } from '../../../src/client/errors.js';
import {
  APPENDED,
  APPENDED_BATCH_FULL,
  APPENDED_NEW_BATCH,
  MemoryPool,
  NO_MEMORY,
  RecordAccumulator,
} from '../../../src/client/producer/accumulator.js';
import { resolveProducerOptions } from '../../../src/client/producer/producer-config.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { NO_HEADERS, setup } from './fake-cluster.js';

test('accumulator: a full batch that is not drained grows to batch.max.size, reserving what it takes', () => {
  const acc = new RecordAccumulator(1024, 1 << 20, 8192);
  const value = Buffer.alloc(100, 1);
  const results: number[] = [];
  for (let i = 0; i < 150; i++) results.push(acc.append('t', 0, 0, null, value, NO_HEADERS, undefined, 0));
  const q = acc.queue('t', 0);
  assert.equal(results[0], APPENDED_NEW_BATCH);
  assert.ok(
    results.slice(1, 8).every((r) => r === APPENDED),
    'below batch.size: not ready',
  );
  // Records of ~108 bytes: each batch but the last stops less than one record below 8192 bytes.
  assert.ok(q.batches.length >= 2);
  let reserved = 0;
  for (const b of q.batches.slice(0, -1)) {
    assert.ok(b.sizeInBytes <= 8192 && b.sizeInBytes > 8192 - 130, `batch of ${b.sizeInBytes} bytes`);
    assert.equal(b.reserved, 8192);
  }
  for (const b of q.batches) reserved += b.reserved;
  const first = q.batches[0]!;
  assert.ok(
    results.slice(9, first.count).every((r) => r === APPENDED_BATCH_FULL),
    'ready from batch.size on, while it grows',
  );
  assert.equal(
    q.batches.reduce((n, b) => n + b.count, 0),
    150,
  );
  assert.equal(acc.pool.available, (1 << 20) - reserved);
  for (const b of q.batches.splice(0)) acc.release(b);
  assert.equal(acc.pool.available, 1 << 20, 'everything reserved comes back');
});

test('accumulator: no growth past buffer.memory (the record waits for memory instead) or once drained', () => {
  const acc = new RecordAccumulator(1024, 2048, 1 << 16);
  const value = Buffer.alloc(100);
  let r = 0;
  let n = 0;
  while (r !== NO_MEMORY && n < 100) {
    r = acc.append('t', 0, 0, null, value, NO_HEADERS, undefined, 0);
    n++;
  }
  assert.equal(r, NO_MEMORY);
  assert.equal(acc.queue('t', 0).batches[0]!.reserved, 2048, 'grew to what the pool had');
  assert.equal(acc.pool.available, 0);

  const acc2 = new RecordAccumulator(1024, 1 << 20, 1 << 16);
  for (let i = 0; i < 12; i++) acc2.append('t', 0, 0, null, value, NO_HEADERS, undefined, 0);
  const b = acc2.queue('t', 0).batches[0]!;
  b.closeUncompressed(); // drained by the sender: frozen
  const size = b.sizeInBytes;
  assert.equal(acc2.append('t', 0, 0, null, value, NO_HEADERS, undefined, 0), APPENDED_NEW_BATCH);
  assert.equal(b.sizeInBytes, size);
});

test('memory pool: grown sizes are recycled per size; other sizes are not pooled', () => {
  const pool = new MemoryPool(1 << 20, 16384, 262144);
  assert.equal(pool.grownSize(16385), 32768);
  assert.equal(pool.grownSize(200_000), 262144);
  const big = pool.allocate(65536)!;
  assert.equal(big.length, 65536);
  pool.recycle(big);
  assert.equal(pool.allocate(65536), big);
  assert.equal(pool.allocate(50_000), undefined);
  assert.equal(pool.allocate(262144)!.length, 262144);
});

test('options: batchMaxSize defaults to max.request.size (at least batch.size)', () => {
  const resolve = (o: object) => resolveProducerOptions({ bootstrapServers: 'x:1', ...o }).batchMaxSize;
  assert.equal(resolve({}), 1 << 20);
  assert.equal(resolve({ maxRequestSize: 100_000 }), 100_000);
  assert.equal(resolve({ batchSize: 2 << 20 }), 2 << 20);
  assert.equal(resolve({ batchMaxSize: 16384 }), 16384);
  assert.equal(resolve({ batchMaxSize: 8 << 20 }), 1 << 20, 'at most max.request.size');
  assert.throws(() => resolve({ batchSize: 4096, batchMaxSize: 1000 }), /batchMaxSize/);
});

test('growth under 5 requests in flight: larger requests, in order, exactly once', async () => {
  const { cluster, send, sender } = setup({ lingerMs: 0 }, 1024, 1 << 24, 16384);
  cluster.delayMs = 3;
  const ps = [];
  for (let i = 0; i < 3000; i++) {
    ps.push(send('t', i % 2, `v${i}`));
    if (i % 200 === 199) await new Promise((r) => setImmediate(r));
  }
  sender.flushing++;
  sender.wakeup();
  const mds = await Promise.all(ps);
  const sizes = cluster.requests.flatMap((r) => r.topicData[0]!.partitionData.map((p) => p.records!.length));
  assert.ok(Math.max(...sizes) > 1024, 'batches grew past batch.size');
  assert.ok(Math.max(...sizes) <= 16384, 'never past batch.max.size');
  assert.ok(cluster.inFlightMax <= 5);
  for (let p = 0; p < 2; p++) {
    const expect = [];
    for (let i = p; i < 3000; i += 2) expect.push(`v${i}`);
    assert.deepEqual(cluster.log('t', p).values, expect, `partition ${p} in order, exactly once`);
  }
  const offsets = new Set(mds.map((m) => `${m.partition}:${m.offset}`));
  assert.equal(offsets.size, 3000, 'every record reported its own offset');
});

test('MESSAGE_TOO_LARGE: the batch is split into batch.size pieces with its sequences; later batches follow', async () => {
  // batch.size 1024, batches grow to 16 KiB, the "topic" takes at most 3000 bytes per batch.
  const { cluster, send, sender, acc } = setup({ lingerMs: 0 }, 1024, 1 << 24, 16384);
  cluster.maxMessageBytes = 3000;
  cluster.delayMs = 2;
  const ps = [];
  for (let i = 0; i < 2000; i++) {
    ps.push(send('t', 0, `record-${i}`.padEnd(40, '.')));
    if (i % 400 === 399) await new Promise((r) => setImmediate(r));
  }
  sender.flushing++;
  sender.wakeup();
  const mds = await Promise.all(ps);
  const expect = Array.from({ length: 2000 }, (_, i) => `record-${i}`.padEnd(40, '.'));
  assert.deepEqual(cluster.log('t', 0).values, expect, 'in order, exactly once');
  assert.deepEqual(
    mds.map((m) => m.offset),
    expect.map((_, i) => BigInt(i)),
    'each callback got its record',
  );
  const refused = cluster.requests.filter((r) => r.topicData[0]!.partitionData[0]!.records!.length > 3000);
  assert.ok(refused.length > 0, 'some grown batches were refused and split');
  assert.equal(acc.pool.available, 1 << 24, 'split batches released every byte');
  assert.equal(acc.pendingBatches, 0);
});

test('RECORD_LIST_TOO_LARGE below batch.size (segment.bytes): pieces are halved until they fit', async () => {
  // batch.size 1024 but the "topic" takes at most 300 bytes per batch: a batch of batch.size is
  // refused too, so the split halves it (the same piece sent again would loop forever).
  const { cluster, send, sender, acc } = setup({ lingerMs: 0 }, 1024, 1 << 24, 16384);
  cluster.maxMessageBytes = 300;
  cluster.tooLargeCode = ErrorCode.RECORD_LIST_TOO_LARGE;
  sender.flushing++;
  const expect = Array.from({ length: 200 }, (_, i) => `r-${i}`.padEnd(30, '.'));
  const mds = await Promise.all(expect.map((v) => send('t', 0, v)));
  assert.deepEqual(cluster.log('t', 0).values, expect, 'in order, exactly once');
  assert.deepEqual(
    mds.map((m) => m.offset),
    expect.map((_, i) => BigInt(i)),
  );
  assert.equal(acc.pool.available, 1 << 24, 'split batches released every byte');
  assert.equal(acc.pendingBatches, 0);
});

test('MESSAGE_TOO_LARGE: a record larger than the topic allows fails alone; without idempotence too', async () => {
  for (const idempotent of [true, false]) {
    const { cluster, send, sender } = setup({ lingerMs: 0, idempotent }, 1024, 1 << 24, 16384);
    cluster.maxMessageBytes = 1500;
    sender.flushing++;
    const small = Array.from({ length: 30 }, (_, i) => send('t', 0, `s${i}`));
    const huge = send('t', 0, 'x'.repeat(2000)).catch((e: unknown) => e);
    const after = Array.from({ length: 30 }, (_, i) => send('t', 0, `a${i}`));
    const err = await huge;
    assert.ok(err instanceof KafkaResponseError && err.code === 'MESSAGE_TOO_LARGE', String(err));
    await Promise.all([...small, ...after]);
    const values = cluster.log('t', 0).values;
    assert.deepEqual(
      values,
      [...Array.from({ length: 30 }, (_, i) => `s${i}`), ...Array.from({ length: 30 }, (_, i) => `a${i}`)],
      `idempotent=${idempotent}`,
    );
  }
});

test('append results stay as before without growth (batch.max.size = batch.size)', () => {
  const acc = new RecordAccumulator(1024, 1 << 20);
  const value = Buffer.alloc(100);
  const rs: number[] = [];
  for (let i = 0; i < 12; i++) rs.push(acc.append('t', 0, 0, null, value, NO_HEADERS, undefined, 0));
  assert.equal(acc.queue('t', 0).batches.length, 2);
  assert.ok(rs.includes(APPENDED_BATCH_FULL));
  assert.equal(acc.queue('t', 0).batches[0]!.reserved, 1024);
});
