// Transaction protocol v2 (KIP-890 part 2) in the coordinator's state machine, on the in-memory
// runtime with a mock clock: EndTxn v5 bumps the epoch (markers carry it, the answer hands it
// over), retries of a lost answer, fencing of the old epoch, aborts with nothing open, epoch
// exhaustion (a new producer id), restarts from the log (TransactionLogValue v1 keeps the v2
// fields), the broker adds of Produce v12 (`addImplicitly`, waiting out a completing
// transaction) and the `transaction.version` gate.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TxnMetadata } from '../../../src/broker/coordinator/txn/txn-metadata.js';
import { txnRecordSerde, txnRecordSerdeFor } from '../../../src/broker/coordinator/txn/txn-serde.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { settle, tp, txnHarness } from './txn-harness.js';

type Harness = Awaited<ReturnType<typeof txnHarness>>;

const endV2 = (h: Harness, id: string, producerId: bigint, producerEpoch: number, commit: boolean) =>
  h.tc.endTransaction(id, {
    producerId,
    producerEpoch,
    commit,
    clientTransactionVersion: 2,
    v2Enabled: true,
  });

async function openV2(h: Harness, id: string, ...parts: ReturnType<typeof tp>[]) {
  const p = await h.tc.initProducerId(id, 60_000, null);
  assert.equal(p.errorCode, ErrorCode.NONE);
  assert.equal(await h.tc.addImplicitly(id, p.producerId, p.producerEpoch, parts), ErrorCode.NONE);
  return p;
}

const markers = (h: Harness) =>
  h.markers.written.map(
    (w) => `${w.topic}-${w.partition}:${w.marker.commit}:${w.marker.producerId}:${w.marker.producerEpoch}`,
  );

test('EndTxn v5: markers carry epoch + 1, the answer hands it over, the next transaction runs at it', async () => {
  const h = await txnHarness();
  const p = await openV2(h, 'tx', tp('out', 0, 1));
  assert.equal((await h.state('tx')).state, 'Ongoing');
  const r = await endV2(h, 'tx', p.producerId, p.producerEpoch, true);
  assert.deepEqual(r, {
    errorCode: ErrorCode.NONE,
    producerId: p.producerId,
    producerEpoch: p.producerEpoch + 1,
  });
  assert.deepEqual(markers(h), [`out-0:true:${p.producerId}:1`, `out-1:true:${p.producerId}:1`]);
  const done = await h.state('tx');
  assert.equal(done.state, 'CompleteCommit');
  assert.equal(done.producerEpoch, 1);
  // The old epoch is fenced from every path into a transaction.
  assert.equal(await h.tc.addImplicitly('tx', p.producerId, 0, [tp('out', 2)]), ErrorCode.PRODUCER_FENCED);
  assert.equal(await h.tc.verify('tx', p.producerId, 0, [tp('out', 0)]), ErrorCode.PRODUCER_FENCED);
  // The next transaction at the new epoch, ended as an abort: markers at epoch 2.
  assert.equal(await h.tc.addImplicitly('tx', p.producerId, 1, [tp('out', 2)]), ErrorCode.NONE);
  const a = await endV2(h, 'tx', p.producerId, 1, false);
  assert.deepEqual(a, { errorCode: ErrorCode.NONE, producerId: p.producerId, producerEpoch: 2 });
  assert.equal(markers(h).at(-1), `out-2:false:${p.producerId}:2`);
  assert.equal((await h.state('tx')).state, 'CompleteAbort');
});

test('EndTxn v5 retries: the epoch before the bump is a retry, older or newer epochs are fenced', async () => {
  const h = await txnHarness();
  const p = await openV2(h, 'tx', tp('out', 0));
  const pid = p.producerId;
  await endV2(h, 'tx', pid, 0, true);
  // A lost answer: the same request again gets the same answer and writes nothing.
  const written = h.markers.written.length;
  assert.deepEqual(await endV2(h, 'tx', pid, 0, true), {
    errorCode: ErrorCode.NONE,
    producerId: pid,
    producerEpoch: 1,
  });
  assert.equal(h.markers.written.length, written);
  assert.equal(
    (await endV2(h, 'tx', pid, 0, false)).errorCode,
    ErrorCode.INVALID_TXN_STATE,
    'the retry must match',
  );
  assert.equal((await endV2(h, 'tx', pid, 5, true)).errorCode, ErrorCode.PRODUCER_FENCED, 'a future epoch');
  assert.equal((await endV2(h, 'tx', pid + 7n, 1, true)).errorCode, ErrorCode.INVALID_PRODUCER_ID_MAPPING);
  assert.equal((await endV2(h, 'nope', pid, 1, true)).errorCode, ErrorCode.INVALID_PRODUCER_ID_MAPPING);
  // Nothing open at the current epoch: a commit is refused, an abort fences what the producer
  // may still have in flight (epoch + 1, no marker to write).
  assert.equal((await endV2(h, 'tx', pid, 1, true)).errorCode, ErrorCode.INVALID_TXN_STATE);
  assert.deepEqual(await endV2(h, 'tx', pid, 1, false), {
    errorCode: ErrorCode.NONE,
    producerId: pid,
    producerEpoch: 2,
  });
  assert.equal(h.markers.written.length, written);
  const s = await h.state('tx');
  assert.equal(s.state, 'CompleteAbort');
  assert.equal(s.producerEpoch, 2);
});

test('EndTxn v5 while the markers are written: CONCURRENT_TRANSACTIONS for the retry, PRODUCER_FENCED for the old epoch elsewhere', async () => {
  const h = await txnHarness();
  const p = await openV2(h, 'tx', tp('out', 0));
  h.markers.hold();
  const end = endV2(h, 'tx', p.producerId, 0, true);
  await settle();
  const prep = await h.state('tx');
  assert.equal(prep.state, 'PrepareCommit');
  assert.equal(prep.producerEpoch, 1);
  assert.equal((await endV2(h, 'tx', p.producerId, 0, true)).errorCode, ErrorCode.CONCURRENT_TRANSACTIONS);
  assert.equal((await endV2(h, 'tx', p.producerId, 0, false)).errorCode, ErrorCode.INVALID_TXN_STATE);
  assert.equal((await endV2(h, 'tx', p.producerId, 1, true)).errorCode, ErrorCode.PRODUCER_FENCED);
  // A Produce v12 of the next transaction waits out the completion (Kafka's 20 ms × 100 ms).
  const next = h.tc.addImplicitly('tx', p.producerId, 1, [tp('out', 3)]);
  await settle();
  h.clock.advance(20);
  await settle();
  h.markers.release();
  await settle();
  h.clock.advance(20);
  assert.equal(await next, ErrorCode.NONE);
  assert.equal((await end).producerEpoch, 1);
  assert.deepEqual((await h.state('tx')).partitions, [tp('out', 3)]);
});

test('a v2 add still meeting a completing transaction after 100 ms answers CONCURRENT_TRANSACTIONS', async () => {
  const h = await txnHarness();
  const p = await openV2(h, 'tx', tp('out', 0));
  h.markers.hold();
  void endV2(h, 'tx', p.producerId, 0, false);
  await settle();
  const add = h.tc.addImplicitly('tx', p.producerId, 1, [tp('out', 1)]);
  for (let i = 0; i < 6; i++) {
    await settle();
    h.clock.advance(20);
  }
  assert.equal(await add, ErrorCode.CONCURRENT_TRANSACTIONS);
  h.markers.release();
});

test('an exhausted epoch: markers at 32767 under the old id, the producer continues with a new id at epoch 0', async () => {
  const h = await txnHarness();
  const p = await openV2(h, 'tx', tp('out', 0));
  const part = h.tc.partitionFor('tx');
  await h.tc.runtime.write(part, (s) => {
    const m = s.txns.get('tx')!;
    return {
      records: [{ transactionalId: 'tx', value: { ...m, producerEpoch: 32766 } }],
      response: undefined,
    };
  });
  const r = await endV2(h, 'tx', p.producerId, 32766, true);
  assert.equal(r.errorCode, ErrorCode.NONE);
  assert.notEqual(r.producerId, p.producerId);
  assert.equal(r.producerEpoch, 0);
  assert.deepEqual(markers(h), [`out-0:true:${p.producerId}:32767`]);
  const s = await h.state('tx');
  assert.deepEqual([s.state, s.producerId, s.producerEpoch], ['CompleteCommit', r.producerId, 0]);
  // The retry names the old id at the exhausted epoch.
  assert.deepEqual(await endV2(h, 'tx', p.producerId, 32766, true), r);
  assert.equal(
    (await endV2(h, 'tx', p.producerId, 32765, true)).errorCode,
    ErrorCode.INVALID_PRODUCER_ID_MAPPING,
  );
  // The old id is done with.
  assert.equal(
    await h.tc.addImplicitly('tx', p.producerId, 32767, [tp('out', 1)]),
    ErrorCode.INVALID_PRODUCER_ID_MAPPING,
  );
  assert.equal(await h.tc.addImplicitly('tx', r.producerId, 0, [tp('out', 1)]), ErrorCode.NONE);
});

test('restart between the decision and the markers: the v2 fields come back from the log', async () => {
  const h = await txnHarness();
  const p = await openV2(h, 'rot', tp('out', 0));
  const q = await openV2(h, 'plain', tp('out', 1));
  const part = h.tc.partitionFor('rot');
  await h.tc.runtime.write(part, (s) => {
    const m = s.txns.get('rot')!;
    return {
      records: [{ transactionalId: 'rot', value: { ...m, producerEpoch: 32766 } }],
      response: undefined,
    };
  });
  h.markers.hold();
  void endV2(h, 'rot', p.producerId, 32766, true);
  void endV2(h, 'plain', q.producerId, 0, false);
  await settle();
  assert.equal((await h.state('rot')).state, 'PrepareCommit');
  assert.equal((await h.state('plain')).state, 'PrepareAbort');
  h.tc.close();
  h.markers.release();
  await settle();
  h.markers.written.length = 0;
  await h.restart();
  // The markers are written again with the bumped epochs, then the transactions complete.
  assert.deepEqual(markers(h).sort(), [`out-0:true:${p.producerId}:32767`, `out-1:false:${q.producerId}:1`]);
  const rot = await h.state('rot');
  assert.deepEqual([rot.state, rot.producerEpoch], ['CompleteCommit', 0]);
  assert.notEqual(rot.producerId, p.producerId, 'nextProducerId survived the restart');
  const plain = await h.state('plain');
  assert.deepEqual([plain.state, plain.producerId, plain.producerEpoch], ['CompleteAbort', q.producerId, 1]);
  // A retry of the lost answers is still recognised after the restart.
  assert.deepEqual(await endV2(h, 'rot', p.producerId, 32766, true), {
    errorCode: ErrorCode.NONE,
    producerId: rot.producerId,
    producerEpoch: 0,
  });
  assert.deepEqual(await endV2(h, 'plain', q.producerId, 0, false), {
    errorCode: ErrorCode.NONE,
    producerId: q.producerId,
    producerEpoch: 1,
  });
});

test('protocol v1 is unchanged next to v2: EndTxn v4 keeps the epoch, an InitProducerId resets the protocol', async () => {
  const h = await txnHarness();
  const p = await openV2(h, 'tx', tp('out', 0));
  // A v1 client (EndTxn ≤ v4) of a transaction the brokers added: ended at its epoch.
  assert.equal(await h.tc.endTxn('tx', p.producerId, 0, true), ErrorCode.NONE);
  assert.deepEqual(markers(h), [`out-0:true:${p.producerId}:0`]);
  assert.equal((await h.state('tx')).producerEpoch, 0);
  const again = await h.tc.initProducerId('tx', 60_000, null);
  assert.equal(again.producerEpoch, 1);
  assert.equal(await h.tc.addPartitions('tx', again.producerId, 1, [tp('out', 1)]), ErrorCode.NONE);
  const m = h.tc.runtime.read(h.tc.partitionFor('tx'), (s) => s.txns.get('tx'));
  assert.equal((await m)?.clientTransactionVersion, undefined, 'a client add (v0-3) is protocol v1');
});

test('transaction.version below 2: EndTxn v5 is UNSUPPORTED_VERSION unless its transaction began under v2', async () => {
  const h = await txnHarness({ transactionVersion: 1 });
  const p = await h.tc.initProducerId('v1', 60_000, null);
  await h.tc.addPartitions('v1', p.producerId, p.producerEpoch, [tp('out', 0)]);
  const refused = await h.tc.endTransaction('v1', {
    producerId: p.producerId,
    producerEpoch: 0,
    commit: true,
    clientTransactionVersion: 2,
    v2Enabled: false,
  });
  assert.equal(refused.errorCode, ErrorCode.UNSUPPORTED_VERSION);
  assert.equal((await h.state('v1')).state, 'Ongoing', 'nothing was decided');
  assert.equal(await h.tc.endTxn('v1', p.producerId, 0, true), ErrorCode.NONE);
  // A transaction the brokers added under v2 before the level went down may still end as v2.
  const q = await openV2(h, 'began-v2', tp('out', 1));
  const ended = await h.tc.endTransaction('began-v2', {
    producerId: q.producerId,
    producerEpoch: 0,
    commit: true,
    clientTransactionVersion: 2,
    v2Enabled: false,
  });
  assert.deepEqual(ended, { errorCode: ErrorCode.NONE, producerId: q.producerId, producerEpoch: 1 });
});

test('__transaction_state values: v1 keeps the v2 fields (levels 1-2), v0 at level 0, both read back', () => {
  const prepared: TxnMetadata = {
    producerId: 77n,
    previousProducerId: 76n,
    producerEpoch: 32767,
    lastProducerEpoch: -1,
    timeoutMs: 60_000,
    state: 'PrepareCommit',
    partitions: [{ topic: 'out', partitions: [0] }],
    startTimestamp: 1_700_000_000_000,
    lastUpdateTimestamp: 1_700_000_000_100,
    clientTransactionVersion: 2,
    nextProducerId: 78n,
  };
  const v1 = txnRecordSerdeFor(2).serialize({ transactionalId: 't', value: prepared });
  assert.equal(v1.value!.readInt16BE(0), 1, 'TransactionLogValue v1');
  assert.deepEqual(txnRecordSerdeFor(1).deserialize(v1), { transactionalId: 't', value: prepared });
  assert.deepEqual(
    txnRecordSerde.deserialize(v1),
    { transactionalId: 't', value: prepared },
    'read at any level',
  );
  const v0 = txnRecordSerdeFor(0).serialize({ transactionalId: 't', value: prepared });
  assert.equal(v0.value!.readInt16BE(0), 0);
  const { clientTransactionVersion: _c, nextProducerId: _n, ...withoutV2 } = prepared;
  assert.deepEqual(txnRecordSerdeFor(2).deserialize(v0), {
    transactionalId: 't',
    value: { ...withoutV2, previousProducerId: -1n },
  });
});
