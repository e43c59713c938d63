// Standalone (assign) consumers against a real broker: consuming every record once and in order,
// the prefetch bound, seeks, offsets for times, pause/resume, auto.offset.reset, wakeup.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { NoOffsetForPartitionError, WakeupError } from '../../../src/client/consumer/index.js';
import type { TestBroker } from '../../../src/testkit/index.js';
import { broker, consumer, createTopic, pollN, produce, sleep, str } from './support.js';

let b: TestBroker;
before(async () => {
  b = await broker();
  await createTopic(b, 'assign-3', 3);
  await produce(b, 'assign-3', 3000, 3);
});
after(async () => {
  await b?.close();
});

test('assign(): every record exactly once, in order per partition, keys/values/offsets intact', async () => {
  const c = consumer(b);
  try {
    c.assign([0, 1, 2].map((partition) => ({ topic: 'assign-3', partition })));
    const recs = await pollN(c, 3000);
    assert.equal(recs.length, 3000);
    const next = [0n, 0n, 0n];
    const seen = new Set<string>();
    for (const r of recs) {
      assert.equal(r.offset, next[r.partition], `partition ${r.partition} in order`);
      next[r.partition]!++;
      const i = Number(str(r.key)!.slice(4));
      assert.equal(i % 3, r.partition);
      assert.equal(str(r.value), `value-${i}`);
      assert.equal(r.timestampType, 'CreateTime');
      seen.add(str(r.key)!);
    }
    assert.equal(seen.size, 3000);
    assert.deepEqual(
      await Promise.all([0, 1, 2].map((p) => c.position({ topic: 'assign-3', partition: p }))),
      [1000n, 1000n, 1000n],
    );
    assert.deepEqual(await c.poll(50), []);
  } finally {
    await c.close();
  }
});

test('max.poll.records bounds each poll; the prefetch buffer stays under maxBufferedBytes', async () => {
  const c = consumer(b, { maxPollRecords: 7, maxBufferedBytes: 4096, maxPartitionFetchBytes: 1024 });
  try {
    c.assign([{ topic: 'assign-3', partition: 1 }]);
    let total = 0;
    let peak = 0;
    while (total < 1000) {
      const recs = await c.poll(2000);
      assert.ok(recs.length <= 7);
      total += recs.length;
      peak = Math.max(peak, c.bufferedBytes);
      await sleep(0);
    }
    assert.equal(total, 1000);
    // One batch above the bound is allowed (KIP-74); our batches are small.
    assert.ok(peak <= 4096 + 16384, `peak buffered ${peak}`);
  } finally {
    await c.close();
  }
});

test('seek, seekToBeginning, seekToEnd and offsetsForTimes', async () => {
  const before = Date.now();
  await produce(b, 'assign-3', 10, 3, 100000);
  const c = consumer(b);
  const tp = { topic: 'assign-3', partition: 2 };
  try {
    c.assign([tp]);
    c.seek(tp, 500);
    const a = await pollN(c, 1);
    assert.equal(a[0]!.offset, 500n);
    c.seekToEnd([tp]);
    assert.equal(await c.position(tp), 1003n);
    c.seekToBeginning();
    const firsts = await pollN(c, 1);
    assert.equal(firsts[0]!.offset, 0n);
    const [hit, miss] = await c.offsetsForTimes([
      { ...tp, timestamp: before },
      { ...tp, timestamp: Date.now() + 3_600_000 },
    ]);
    assert.equal(
      hit?.offset,
      1000n,
      `first record at or after the time: ${JSON.stringify(hit, (_k, v) => (typeof v === 'bigint' ? String(v) : v))} before=${before}`,
    );
    assert.ok(hit!.timestamp >= before);
    assert.equal(miss, null);
    c.seek(tp, hit!.offset);
    const replay = await pollN(c, 3);
    assert.deepEqual(
      replay.map((r) => str(r.value)),
      ['value-100001', 'value-100004', 'value-100007'],
    );
    assert.deepEqual(await c.beginningOffsets([tp]), [0n]);
    assert.deepEqual(await c.endOffsets([tp]), [1003n]);
  } finally {
    await c.close();
  }
});

test('pause stops delivery of a partition until resume', async () => {
  const c = consumer(b);
  const p0 = { topic: 'assign-3', partition: 0 };
  const p1 = { topic: 'assign-3', partition: 1 };
  try {
    c.assign([p0, p1]);
    c.pause([p0]);
    const recs = await pollN(c, 1004);
    assert.equal(recs.length, 1004);
    assert.ok(recs.every((r) => r.partition === 1));
    assert.deepEqual(await c.poll(300), []);
    assert.deepEqual(c.paused(), [p0]);
    c.resume([p0]);
    const more = await pollN(c, 1);
    assert.equal(more[0]!.partition, 0);
  } finally {
    await c.close();
  }
});

test('auto.offset.reset: latest skips the backlog; none raises NoOffsetForPartitionError', async () => {
  const latest = consumer(b, { autoOffsetReset: 'latest' });
  const none = consumer(b, { autoOffsetReset: 'none' });
  try {
    latest.assign([{ topic: 'assign-3', partition: 0 }]);
    assert.deepEqual(await latest.poll(500), []);
    assert.equal(await latest.position({ topic: 'assign-3', partition: 0 }), 1003n);
    none.assign([{ topic: 'assign-3', partition: 0 }]);
    await assert.rejects(none.poll(2000), NoOffsetForPartitionError);
    await assert.rejects(none.poll(2000), NoOffsetForPartitionError);
    none.seek({ topic: 'assign-3', partition: 0 }, 1);
    assert.equal((await pollN(none, 1))[0]!.offset, 1n);
  } finally {
    await latest.close();
    await none.close();
  }
});

test('wakeup() makes a blocked poll throw WakeupError, once', async () => {
  const c = consumer(b, { autoOffsetReset: 'latest' });
  try {
    c.assign([{ topic: 'assign-3', partition: 0 }]);
    const started = Date.now();
    setTimeout(() => c.wakeup(), 200);
    await assert.rejects(c.poll(10000), WakeupError);
    assert.ok(Date.now() - started < 3000);
    assert.deepEqual(await c.poll(100), []);
    c.wakeup();
    await assert.rejects(c.poll(100), WakeupError);
  } finally {
    await c.close();
  }
});

test('close() ends a waiting poll and the async iterator', async () => {
  const c = consumer(b, { autoOffsetReset: 'latest' });
  c.assign([{ topic: 'assign-3', partition: 0 }]);
  const it = (async () => {
    let n = 0;
    for await (const _ of c) n++;
    return n;
  })();
  await sleep(300);
  await c.close();
  assert.equal(await it, 0);
});
