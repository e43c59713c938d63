import assert from 'node:assert/strict';
import { test } from 'node:test';
import { encodeRecordBatchSync } from '../../src/protocol/record-batch/encode.js';
import { batch, openManager, TOPIC_ID, tempDir } from './helpers.js';

test('offsetForTimestamp: first record at or after a time, earliest, latest, max timestamp', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const mgr = await openManager(dir, { defaults: { segmentBytes: 800, indexIntervalBytes: 100 } });
    const log = await mgr.createLog('t', 0, { topicId: TOPIC_ID });
    assert.equal(await log.offsetForTimestamp(-3n), null, 'empty log has no max timestamp');
    assert.equal(await log.offsetForTimestamp(1000n), null);
    // Records i = 0..59 at timestamp 1000 + 10 i, three per batch; one record out of order.
    for (let b = 0; b < 20; b++) {
      const recs = [0, 1, 2].map((j) => ({
        key: null,
        value: Buffer.from(`r${b * 3 + j}`),
        timestamp: 1000 + 10 * (b * 3 + j),
      }));
      if (b === 18) recs[1]!.timestamp = 99_999; // max timestamp, offset 55
      await log.appendAsLeader(
        encodeRecordBatchSync(recs, { compression: b % 2 === 0 ? 'none' : 'gzip' }),
        b < 10 ? 1 : 2,
      );
    }
    assert.ok(log.segmentCount > 1);
    assert.deepEqual(await log.offsetForTimestamp(0n), { offset: 0n, timestamp: 1000n, leaderEpoch: 1 });
    assert.deepEqual(await log.offsetForTimestamp(1000n), { offset: 0n, timestamp: 1000n, leaderEpoch: 1 });
    assert.deepEqual(await log.offsetForTimestamp(1001n), { offset: 1n, timestamp: 1010n, leaderEpoch: 1 });
    assert.deepEqual(await log.offsetForTimestamp(1255n), { offset: 26n, timestamp: 1260n, leaderEpoch: 1 });
    assert.deepEqual(await log.offsetForTimestamp(1500n), { offset: 50n, timestamp: 1500n, leaderEpoch: 2 });
    // The first record (in offset order) whose timestamp reaches the target, as in Kafka.
    assert.deepEqual(await log.offsetForTimestamp(1545n), {
      offset: 55n,
      timestamp: 99_999n,
      leaderEpoch: 2,
    });
    assert.deepEqual(await log.offsetForTimestamp(1590n), {
      offset: 55n,
      timestamp: 99_999n,
      leaderEpoch: 2,
    });
    assert.equal(await log.offsetForTimestamp(100_000n), null);
    assert.deepEqual(await log.offsetForTimestamp(-1n), { offset: 60n, timestamp: -1n, leaderEpoch: 2 });
    assert.deepEqual(await log.offsetForTimestamp(-2n), { offset: 0n, timestamp: -1n, leaderEpoch: 1 });
    assert.deepEqual(await log.offsetForTimestamp(-3n), { offset: 55n, timestamp: 99_999n, leaderEpoch: 2 });
    await mgr.close();
    // Same answers from indexes loaded from disk.
    const again = await openManager(dir);
    const log2 = again.getLog('t', 0)!;
    assert.deepEqual(await log2.offsetForTimestamp(1500n), { offset: 50n, timestamp: 1500n, leaderEpoch: 2 });
    assert.deepEqual(await log2.offsetForTimestamp(-3n), { offset: 55n, timestamp: 99_999n, leaderEpoch: 2 });
    assert.deepEqual(await log2.offsetForTimestamp(1001n), { offset: 1n, timestamp: 1010n, leaderEpoch: 1 });
    void batch;
    await again.close();
  } finally {
    cleanup();
  }
});
