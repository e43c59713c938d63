// Siblings of the read_committed leak across segments (issue 14, item 1): transaction state that
// must be derived from the whole log, not from the range at hand — the LSO after a truncation
// replays transactions, `.txnindex` entries of markers that recovery cut off, a corrupt
// `.txnindex` (rebuilt from the log, as Kafka's segment recovery does, instead of emptied), and
// compaction, which may drop a marker only once no batch of its transaction is left anywhere
// before it (Kafka's cleaner), a pass and delete.retention.ms later.
import assert from 'node:assert/strict';
import { cpSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { PartitionLog } from '../../src/storage/index.js';
import type { UnifiedLog } from '../../src/storage/unified-log.js';
import { batch, controlBatch, openManager, records, TOPIC_ID, tempDir } from './helpers.js';

const txn = (pid: bigint, seq: number, n: number, prefix: string) =>
  batch(n, prefix, { producerId: pid, producerEpoch: 0, baseSequence: seq, transactional: true });

const marker = (log: PartitionLog, pid: bigint, type: 'ABORT' | 'COMMIT') =>
  log.appendAsLeader(controlBatch(pid, 0, type), 0, { origin: 'coordinator' });

/** Every record value a read_committed consumer receives from `from` to the LSO (Kafka's filter). */
async function readCommitted(log: PartitionLog, from = 0n, maxBytes = 300): Promise<string[]> {
  const out: string[] = [];
  let offset = from;
  while (offset < log.lastStableOffset) {
    const r = await log.read(offset, { maxBytes, upperBound: 'lso', minOneBatch: true });
    assert.ok(r.records.length > 0, `empty read at ${offset}`);
    const queue = [...(r.abortedTransactions ?? [])].sort((a, b) => (a.firstOffset < b.firstOffset ? -1 : 1));
    const skipping = new Set<bigint>();
    for (let pos = 0; pos + 61 <= r.records.length; ) {
      const size = 12 + r.records.readInt32BE(pos + 8);
      const base = r.records.readBigInt64BE(pos);
      const last = base + BigInt(r.records.readInt32BE(pos + 23));
      const attrs = r.records.readInt16BE(pos + 21);
      const pid = r.records.readBigInt64BE(pos + 43);
      while (queue.length > 0 && queue[0]!.firstOffset <= last) skipping.add(queue.shift()!.producerId);
      if ((attrs & 0x20) !== 0) skipping.delete(pid);
      else if (!((attrs & 0x10) !== 0 && skipping.has(pid))) {
        for (const rec of records(r.records.subarray(pos, pos + size)))
          if (rec.offset >= offset) out.push(rec.value!);
      }
      offset = last + 1n;
      pos += size;
    }
  }
  return out;
}

function partitionDir(root: string): string {
  return join(root, readdirSync(root).find((n) => n.startsWith('t-'))!);
}

test('truncateTo: transactions replayed below the high watermark are stable (LSO = HW)', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const mgr = await openManager(dir, { defaults: { segmentBytes: 100_000 } });
    const log = await mgr.createLog('t', 0, { topicId: TOPIC_ID });
    for (let t = 0; t < 6; t++) {
      await log.appendAsLeader(txn(7n, 2 * t, 2, `t${t}`), 0);
      await marker(log, 7n, t % 2 === 1 ? 'ABORT' : 'COMMIT');
      log.setHighWatermark(log.logEndOffset);
    }
    for (let i = 0; i < 5; i++) await log.appendAsLeader(batch(1, `p${i}`), 0);
    log.setHighWatermark(log.logEndOffset);
    assert.equal(log.lastStableOffset, 23n);
    // A follower truncating its tail (here above its HW: the HW does not move).
    log.setHighWatermark(20n);
    await log.truncateTo(21n);
    assert.equal(log.highWatermark, 20n);
    assert.equal(log.lastStableOffset, 20n, 'every marker is below the HW');
    // And truncating below the HW.
    await log.truncateTo(19n);
    assert.equal(log.highWatermark, 19n);
    assert.equal(log.lastStableOffset, 19n);
    assert.deepEqual(await readCommitted(log), ['t0-0', 't0-1', 't2-0', 't2-1', 't4-0', 't4-1', 'p0-0']);
    await mgr.close();
  } finally {
    cleanup();
  }
});

test('recovery that cuts a segment drops the .txnindex entries of the markers it cut', async () => {
  const { dir: root, cleanup } = tempDir();
  try {
    const dir = join(root, 'live');
    const config = { defaults: { segmentBytes: 700 } };
    const mgr = await openManager(dir, config);
    const log = await mgr.createLog('t', 0, { topicId: TOPIC_ID });
    await log.appendAsLeader(batch(2, 'plain'), 0); // 0-1
    await log.appendAsLeader(txn(7n, 0, 2, 'aborted'), 0); // 2-3
    await marker(log, 7n, 'ABORT'); // 4
    for (let i = 0; log.segmentCount < 2; i++) await log.appendAsLeader(batch(2, `fill${i}`), 0);
    await log.appendAsLeader(batch(2, 'later'), 0);
    log.setHighWatermark(log.logEndOffset);
    await log.flush();
    // A crash image whose producer snapshot (written at the roll) is newer than what survives.
    const image = join(root, 'image');
    cpSync(dir, image, { recursive: true });
    await mgr.close();
    rmSync(join(image, 'recovery-point-offset-checkpoint'), { force: true });
    const pdir = partitionDir(image);
    assert.ok(readdirSync(pdir).some((n) => n.endsWith('.snapshot')));
    const file = join(pdir, '00000000000000000000.log');
    const bytes = readFileSync(file);
    bytes[12 + bytes.readInt32BE(8) + 70]! ^= 0xff; // the transactional batch fails its CRC
    writeFileSync(file, bytes);

    const again = await openManager(image, config);
    const log2 = again.getLog('t', 0)! as UnifiedLog;
    assert.equal(log2.logEndOffset, 2n);
    for (const seg of log2.local.segments) {
      for (const e of seg.txnIndex.entries) assert.ok(e.lastOffset < 2n, `phantom entry ${e.lastOffset}`);
    }
    // The producer goes on at the reused offsets and commits: read_committed must see it.
    await log2.appendAsLeader(txn(7n, 0, 2, 'committed'), 0); // 2-3
    await marker(log2, 7n, 'COMMIT');
    log2.setHighWatermark(log2.logEndOffset);
    assert.deepEqual(await readCommitted(log2), ['plain-0', 'plain-1', 'committed-0', 'committed-1']);
    await again.close();
  } finally {
    cleanup();
  }
});

test('a corrupt .txnindex is rebuilt at load: read_committed still drops what it aborted', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const config = { defaults: { segmentBytes: 600 } };
    const mgr = await openManager(dir, config);
    const log = await mgr.createLog('t', 0, { topicId: TOPIC_ID });
    const expected: string[] = [];
    // Producer 1 aborts a transaction spanning several segments while producer 2 commits one
    // interleaved with it; plain records in between.
    let s1 = 0;
    let s2 = 0;
    for (let i = 0; i < 12; i++) {
      await log.appendAsLeader(txn(1n, s1, 2, `a${i}`), 0);
      s1 += 2;
      await log.appendAsLeader(txn(2n, s2, 1, `c${i}`), 0);
      s2 += 1;
      expected.push(`c${i}-0`);
      await log.appendAsLeader(batch(1, `p${i}`), 0);
      expected.push(`p${i}-0`);
      log.setHighWatermark(log.logEndOffset);
    }
    await marker(log, 1n, 'ABORT');
    await marker(log, 2n, 'COMMIT');
    await log.appendAsLeader(batch(1, 'end'), 0);
    expected.push('end-0');
    log.setHighWatermark(log.logEndOffset);
    assert.ok(log.segmentCount > 3);
    const before = (log as UnifiedLog).local.segments.flatMap((s) =>
      s.txnIndex.entries.map((e) => ({ ...e })),
    );
    assert.equal(before.length, 1);
    assert.deepEqual((await readCommitted(log)).sort(), [...expected].sort());
    await mgr.close();

    const pdir = partitionDir(dir);
    const txnFiles = readdirSync(pdir).filter((n) => n.endsWith('.txnindex'));
    assert.equal(txnFiles.length, 1);
    writeFileSync(
      join(pdir, txnFiles[0]!),
      Buffer.concat([readFileSync(join(pdir, txnFiles[0]!)), Buffer.from('torn')]),
    );

    const again = await openManager(dir, config);
    const log2 = again.getLog('t', 0)! as UnifiedLog;
    const after = log2.local.segments.flatMap((s) => s.txnIndex.entries);
    assert.deepEqual(after, before, 'the rebuilt entry equals the original, LSO included');
    assert.deepEqual((await readCommitted(log2)).sort(), [...expected].sort());
    await again.close();
  } finally {
    cleanup();
  }
});

test('compaction removes a transaction marker only once no batch of it remains, a pass later (delete.retention.ms)', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const config = {
      defaults: { cleanupPolicy: 'compact' as const, segmentBytes: 300, deleteRetentionMs: 0 },
    };
    const mgr = await openManager(dir, config);
    const log = (await mgr.createLog('c', 0, { topicId: TOPIC_ID })) as UnifiedLog;
    const keyed = (pid: bigint, seq: number, key: string, value: string) =>
      batch(1, '', {
        keys: [key],
        values: [value],
        producerId: pid,
        producerEpoch: 0,
        baseSequence: seq,
        transactional: true,
      });
    let fill = 0;
    const filler = async (n: number) => {
      for (let i = 0; i < n; i++)
        await log.appendAsLeader(batch(1, '', { keys: [`f${fill}`], values: [`f${fill++}`] }), 0);
    };
    // D (pid 4): committed, its records stay; its marker is segments after them.
    await log.appendAsLeader(keyed(4n, 0, 'd1', 'D1'), 0);
    await log.appendAsLeader(keyed(4n, 1, 'd2', 'D2'), 0);
    // A (pid 1): aborted, spanning segments.
    await log.appendAsLeader(keyed(1n, 0, 'a1', 'A1'), 0);
    await filler(3);
    await log.appendAsLeader(keyed(1n, 1, 'a2', 'A2'), 0);
    // C (pid 3): committed, its only record superseded later by a plain write of the same key.
    await log.appendAsLeader(keyed(3n, 0, 'x', 'C-x'), 0);
    await marker(log, 3n, 'COMMIT');
    await filler(3);
    await marker(log, 1n, 'ABORT');
    // B (pid 2): committed, its record stays.
    await log.appendAsLeader(keyed(2n, 0, 'b1', 'B1'), 0);
    await marker(log, 2n, 'COMMIT');
    await filler(3);
    await marker(log, 4n, 'COMMIT');
    await log.appendAsLeader(batch(1, '', { keys: ['x'], values: ['plain-x'] }), 0);
    await filler(8);
    log.setHighWatermark(log.logEndOffset);
    assert.ok(log.segmentCount > 5);
    const markers = async () => (await readAllRecords(log)).filter((r) => r.control).map((r) => r.offset);
    const all = await markers();
    assert.equal(all.length, 4);
    const [, aMarker, bMarker, dMarker] = all; // C's, A's, B's, D's
    const entries = () => log.local.segments.flatMap((s) => s.txnIndex.entries.map((e) => e.lastOffset));
    const committedValues = async () =>
      (await readCommitted(log, log.logStartOffset)).filter((v) => !v.startsWith('f'));

    // Pass 1 drops A's records and C's superseded one; their markers stay (batches seen this pass).
    await mgr.runMaintenance({ forceCompaction: true });
    assert.deepEqual(await markers(), all);
    assert.deepEqual(entries(), [aMarker]);
    assert.deepEqual(await committedValues(), ['D1', 'D2', 'B1', 'plain-x']);
    // Pass 2: no batch of A or C is left; the markers become removable, but are kept this pass.
    await mgr.runMaintenance({ forceCompaction: true });
    assert.deepEqual(await markers(), all);
    // Pass 3 (delete.retention.ms = 0 has passed): A's and C's markers go, with A's .txnindex
    // entry; B's and D's stay while their records do (D's are in segments before its marker).
    await mgr.runMaintenance({ forceCompaction: true });
    assert.deepEqual(await markers(), [bMarker, dMarker]);
    assert.deepEqual(entries(), []);
    assert.deepEqual(await committedValues(), ['D1', 'D2', 'B1', 'plain-x']);
    await mgr.close();
    // Replayed from scratch, producer state has no open transaction left behind.
    const again = await openManager(dir, config);
    const log2 = again.getLog('c', 0)!;
    assert.equal(log2.lastStableOffset, log2.highWatermark);
    assert.deepEqual(
      (await readCommitted(log2, log2.logStartOffset)).filter((v) => !v.startsWith('f')),
      ['D1', 'D2', 'B1', 'plain-x'],
    );
    await again.close();
  } finally {
    cleanup();
  }
});

async function readAllRecords(log: PartitionLog) {
  const out: ReturnType<typeof records> = [];
  let offset = log.logStartOffset;
  while (offset < log.logEndOffset) {
    const r = await log.read(offset, { maxBytes: 1 << 20, upperBound: 'leo', minOneBatch: true });
    const recs = records(r.records).filter((x) => x.offset >= offset);
    if (recs.length === 0) break;
    out.push(...recs);
    offset = recs.at(-1)!.offset + 1n;
  }
  return out;
}
