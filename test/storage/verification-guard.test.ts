// KIP-890 verification guards in a partition's producer state: a transactional batch that would
// open a transaction is appended only with the guard the partition still holds; a marker that
// lands between the verification and the append (the transaction ended meanwhile) drops it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ErrorCode, KafkaError } from '../../src/protocol/errors.js';
import { NO_GUARD } from '../../src/storage/index.js';
import { batch, controlBatch, openManager, TOPIC_ID, tempDir } from './helpers.js';

const code = (c: number) => (e: unknown) => e instanceof KafkaError && e.code === c;
const txn = (seq: number, epoch = 0, pid = 7n) =>
  batch(1, `t${seq}`, { producerId: pid, producerEpoch: epoch, baseSequence: seq, transactional: true });

test('verification guards: required to open a transaction, dropped by a marker, not needed once open', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const mgr = await openManager(dir);
    const log = await mgr.createLog('t', 0, { topicId: TOPIC_ID });
    // No guard at all, or NO_GUARD while nothing is open: refused, nothing written.
    await assert.rejects(
      log.appendAsLeader(txn(0), 0, { verificationGuard: NO_GUARD }),
      code(ErrorCode.INVALID_TXN_STATE),
    );
    assert.equal(log.logEndOffset, 0n);
    // Without the option (verification disabled) the legacy behaviour: accepted.
    const legacy = await log.appendAsLeader(txn(0, 0, 8n), 0);
    assert.equal(legacy.baseOffset, 0n);

    const g = log.startTransactionVerification(7n, 0);
    assert.notEqual(g, NO_GUARD);
    assert.equal(log.startTransactionVerification(7n, 0), g, 'a pending guard is reused');
    // A guard of another verification is not this one.
    await assert.rejects(
      log.appendAsLeader(txn(0), 0, { verificationGuard: { producerId: 7n, epoch: 0 } }),
      code(ErrorCode.INVALID_TXN_STATE),
    );
    await log.appendAsLeader(txn(0), 0, { verificationGuard: g });
    // Open now: nothing to verify, later batches pass with NO_GUARD.
    assert.equal(log.startTransactionVerification(7n, 0), NO_GUARD);
    await log.appendAsLeader(txn(1), 0, { verificationGuard: NO_GUARD });
    await log.appendAsLeader(controlBatch(7n, 0, 'COMMIT'), 0, { origin: 'coordinator' });

    // Verified, then the transaction's marker lands before the append: the guard is gone.
    const g2 = log.startTransactionVerification(7n, 0);
    assert.notEqual(g2, NO_GUARD);
    await log.appendAsLeader(controlBatch(7n, 0, 'ABORT'), 0, { origin: 'coordinator' });
    const end = log.logEndOffset;
    await assert.rejects(
      log.appendAsLeader(txn(2), 0, { verificationGuard: g2 }),
      code(ErrorCode.INVALID_TXN_STATE),
    );
    // A decision taken while the transaction was open (NO_GUARD) fails once a marker closed it.
    await assert.rejects(
      log.appendAsLeader(txn(2), 0, { verificationGuard: NO_GUARD }),
      code(ErrorCode.INVALID_TXN_STATE),
    );
    assert.equal(log.logEndOffset, end);
    // A newer epoch makes an older epoch's guard stale.
    const g3 = log.startTransactionVerification(7n, 0);
    const g4 = log.startTransactionVerification(7n, 1);
    assert.notEqual(g3, g4);
    await assert.rejects(
      log.appendAsLeader(txn(2), 0, { verificationGuard: g3 }),
      code(ErrorCode.INVALID_TXN_STATE),
    );
    await log.appendAsLeader(txn(0, 1), 0, { verificationGuard: g4 });
    await mgr.close();
  } finally {
    cleanup();
  }
});
