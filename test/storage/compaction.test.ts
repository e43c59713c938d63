import assert from 'node:assert/strict';
import { copyFileSync, existsSync, readdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { PartitionLog } from '../../src/storage/index.js';
import type { UnifiedLog } from '../../src/storage/unified-log.js';
import { batch, controlBatch, openManager, type ReadRecord, records, TOPIC_ID, tempDir } from './helpers.js';

async function readAll(log: PartitionLog): Promise<ReadRecord[]> {
  const out: ReadRecord[] = [];
  let offset = log.logStartOffset;
  while (offset < log.logEndOffset) {
    const r = await log.read(offset, { maxBytes: 1 << 20, upperBound: 'leo', minOneBatch: true });
    const recs = records(r.records);
    if (recs.length === 0) break;
    out.push(...recs.filter((x) => x.offset >= offset));
    offset = recs.at(-1)!.offset + 1n;
  }
  return out;
}

test('compaction keeps the latest value per key, then drops tombstones; offsets never change', async () => {
  const { dir, cleanup } = tempDir();
  try {
    let now = 1_000_000;
    const mgr = await openManager(dir, {
      now: () => now,
      defaults: {
        cleanupPolicy: 'compact',
        segmentBytes: 700,
        deleteRetentionMs: 1000,
        fileDeleteDelayMs: 0,
      },
    });
    const log = await mgr.createLog('c', 0, { topicId: TOPIC_ID });
    // 10 keys written 6 times each; key k3 deleted at the end.
    for (let round = 0; round < 6; round++) {
      for (let k = 0; k < 10; k += 2) {
        await log.appendAsLeader(
          batch(2, '', { keys: [`k${k}`, `k${k + 1}`], values: [`r${round}`, `r${round}`], timestamp: now }),
          0,
        );
      }
    }
    await log.appendAsLeader(batch(1, '', { keys: ['k3'], values: [null], timestamp: now }), 0);
    const tombstoneOffset = log.logEndOffset - 1n;
    await log.appendAsLeader(batch(1, '', { keys: ['k0'], values: ['last'], timestamp: now }), 0);
    log.setHighWatermark(log.logEndOffset);
    const before = await readAll(log);
    const sizeBefore = log.size;
    await mgr.runMaintenance({ forceCompaction: true });
    const after = await readAll(log);
    assert.ok(log.size < sizeBefore, `smaller: ${log.size} < ${sizeBefore}`);
    // Every surviving record is identical to the original at the same offset.
    const byOffset = new Map(before.map((r) => [r.offset, r]));
    for (const r of after) assert.deepEqual(r, byOffset.get(r.offset));
    // In the cleaned part (below the active segment, which is never cleaned) a record survives
    // only if no later record below that point has its key.
    const activeBase = (log as UnifiedLog).local.active.baseOffset;
    const cleaned = after.filter((r) => r.offset < activeBase);
    assert.ok(cleaned.length > 0 && cleaned.length < before.filter((r) => r.offset < activeBase).length);
    for (const r of cleaned) {
      const newer = before.find((b) => b.key === r.key && b.offset > r.offset && b.offset < activeBase);
      assert.equal(newer, undefined, `offset ${r.offset} (${r.key}) should have been compacted away`);
    }
    for (const k of new Set(before.filter((r) => r.offset < activeBase).map((r) => r.key))) {
      assert.ok(
        after.some((r) => r.key === k),
        `latest value of ${k} kept`,
      );
    }
    assert.ok(
      after.some((r) => r.offset === tombstoneOffset),
      'tombstone kept on its first pass',
    );
    assert.equal(after.at(-1)!.value, 'last');
    // After delete.retention.ms a second pass removes the tombstone (once it is in a cleanable segment).
    const fillerKeys = Array.from({ length: 30 }, (_, i) => `f${i}`);
    await log.appendAsLeader(batch(30, 'filler', { keys: fillerKeys, timestamp: now }), 0);
    await log.appendAsLeader(batch(30, 'filler2', { keys: fillerKeys, timestamp: now }), 0);
    log.setHighWatermark(log.logEndOffset);
    await mgr.runMaintenance({ forceCompaction: true });
    now += 5000;
    await mgr.runMaintenance({ forceCompaction: true });
    const third = await readAll(log);
    assert.ok(
      (log as UnifiedLog).local.segments.filter((x) => x.size === 0).length <= 1,
      'emptied segments are merged',
    );
    assert.ok(!third.some((r) => r.key === 'k3'), 'tombstone and older k3 values gone');
    for (const r of third) assert.deepEqual(r, before.find((b) => b.offset === r.offset) ?? r);
    assert.equal(
      readdirSync(join(dir, 'c-0')).filter((f) => f.includes('.cleaned') || f.includes('.swap')).length,
      0,
    );
    const end = log.logEndOffset;
    await mgr.close();
    const again = await openManager(dir, { now: () => now });
    const log2 = again.getLog('c', 0)!;
    assert.equal(log2.logEndOffset, end);
    assert.deepEqual(await readAll(log2), third);
    await again.close();
  } finally {
    cleanup();
  }
});

test('compaction drops aborted transactional data, keeps markers and committed data', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const mgr = await openManager(dir, { defaults: { cleanupPolicy: 'compact', segmentBytes: 400 } });
    const log = await mgr.createLog('c', 0, { topicId: TOPIC_ID });
    const txn = (pid: bigint, key: string, value: string, seq: number) =>
      batch(1, '', {
        keys: [key],
        values: [value],
        producerId: pid,
        producerEpoch: 0,
        baseSequence: seq,
        transactional: true,
      });
    await log.appendAsLeader(txn(1n, 'a', 'aborted-a', 0), 0); // 0
    await log.appendAsLeader(txn(2n, 'b', 'committed-b', 0), 0); // 1
    await log.appendAsLeader(controlBatch(1n, 0, 'ABORT'), 0, { origin: 'coordinator' }); // 2
    await log.appendAsLeader(controlBatch(2n, 0, 'COMMIT'), 0, { origin: 'coordinator' }); // 3
    for (let i = 0; i < 10; i++)
      await log.appendAsLeader(batch(1, '', { keys: [`x${i}`], values: ['v'] }), 0);
    log.setHighWatermark(log.logEndOffset);
    await mgr.runMaintenance({ forceCompaction: true });
    const all = await readAll(log);
    assert.ok(!all.some((r) => r.value === 'aborted-a'));
    assert.ok(all.some((r) => r.value === 'committed-b'));
    assert.deepEqual(
      all.filter((r) => r.control).map((r) => r.offset),
      [2n, 3n],
    );
    const rc = await log.read(0n, { maxBytes: 1 << 20, upperBound: 'lso', minOneBatch: true });
    assert.deepEqual(rc.abortedTransactions, [{ producerId: 1n, firstOffset: 0n }]);
    await mgr.close();
  } finally {
    cleanup();
  }
});

test('recovery completes a compaction swap interrupted after its commit point', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const mgr = await openManager(dir, { defaults: { cleanupPolicy: 'compact', segmentBytes: 300 } });
    const log = await mgr.createLog('c', 0, { topicId: TOPIC_ID });
    for (let i = 0; i < 20; i++)
      await log.appendAsLeader(batch(1, '', { keys: [`k${i % 3}`], values: [`v${i}`] }), 0);
    log.setHighWatermark(log.logEndOffset);
    await mgr.close();
    // Simulate: cleaned output of the first segment committed as .swap, originals not yet renamed.
    const pdir = join(dir, 'c-0');
    const first = '00000000000000000000.log';
    copyFileSync(join(pdir, first), join(pdir, `${first}.swap`));
    if (existsSync(join(pdir, '00000000000000000000.index'))) {
      renameSync(join(pdir, '00000000000000000000.index'), join(pdir, '00000000000000000000.index.deleted'));
    }
    const again = await openManager(dir);
    const log2 = again.getLog('c', 0)!;
    const all = await readAll(log2);
    assert.deepEqual(
      all.map((r) => r.offset),
      Array.from({ length: 20 }, (_, i) => BigInt(i)),
    );
    assert.deepEqual(
      readdirSync(pdir).filter((f) => f.endsWith('.swap') || f.endsWith('.deleted')),
      [],
    );
    await again.close();
  } finally {
    cleanup();
  }
});
