// Producer state rebuilt from a `.snapshot` plus the batches after it (truncation, restart), as
// Kafka's ProducerStateManager does: a snapshot keeps each producer's last batch only, the
// batches replayed after it join the duplicate window (at most 5), so a retry of any batch in
// that window is answered with its original offsets, one outside it is out of order, and the
// next batch continues the sequence.

import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { ErrorCode, KafkaError } from '../../src/protocol/errors.js';
import type { AppendResult, PartitionLog } from '../../src/storage/index.js';
import { batch, openManager, TOPIC_ID, tempDir } from './helpers.js';

const idem = (seq: number) => batch(1, `s${seq}`, { producerId: 7n, producerEpoch: 0, baseSequence: seq });
const outOfOrder = (e: unknown) =>
  e instanceof KafkaError && e.code === ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER;

/** Retries sequences `seqs` (each written once before, at `at[seq]`): true = duplicate with its offsets. */
async function retried(log: PartitionLog, seqs: number[], at: AppendResult[]): Promise<boolean[]> {
  const out: boolean[] = [];
  for (const seq of seqs) {
    try {
      const r = await log.appendAsLeader(idem(seq), 0);
      assert.equal(r.duplicate, true, `sequence ${seq} appended again`);
      assert.equal(r.baseOffset, at[seq]!.baseOffset);
      out.push(true);
    } catch (e) {
      assert.ok(outOfOrder(e), String(e));
      out.push(false);
    }
  }
  return out;
}

test('after truncation past a snapshot: the snapshot batch and the replayed ones are the window', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const mgr = await openManager(dir, { defaults: { segmentBytes: 500 } });
    const log = await mgr.createLog('t', 0, { topicId: TOPIC_ID });
    const at: AppendResult[] = [];
    for (let seq = 0; seq < 30; seq++) at.push(await log.appendAsLeader(idem(seq), 0));
    assert.ok(log.segmentCount >= 4, 'several rolls, each with a snapshot');
    // Truncate to 3 batches after the start of the second-to-last segment.
    const base = (log as unknown as { local: { segments: { baseOffset: bigint }[] } }).local.segments.at(
      -2,
    )!.baseOffset;
    const end = base + 3n;
    await log.truncateTo(end);
    const last = Number(end) - 1; // one record per batch, offsets = sequences
    // In the window: the snapshot's batch (base - 1) and the 3 replayed: 4 batches.
    assert.deepEqual(await retried(log, [last - 4, last - 3, last - 2, last - 1, last], at), [
      false,
      true,
      true,
      true,
      true,
    ]);
    const next = await log.appendAsLeader(idem(last + 1), 0);
    assert.equal(next.baseOffset, end);
    // Past the snapshot as well: 5 batches replayed, the window is full again.
    for (let seq = last + 2; seq < last + 6; seq++) await log.appendAsLeader(idem(seq), 0);
    await mgr.close();
  } finally {
    cleanup();
  }
});

test('restart after a crash (no clean snapshot): the window is rebuilt from the last roll snapshot and the tail', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const mgr = await openManager(dir, { defaults: { segmentBytes: 500 } });
    const log = await mgr.createLog('t', 0, { topicId: TOPIC_ID });
    const at: AppendResult[] = [];
    for (let seq = 0; seq < 30; seq++) at.push(await log.appendAsLeader(idem(seq), 0));
    await mgr.close();
    // What a kill -9 after the last write leaves: no clean-shutdown marker, no snapshot at the
    // log end (the roll snapshots stay).
    await rm(join(dir, '.kafka_cleanshutdown'));
    await rm(join(dir, 't-0', `${'30'.padStart(20, '0')}.snapshot`));
    const again = await openManager(dir, { defaults: { segmentBytes: 500 } });
    const log2 = again.getLog('t', 0)!;
    assert.equal(log2.logEndOffset, 30n);
    assert.deepEqual(await retried(log2, [24, 25, 26, 27, 28, 29], at), [
      false,
      true,
      true,
      true,
      true,
      true,
    ]);
    assert.equal((await log2.appendAsLeader(idem(30), 0)).baseOffset, 30n);
    await again.close();
  } finally {
    cleanup();
  }
});
