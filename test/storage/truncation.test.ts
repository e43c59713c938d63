import assert from 'node:assert/strict';
import { test } from 'node:test';
import { batch, openManager, records, TOPIC_ID, tempDir } from './helpers.js';

test('truncateTo drops later batches, epochs and producer state; appends continue', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const mgr = await openManager(dir, { defaults: { segmentBytes: 600 } });
    const log = await mgr.createLog('t', 0, { topicId: TOPIC_ID });
    for (let i = 0; i < 10; i++) await log.appendAsLeader(batch(2, `e1-${i}`), 1); // 0-19
    for (let i = 0; i < 10; i++)
      await log.appendAsLeader(
        batch(2, `e2-${i}`, { producerId: 5n, producerEpoch: 0, baseSequence: i * 2 }),
        2,
      ); // 20-39
    for (let i = 0; i < 5; i++) await log.appendAsLeader(batch(2, `e4-${i}`), 4); // 40-49
    log.setHighWatermark(45n);
    assert.deepEqual(log.endOffsetForEpoch(1), { leaderEpoch: 1, endOffset: 20n });
    assert.deepEqual(log.endOffsetForEpoch(3), { leaderEpoch: 2, endOffset: 40n });
    assert.deepEqual(log.endOffsetForEpoch(4), { leaderEpoch: 4, endOffset: 50n });
    assert.deepEqual(log.endOffsetForEpoch(0), { leaderEpoch: 0, endOffset: 0n });
    assert.deepEqual(log.endOffsetForEpoch(5), { leaderEpoch: -1, endOffset: -1n });
    const segs = log.segmentCount;
    await log.truncateTo(30n);
    assert.equal(log.logEndOffset, 30n);
    assert.equal(log.highWatermark, 30n);
    assert.ok(log.segmentCount < segs);
    assert.equal(log.latestEpoch, 2);
    assert.deepEqual(log.endOffsetForEpoch(2), { leaderEpoch: 2, endOffset: 30n });
    assert.equal(
      log.producerStates().find((p) => p.producerId === 5n)!.lastSequence,
      9,
      'sequences of truncated batches forgotten',
    );
    const r = await log.appendAsLeader(
      batch(2, 'x', { producerId: 5n, producerEpoch: 0, baseSequence: 10 }),
      5,
    );
    assert.equal(r.baseOffset, 30n);
    log.setHighWatermark(log.logEndOffset);
    const recs = records(
      (await log.read(0n, { maxBytes: 1 << 20, upperBound: 'hw', minOneBatch: true })).records,
    );
    assert.equal(recs[0]!.offset, 0n); // (one segment per read, like Kafka)
    const tail = records(
      (await log.read(28n, { maxBytes: 1 << 20, upperBound: 'hw', minOneBatch: true })).records,
    );
    assert.deepEqual(
      tail.map((x) => x.value),
      ['e2-4-0', 'e2-4-1', 'x-0', 'x-1'],
    );
    await mgr.close();
    const again = await openManager(dir);
    const log2 = again.getLog('t', 0)!;
    assert.equal(log2.logEndOffset, 32n);
    assert.deepEqual(log2.endOffsetForEpoch(2), { leaderEpoch: 2, endOffset: 30n });
    await log2.truncateFullyAndStartAt(100n);
    assert.deepEqual(
      [log2.logStartOffset, log2.logEndOffset, log2.highWatermark, log2.segmentCount],
      [100n, 100n, 100n, 1],
    );
    assert.equal((await log2.appendAsLeader(batch(1), 6)).baseOffset, 100n);
    await again.close();
    const third = await openManager(dir);
    assert.deepEqual(
      [third.getLog('t', 0)!.logStartOffset, third.getLog('t', 0)!.logEndOffset],
      [100n, 101n],
    );
    await third.close();
  } finally {
    cleanup();
  }
});

test('appends issued during a truncation wait and keep their order', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const mgr = await openManager(dir);
    const log = await mgr.createLog('t', 0, { topicId: TOPIC_ID });
    for (let i = 0; i < 5; i++) await log.appendAsLeader(batch(1, `a${i}`), 0);
    const t = log.truncateTo(2n);
    const a = log.appendAsLeader(batch(1, 'b0'), 1);
    const b = log.appendAsLeader(batch(1, 'b1'), 1);
    await t;
    assert.deepEqual([(await a).baseOffset, (await b).baseOffset], [2n, 3n]);
    await mgr.close();
  } finally {
    cleanup();
  }
});
