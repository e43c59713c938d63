// The transaction state machine on the coordinator runtime: producer ids and epochs, fencing,
// commit/abort through markers, timeouts, retries of lost answers, restart from the log.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { settle, tp, txnHarness } from './txn-harness.js';

test('a new transactional id gets a fresh producer id at epoch 0; each InitProducerId bumps the epoch', async () => {
  const h = await txnHarness();
  const a = await h.tc.initProducerId('tx-a', 60_000, null);
  assert.deepEqual(a, { errorCode: ErrorCode.NONE, producerId: 1000n, producerEpoch: 0 });
  const b = await h.tc.initProducerId('tx-a', 60_000, null);
  assert.deepEqual(b, { errorCode: ErrorCode.NONE, producerId: 1000n, producerEpoch: 1 });
  const c = await h.tc.initProducerId('tx-b', 60_000, null);
  assert.equal(c.producerId, 1001n);
  const s = await h.state('tx-a');
  assert.equal(s.state, 'Empty');
  assert.equal(s.producerEpoch, 1);
});

test('InitProducerId validates the id and the timeout against transaction.max.timeout.ms', async () => {
  const h = await txnHarness({ maxTimeoutMs: 10_000 });
  assert.equal((await h.tc.initProducerId('', 1000, null)).errorCode, ErrorCode.INVALID_REQUEST);
  assert.equal(
    (await h.tc.initProducerId('x', 10_001, null)).errorCode,
    ErrorCode.INVALID_TRANSACTION_TIMEOUT,
  );
  assert.equal((await h.tc.initProducerId('x', 0, null)).errorCode, ErrorCode.INVALID_TRANSACTION_TIMEOUT);
  assert.equal((await h.tc.initProducerId('x', 10_000, null)).errorCode, ErrorCode.NONE);
});

test('commit: Ongoing → PrepareCommit → markers on every partition → CompleteCommit; a retried EndTxn succeeds', async () => {
  const h = await txnHarness();
  const { producerId, producerEpoch } = await h.tc.initProducerId('tx', 60_000, null);
  assert.equal(await h.tc.addPartitions('tx', producerId, producerEpoch, [tp('out', 1, 0)]), ErrorCode.NONE);
  assert.equal(
    await h.tc.addPartitions('tx', producerId, producerEpoch, [tp('__consumer_offsets', 7), tp('out', 0)]),
    ErrorCode.NONE,
  );
  const ongoing = await h.state('tx');
  assert.equal(ongoing.state, 'Ongoing');
  assert.deepEqual(ongoing.partitions, [tp('__consumer_offsets', 7), tp('out', 0, 1)]);
  assert.equal(ongoing.startTimestamp, h.clock.now());
  assert.equal(await h.tc.endTxn('tx', producerId, producerEpoch, true), ErrorCode.NONE);
  assert.deepEqual(
    h.markers.written.map(
      (w) =>
        `${w.topic}-${w.partition}:${w.marker.commit}:${w.marker.producerEpoch}:${w.marker.coordinatorEpoch}`,
    ),
    ['__consumer_offsets-7:true:0:7', 'out-0:true:0:7', 'out-1:true:0:7'],
  );
  const done = await h.state('tx');
  assert.equal(done.state, 'CompleteCommit');
  assert.deepEqual(done.partitions, []);
  assert.equal(
    await h.tc.endTxn('tx', producerId, producerEpoch, true),
    ErrorCode.NONE,
    'retry of a lost answer',
  );
  assert.equal(await h.tc.endTxn('tx', producerId, producerEpoch, false), ErrorCode.INVALID_TXN_STATE);
  // The next transaction starts from CompleteCommit.
  assert.equal(await h.tc.addPartitions('tx', producerId, producerEpoch, [tp('out', 2)]), ErrorCode.NONE);
  assert.deepEqual((await h.state('tx')).partitions, [tp('out', 2)]);
});

test('EndTxn checks the producer: unknown id, wrong id, wrong epoch, nothing to end', async () => {
  const h = await txnHarness();
  const { producerId, producerEpoch } = await h.tc.initProducerId('tx', 60_000, null);
  assert.equal(await h.tc.endTxn('nope', producerId, 0, true), ErrorCode.INVALID_PRODUCER_ID_MAPPING);
  assert.equal(
    await h.tc.endTxn('tx', producerId + 1n, producerEpoch, true),
    ErrorCode.INVALID_PRODUCER_ID_MAPPING,
  );
  assert.equal(await h.tc.endTxn('tx', producerId, producerEpoch + 1, true), ErrorCode.PRODUCER_FENCED);
  assert.equal(
    await h.tc.endTxn('tx', producerId, producerEpoch, true),
    ErrorCode.INVALID_TXN_STATE,
    'Empty',
  );
  assert.equal(
    await h.tc.addPartitions('tx', producerId, producerEpoch + 1, [tp('t', 0)]),
    ErrorCode.PRODUCER_FENCED,
  );
  assert.equal(
    await h.tc.addPartitions('nope', producerId, producerEpoch, [tp('t', 0)]),
    ErrorCode.INVALID_PRODUCER_ID_MAPPING,
  );
});

test('while markers are being written the transaction answers CONCURRENT_TRANSACTIONS', async () => {
  const h = await txnHarness();
  const { producerId, producerEpoch } = await h.tc.initProducerId('tx', 60_000, null);
  await h.tc.addPartitions('tx', producerId, producerEpoch, [tp('out', 0)]);
  h.markers.hold();
  let ended = false;
  const end = h.tc.endTxn('tx', producerId, producerEpoch, false).then((c) => {
    ended = true;
    return c;
  });
  await settle();
  assert.equal(ended, false, 'EndTxn waits for its markers');
  assert.equal((await h.state('tx')).state, 'PrepareAbort');
  assert.equal(
    await h.tc.addPartitions('tx', producerId, producerEpoch, [tp('out', 1)]),
    ErrorCode.CONCURRENT_TRANSACTIONS,
  );
  assert.equal(await h.tc.endTxn('tx', producerId, producerEpoch, false), ErrorCode.CONCURRENT_TRANSACTIONS);
  assert.equal(await h.tc.endTxn('tx', producerId, producerEpoch, true), ErrorCode.INVALID_TXN_STATE);
  h.markers.release();
  assert.equal(await end, ErrorCode.NONE);
  assert.equal((await h.state('tx')).state, 'CompleteAbort');
});

test('a second producer fences the first: its open transaction is aborted with a bumped epoch', async () => {
  const h = await txnHarness();
  const first = await h.tc.initProducerId('tx', 60_000, null);
  await h.tc.addPartitions('tx', first.producerId, first.producerEpoch, [tp('out', 0), tp('out', 3)]);
  const second = await h.tc.initProducerId('tx', 60_000, null);
  // Abort markers carry epoch + 1, the new producer gets epoch + 2 (Kafka's two bumps).
  assert.deepEqual(
    h.markers.written.map((w) => [w.partition, w.marker.commit, w.marker.producerEpoch]),
    [
      [0, false, 1],
      [3, false, 1],
    ],
  );
  assert.deepEqual(second, { errorCode: ErrorCode.NONE, producerId: first.producerId, producerEpoch: 2 });
  assert.equal(
    await h.tc.addPartitions('tx', first.producerId, first.producerEpoch, [tp('out', 1)]),
    ErrorCode.PRODUCER_FENCED,
  );
  assert.equal(
    await h.tc.endTxn('tx', first.producerId, first.producerEpoch, true),
    ErrorCode.PRODUCER_FENCED,
  );
  assert.equal(
    await h.tc.addPartitions('tx', second.producerId, second.producerEpoch, [tp('out', 1)]),
    ErrorCode.NONE,
  );
});

test('a fencing InitProducerId answers CONCURRENT_TRANSACTIONS when the abort cannot complete in time', async () => {
  const h = await txnHarness();
  const first = await h.tc.initProducerId('tx', 60_000, null);
  await h.tc.addPartitions('tx', first.producerId, first.producerEpoch, [tp('out', 0)]);
  h.markers.hold();
  const pending = h.tc.initProducerId('tx', 60_000, null);
  await settle();
  h.clock.advance(5000);
  assert.equal((await pending).errorCode, ErrorCode.CONCURRENT_TRANSACTIONS);
  h.markers.release();
  await settle();
  const retry = await h.tc.initProducerId('tx', 60_000, null);
  assert.deepEqual(retry, { errorCode: ErrorCode.NONE, producerId: first.producerId, producerEpoch: 2 });
});

test('transaction.timeout.ms: a stalled transaction is aborted and its producer fenced', async () => {
  const h = await txnHarness({ abortTimedOutIntervalMs: 1000 });
  const p = await h.tc.initProducerId('slow', 5000, null);
  await h.tc.addPartitions('slow', p.producerId, p.producerEpoch, [tp('out', 0)]);
  h.clock.advance(5000);
  await settle();
  assert.equal((await h.state('slow')).state, 'Ongoing', 'not yet past the timeout');
  h.clock.advance(1000);
  await settle();
  const s = await h.state('slow');
  assert.equal(s.state, 'CompleteAbort');
  assert.equal(s.producerEpoch, 1);
  assert.deepEqual(
    h.markers.written.map((w) => [w.partition, w.marker.commit, w.marker.producerEpoch]),
    [[0, false, 1]],
  );
  assert.equal(await h.tc.endTxn('slow', p.producerId, p.producerEpoch, true), ErrorCode.PRODUCER_FENCED);
});

test('markers that fail are retried after a backoff until every partition has one', async () => {
  const h = await txnHarness();
  const p = await h.tc.initProducerId('tx', 60_000, null);
  await h.tc.addPartitions('tx', p.producerId, p.producerEpoch, [tp('a', 0), tp('b', 0)]);
  h.markers.failures.set('b-0', 2);
  const end = h.tc.endTxn('tx', p.producerId, p.producerEpoch, true);
  await settle();
  assert.deepEqual(
    h.markers.written.map((w) => w.topic),
    ['a'],
  );
  assert.equal((await h.state('tx')).state, 'PrepareCommit');
  h.clock.advance(100);
  await settle();
  h.clock.advance(100);
  await settle();
  assert.equal(await end, ErrorCode.NONE);
  assert.deepEqual(
    h.markers.written.map((w) => w.topic),
    ['a', 'b'],
  );
  assert.equal((await h.state('tx')).state, 'CompleteCommit');
});

test('restart: a PrepareCommit found in the log is completed, an Ongoing one still times out', async () => {
  const h = await txnHarness({ abortTimedOutIntervalMs: 1000 });
  const a = await h.tc.initProducerId('deciding', 60_000, null);
  await h.tc.addPartitions('deciding', a.producerId, a.producerEpoch, [tp('out', 0)]);
  const b = await h.tc.initProducerId('open', 3000, null);
  await h.tc.addPartitions('open', b.producerId, b.producerEpoch, [tp('out', 1)]);
  h.markers.hold();
  void h.tc.endTxn('deciding', a.producerId, a.producerEpoch, true);
  await settle();
  assert.equal((await h.state('deciding')).state, 'PrepareCommit');
  // The broker dies with the marker write in flight: whether it landed is unknown, so the
  // next coordinator writes it again (a repeated marker is harmless) and completes.
  h.tc.close();
  h.markers.release();
  await settle();
  h.markers.written.length = 0;
  await h.restart();
  assert.deepEqual(
    h.markers.written.map((w) => [w.topic, w.partition, w.marker.commit]),
    [['out', 0, true]],
  );
  assert.equal((await h.state('deciding')).state, 'CompleteCommit');
  const open = await h.state('open');
  assert.equal(open.state, 'Ongoing');
  assert.deepEqual(open.partitions, [tp('out', 1)]);
  h.clock.advance(4000);
  await settle();
  assert.equal((await h.state('open')).state, 'CompleteAbort');
  // A new producer with the same id continues from the persisted epoch.
  const again = await h.tc.initProducerId('deciding', 60_000, null);
  assert.deepEqual(again, { errorCode: ErrorCode.NONE, producerId: a.producerId, producerEpoch: 1 });
});

test('KIP-360: a producer naming its current epoch gets a bump; a retry of that bump gets the same epoch', async () => {
  const h = await txnHarness();
  const first = await h.tc.initProducerId('tx', 60_000, null);
  const bumped = await h.tc.initProducerId('tx', 60_000, first);
  assert.deepEqual(bumped, { errorCode: ErrorCode.NONE, producerId: first.producerId, producerEpoch: 1 });
  const retried = await h.tc.initProducerId('tx', 60_000, first);
  assert.deepEqual(retried, bumped, 'lost answer: same epoch again');
  const stale = await h.tc.initProducerId('tx', 60_000, { producerId: first.producerId, producerEpoch: 5 });
  assert.equal(stale.errorCode, ErrorCode.PRODUCER_FENCED);
  const other = await h.tc.initProducerId('tx', 60_000, { producerId: 42n, producerEpoch: 0 });
  assert.equal(other.errorCode, ErrorCode.PRODUCER_FENCED);
});

test('an exhausted epoch rotates to a new producer id', async () => {
  const h = await txnHarness();
  const first = await h.tc.initProducerId('tx', 60_000, null);
  // Drive the epoch to the end of its range through the log's own record form.
  const p = h.tc.partitionFor('tx');
  await h.tc.runtime.write(p, (s) => {
    const m = s.txns.get('tx')!;
    return {
      records: [{ transactionalId: 'tx', value: { ...m, producerEpoch: 32766 } }],
      response: undefined,
    };
  });
  const rotated = await h.tc.initProducerId('tx', 60_000, null);
  assert.equal(rotated.errorCode, ErrorCode.NONE);
  assert.notEqual(rotated.producerId, first.producerId);
  assert.equal(rotated.producerEpoch, 0);
});

test('idle transactional ids expire (tombstone), open ones never do', async () => {
  const h = await txnHarness({ idExpirationMs: 10_000, removeExpiredIntervalMs: 5000 });
  await h.tc.initProducerId('idle', 60_000, null);
  const busy = await h.tc.initProducerId('busy', 60_000, null);
  await h.tc.addPartitions('busy', busy.producerId, busy.producerEpoch, [tp('t', 0)]);
  h.clock.advance(15_000);
  await settle();
  assert.equal((await h.state('idle')).errorCode, ErrorCode.TRANSACTIONAL_ID_NOT_FOUND);
  assert.equal((await h.state('busy')).state, 'Ongoing');
  await h.restart();
  assert.equal(
    (await h.state('idle')).errorCode,
    ErrorCode.TRANSACTIONAL_ID_NOT_FOUND,
    'the tombstone replays',
  );
});

test('ListTransactions filters by state, producer id and duration', async () => {
  const h = await txnHarness();
  const a = await h.tc.initProducerId('a', 60_000, null);
  const b = await h.tc.initProducerId('b', 60_000, null);
  await h.tc.addPartitions('b', b.producerId, b.producerEpoch, [tp('t', 0)]);
  const all = await h.tc.list({ states: new Set(), producerIds: new Set(), minDurationMs: -1 });
  assert.deepEqual(all.transactions.map((t) => `${t.transactionalId}:${t.state}`).sort(), [
    'a:Empty',
    'b:Ongoing',
  ]);
  const ongoing = await h.tc.list({
    states: new Set(['Ongoing']),
    producerIds: new Set(),
    minDurationMs: -1,
  });
  assert.deepEqual(
    ongoing.transactions.map((t) => t.transactionalId),
    ['b'],
  );
  const byPid = await h.tc.list({
    states: new Set(),
    producerIds: new Set([a.producerId]),
    minDurationMs: -1,
  });
  assert.deepEqual(
    byPid.transactions.map((t) => t.transactionalId),
    ['a'],
  );
  assert.equal(
    (await h.tc.list({ states: new Set(), producerIds: new Set(), minDurationMs: 1000 })).transactions.length,
    0,
  );
  h.clock.advance(1000);
  assert.deepEqual(
    (await h.tc.list({ states: new Set(), producerIds: new Set(), minDurationMs: 1000 })).transactions.map(
      (t) => t.transactionalId,
    ),
    ['b'],
  );
});

test('operations on a partition this coordinator does not own answer NOT_COORDINATOR', async () => {
  const h = await txnHarness();
  h.tc.onResignation(h.tc.partitionFor('tx'));
  assert.equal((await h.tc.initProducerId('tx', 1000, null)).errorCode, ErrorCode.NOT_COORDINATOR);
  assert.equal(await h.tc.endTxn('tx', 1n, 0, true), ErrorCode.NOT_COORDINATOR);
  assert.equal((await h.state('tx')).errorCode, ErrorCode.NOT_COORDINATOR);
});
