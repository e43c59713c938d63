import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ErrorCode, KafkaError } from '../../src/protocol/errors.js';
import { batch, controlBatch, openManager, records, TOPIC_ID, tempDir } from './helpers.js';

const code = (c: number) => (e: unknown) => e instanceof KafkaError && e.code === c;
const idem = (n: number, seq: number, epoch = 0, pid = 42n, extra = {}) =>
  batch(n, `s${seq}`, { producerId: pid, producerEpoch: epoch, baseSequence: seq, ...extra });

test('idempotent producer: duplicates return the original offsets, gaps and old epochs fail', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const mgr = await openManager(dir);
    const log = await mgr.createLog('t', 0, { topicId: TOPIC_ID });
    const first = await log.appendAsLeader(idem(3, 0), 0);
    const second = await log.appendAsLeader(idem(2, 3), 0);
    const dup = await log.appendAsLeader(idem(3, 0), 0);
    assert.deepEqual(
      [dup.baseOffset, dup.lastOffset, dup.duplicate],
      [first.baseOffset, first.lastOffset, true],
    );
    assert.equal(log.logEndOffset, 5n);
    await assert.rejects(log.appendAsLeader(idem(1, 9), 0), code(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER));
    await assert.rejects(log.appendAsLeader(idem(1, 5, 1), 0), code(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER));
    const bumped = await log.appendAsLeader(idem(1, 0, 1), 0);
    assert.equal(bumped.baseOffset, 5n);
    await assert.rejects(log.appendAsLeader(idem(1, 5, 0), 0), code(ErrorCode.INVALID_PRODUCER_EPOCH));
    const unknown = await log.appendAsLeader(idem(1, 77, 0, 9n), 0);
    assert.equal(unknown.baseOffset, 6n, 'an unknown producer may start at any sequence');
    const state = log.producerStates().find((p) => p.producerId === 42n)!;
    assert.deepEqual([state.producerEpoch, state.lastSequence], [1, 0]);
    void second;
    // Duplicate detection survives a restart (producer snapshot at clean shutdown).
    await mgr.close();
    const again = await openManager(dir);
    const log2 = again.getLog('t', 0)!;
    const dup2 = await log2.appendAsLeader(idem(1, 0, 1), 0);
    assert.equal(dup2.duplicate, true);
    assert.equal(dup2.baseOffset, 5n);
    await assert.rejects(log2.appendAsLeader(idem(1, 3, 1), 0), code(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER));
    await again.close();
  } finally {
    cleanup();
  }
});

test('transactions: LSO, aborted transactions in read_committed reads, .txnindex, markers', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const mgr = await openManager(dir);
    const log = await mgr.createLog('t', 0, { topicId: TOPIC_ID });
    const txn = (pid: bigint, seq: number, n = 2) =>
      batch(n, `p${pid}-${seq}`, {
        producerId: pid,
        producerEpoch: 0,
        baseSequence: seq,
        transactional: true,
      });
    await log.appendAsLeader(batch(2, 'plain'), 0); // 0-1
    await log.appendAsLeader(txn(1n, 0), 0); // 2-3 (txn A open)
    await log.appendAsLeader(txn(2n, 0), 0); // 4-5 (txn B open)
    log.setHighWatermark(log.logEndOffset);
    assert.equal(log.lastStableOffset, 2n);
    const rc = await log.read(0n, { maxBytes: 1 << 20, upperBound: 'lso', minOneBatch: true });
    assert.deepEqual(
      records(rc.records).map((r) => r.offset),
      [0n, 1n],
    );
    await assert.rejects(log.appendAsLeader(idem(1, 2, 0, 1n), 0), code(ErrorCode.INVALID_TXN_STATE));
    const abort = await log.appendAsLeader(controlBatch(1n, 0, 'ABORT', 5), 0, { origin: 'coordinator' }); // 6
    assert.equal(abort.baseOffset, 6n);
    log.setHighWatermark(log.logEndOffset);
    assert.equal(log.lastStableOffset, 4n, 'txn B still open');
    await log.appendAsLeader(controlBatch(2n, 0, 'COMMIT', 5), 0, { origin: 'coordinator' }); // 7
    await assert.rejects(
      log.appendAsLeader(controlBatch(2n, 0, 'COMMIT', 4), 0, { origin: 'coordinator' }),
      code(ErrorCode.TRANSACTION_COORDINATOR_FENCED),
    );
    assert.equal(log.lastStableOffset, 4n, 'commit marker above the HW: txn B is not stable yet');
    log.setHighWatermark(log.logEndOffset);
    assert.equal(log.lastStableOffset, 8n);
    const all = await log.read(0n, { maxBytes: 1 << 20, upperBound: 'lso', minOneBatch: true });
    assert.deepEqual(all.abortedTransactions, [{ producerId: 1n, firstOffset: 2n }]);
    assert.equal(records(all.records).filter((r) => r.control).length, 2);
    const later = await log.read(7n, { maxBytes: 1 << 20, upperBound: 'lso', minOneBatch: true });
    assert.deepEqual(later.abortedTransactions, []);
    const uncommitted = await log.read(0n, { maxBytes: 1 << 20, upperBound: 'hw', minOneBatch: true });
    assert.equal(uncommitted.abortedTransactions, undefined);
    await mgr.close();
    // The .txnindex and producer state survive a restart, clean or not.
    const again = await openManager(dir);
    const log2 = again.getLog('t', 0)!;
    const r2 = await log2.read(0n, { maxBytes: 1 << 20, upperBound: 'lso', minOneBatch: true });
    assert.deepEqual(r2.abortedTransactions, [{ producerId: 1n, firstOffset: 2n }]);
    assert.equal(log2.lastStableOffset, 8n);
    await again.close();
  } finally {
    cleanup();
  }
});

test('coordinator batches skip the sequence and duplicate checks but keep the epoch checks', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const mgr = await openManager(dir);
    const log = await mgr.createLog('t', 0, { topicId: TOPIC_ID });
    const coord = { origin: 'coordinator' } as const;
    const txn = (seq: number, epoch = 0) => idem(2, seq, epoch, 7n, { transactional: true });
    const first = await log.appendAsLeader(txn(0), 0, coord); // 0-1
    const again = await log.appendAsLeader(txn(0), 0, coord); // 2-3: the same sequence 0
    assert.equal(again.duplicate, undefined, 'a coordinator batch is never a duplicate');
    assert.deepEqual([first.baseOffset, again.baseOffset, log.logEndOffset], [0n, 2n, 4n]);
    await log.appendAsLeader(txn(9), 0, coord); // 4-5: a gap is accepted too
    await log.appendAsLeader(controlBatch(7n, 0, 'COMMIT'), 0, coord); // 6
    await log.appendAsLeader(txn(0, 1), 0, coord); // 7-8: a new epoch
    await assert.rejects(log.appendAsLeader(txn(0, 0), 0, coord), code(ErrorCode.INVALID_PRODUCER_EPOCH));
    // The same batch from a client is still a duplicate.
    const dup = await log.appendAsLeader(txn(0, 1), 0);
    assert.deepEqual([dup.duplicate, dup.baseOffset], [true, 7n]);
    await mgr.close();
  } finally {
    cleanup();
  }
});
