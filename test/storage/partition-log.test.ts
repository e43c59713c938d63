import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ErrorCode, KafkaError } from '../../src/protocol/errors.js';
import { batch, openManager, records, tempDir, TOPIC_ID } from './helpers.js';

test('append as leader assigns offsets in call order and reads them back', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const mgr = await openManager(dir);
    const log = await mgr.createLog('t', 0, { topicId: TOPIC_ID });
    const results = await Promise.all([log.appendAsLeader(batch(3, 'a'), 1), log.appendAsLeader(batch(2, 'b'), 1), log.appendAsLeader(batch(1, 'c'), 2)]);
    assert.deepEqual(results.map((r) => [r.baseOffset, r.lastOffset]), [[0n, 2n], [3n, 4n], [5n, 5n]]);
    assert.equal(log.logEndOffset, 6n);
    assert.equal(log.highWatermark, 0n);
    log.setHighWatermark(6n);
    const r = await log.read(0n, { maxBytes: 1 << 20, upperBound: 'hw', minOneBatch: true });
    const recs = records(r.records);
    assert.deepEqual(recs.map((x) => x.value), ['a-0', 'a-1', 'a-2', 'b-0', 'b-1', 'c-0']);
    assert.deepEqual(recs.map((x) => x.offset), [0n, 1n, 2n, 3n, 4n, 5n]);
    assert.deepEqual(recs.map((x) => x.leaderEpoch), [1, 1, 1, 1, 1, 2]);
    const mid = await log.read(4n, { maxBytes: 1 << 20, upperBound: 'hw', minOneBatch: true });
    assert.equal(records(mid.records)[0]!.offset, 3n, 'starts at the batch containing the offset');
    await assert.rejects(log.read(7n, { maxBytes: 100, upperBound: 'hw', minOneBatch: true }), (e: unknown) => e instanceof KafkaError && e.code === ErrorCode.OFFSET_OUT_OF_RANGE);
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
