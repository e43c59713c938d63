import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ErrorCode, KafkaError } from '../../src/protocol/errors.js';
import { batch, controlBatch, openManager, records, TOPIC_ID, tempDir } from './helpers.js';

test('append as leader assigns offsets in call order and reads them back', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const mgr = await openManager(dir);
    const log = await mgr.createLog('t', 0, { topicId: TOPIC_ID });
    const results = await Promise.all([
      log.appendAsLeader(batch(3, 'a'), 1),
      log.appendAsLeader(batch(2, 'b'), 1),
      log.appendAsLeader(batch(1, 'c'), 2),
    ]);
    assert.deepEqual(
      results.map((r) => [r.baseOffset, r.lastOffset]),
      [
        [0n, 2n],
        [3n, 4n],
        [5n, 5n],
      ],
    );
    assert.equal(log.logEndOffset, 6n);
    assert.equal(log.highWatermark, 0n);
    log.setHighWatermark(6n);
    const r = await log.read(0n, { maxBytes: 1 << 20, upperBound: 'hw', minOneBatch: true });
    const recs = records(r.records);
    assert.deepEqual(
      recs.map((x) => x.value),
      ['a-0', 'a-1', 'a-2', 'b-0', 'b-1', 'c-0'],
    );
    assert.deepEqual(
      recs.map((x) => x.offset),
      [0n, 1n, 2n, 3n, 4n, 5n],
    );
    assert.deepEqual(
      recs.map((x) => x.leaderEpoch),
      [1, 1, 1, 1, 1, 2],
    );
    const mid = await log.read(4n, { maxBytes: 1 << 20, upperBound: 'hw', minOneBatch: true });
    assert.equal(records(mid.records)[0]!.offset, 3n, 'starts at the batch containing the offset');
    await assert.rejects(
      log.read(7n, { maxBytes: 100, upperBound: 'hw', minOneBatch: true }),
      (e: unknown) => e instanceof KafkaError && e.code === ErrorCode.OFFSET_OUT_OF_RANGE,
    );
    assert.deepEqual(log.endOffsetForEpoch(1), { leaderEpoch: 1, endOffset: 5n });
    assert.deepEqual(log.endOffsetForEpoch(2), { leaderEpoch: 2, endOffset: 6n });
    await mgr.close();
    const again = await openManager(dir);
    const log2 = again.getLog('t', 0)!;
    assert.equal(log2.logEndOffset, 6n);
    assert.equal(log2.highWatermark, 6n);
    assert.equal(log2.topicId, TOPIC_ID);
    const r2 = await log2.read(0n, { maxBytes: 1 << 20, upperBound: 'hw', minOneBatch: true });
    assert.equal(records(r2.records).length, 6);
    await again.close();
  } finally {
    cleanup();
  }
});

test('reads honour maxBytes, minOneBatch and the upper bound', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const mgr = await openManager(dir, { tailCacheBytes: 0 });
    const log = await mgr.createLog('t', 0, { topicId: TOPIC_ID });
    const sizes: number[] = [];
    for (let i = 0; i < 20; i++) {
      const b = batch(5, `b${i}`);
      sizes.push(b.length);
      await log.appendAsLeader(b, 0);
    }
    log.setHighWatermark(50n);
    const opts = { maxBytes: sizes[0]! * 3 + 1, upperBound: 'hw' as const, minOneBatch: true };
    const r = await log.read(0n, opts);
    assert.equal(r.records.length, sizes[0]! * 3);
    const small = await log.read(12n, { maxBytes: 10, upperBound: 'hw', minOneBatch: true });
    assert.equal(records(small.records)[0]!.offset, 10n, 'one whole batch even above maxBytes');
    const none = await log.read(12n, { maxBytes: 10, upperBound: 'hw', minOneBatch: false });
    assert.equal(none.records.length, 0);
    const bounded = await log.read(40n, { maxBytes: 1 << 20, upperBound: 'hw', minOneBatch: true });
    assert.deepEqual([...new Set(records(bounded.records).map((x) => x.offset / 5n))], [8n, 9n]);
    assert.equal(
      (await log.read(50n, { maxBytes: 1 << 20, upperBound: 'hw', minOneBatch: true })).records.length,
      0,
    );
    const leo = await log.read(55n, { maxBytes: 1 << 20, upperBound: 'leo', minOneBatch: true });
    assert.equal(records(leo.records).length, 45);
    const explicit = await log.read(0n, { maxBytes: 1 << 20, upperBound: 7n, minOneBatch: true });
    assert.equal(records(explicit.records).length, 5, 'a batch crossing the bound is left out');
    await mgr.close();
  } finally {
    cleanup();
  }
});

test('leader validation rejects corrupt, oversized, control and multi-batch input', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const mgr = await openManager(dir, { defaults: { maxMessageBytes: 2000 } });
    const log = await mgr.createLog('t', 0, { topicId: TOPIC_ID });
    const code = (c: number) => (e: unknown) => e instanceof KafkaError && e.code === c;
    const bad = batch(2);
    bad[bad.length - 1]! ^= 0xff;
    await assert.rejects(log.appendAsLeader(bad, 0), code(ErrorCode.CORRUPT_MESSAGE));
    await assert.rejects(
      log.appendAsLeader(batch(1, 'x'.repeat(3000)), 0),
      code(ErrorCode.MESSAGE_TOO_LARGE),
    );
    await assert.rejects(
      log.appendAsLeader(controlBatch(7n, 0, 'COMMIT'), 0),
      code(ErrorCode.INVALID_RECORD),
    );
    await assert.rejects(
      log.appendAsLeader(Buffer.concat([batch(1), batch(1)]), 0),
      code(ErrorCode.INVALID_RECORD),
    );
    await assert.rejects(log.appendAsLeader(batch(2).subarray(0, 40), 0), code(ErrorCode.CORRUPT_MESSAGE));
    await assert.rejects(log.appendAsLeader(Buffer.alloc(0), 0), code(ErrorCode.CORRUPT_MESSAGE));
    assert.equal(log.logEndOffset, 0n);
    const ok = await log.appendAsLeader(batch(1), 0);
    assert.equal(ok.baseOffset, 0n);
    await mgr.close();
  } finally {
    cleanup();
  }
});

test('LogAppendTime stamps the broker time and keeps the CRC valid', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const mgr = await openManager(dir, { now: () => 1_700_000_000_000 });
    const log = await mgr.createLog('t', 0, {
      topicId: TOPIC_ID,
      config: { messageTimestampType: 'LogAppendTime' },
    });
    const r = await log.appendAsLeader(batch(3, 'x', { timestamp: 5 }), 0);
    assert.equal(r.logAppendTime, 1_700_000_000_000n);
    log.setHighWatermark(log.logEndOffset);
    const recs = records(
      (await log.read(0n, { maxBytes: 1 << 20, upperBound: 'hw', minOneBatch: true })).records,
    );
    assert.deepEqual(
      recs.map((x) => x.timestamp),
      [1_700_000_000_000n, 1_700_000_000_000n, 1_700_000_000_000n],
    );
    await mgr.close();
  } finally {
    cleanup();
  }
});

test('follower appends keep offsets and epochs; listeners hear appends and HW moves', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const mgr = await openManager(dir);
    const log = await mgr.createLog('t', 0, { topicId: TOPIC_ID });
    let calls = 0;
    const off = log.onAppend(() => calls++);
    const fetched = Buffer.concat([
      batch(2, 'a', { baseOffset: 0, partitionLeaderEpoch: 3 }),
      batch(3, 'b', { baseOffset: 10, partitionLeaderEpoch: 4 }),
    ]);
    const r = await log.appendAsFollower(Buffer.concat([fetched, batch(1).subarray(0, 30)]));
    assert.deepEqual(r, { firstOffset: 0n, lastOffset: 12n });
    assert.equal(log.logEndOffset, 13n);
    assert.equal(log.latestEpoch, 4);
    assert.deepEqual(log.endOffsetForEpoch(3), { leaderEpoch: 3, endOffset: 10n });
    assert.ok(calls >= 1);
    const before = calls;
    log.setHighWatermark(13n);
    assert.equal(calls, before + 1);
    off();
    log.setHighWatermark(2n);
    assert.equal(calls, before + 1);
    await assert.rejects(
      log.appendAsFollower(batch(1, 'c', { baseOffset: 5 })),
      (e: unknown) => e instanceof KafkaError,
    );
    const recs = records(
      (await log.read(0n, { maxBytes: 1 << 20, upperBound: 'leo', minOneBatch: true })).records,
    );
    assert.deepEqual(
      recs.map((x) => x.offset),
      [0n, 1n, 10n, 11n, 12n],
    );
    await mgr.close();
  } finally {
    cleanup();
  }
});
