// Transaction protocol v2 (KIP-890 part 2) across brokers: the data partition's leader and the
// group's coordinator are not the transactional id's coordinator, so they add the partitions
// to the transaction on the coordinating broker (AddPartitionsToTxn v5, VerifyOnly false) for
// Produce v12 and TxnOffsetCommit v5. EndTxn v5's markers reach the other broker with the bumped
// epoch; afterwards a late write at the old epoch is fenced there too, and the committed offsets
// and records are what readers see.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ErrorCode } from '../../src/protocol/errors.js';
import { describeTransactionsApi } from '../../src/protocol/messages/generated/describe-transactions.js';
import { offsetFetchApi } from '../../src/protocol/messages/generated/offset-fetch.js';
import {
  batchesOf,
  coordinatorOf,
  endTxn,
  GROUP,
  initPid,
  produceTo,
  txnBatch,
  txnOffsetCommit,
} from '../broker/txn/txn-v2-wire-support.js';
import { scaled } from '../support/timeouts.js';
import { remoteTxnCluster } from './remote-txn-support.js';
import { leaderOf } from './support.js';

const TOPIC = 'v2-remote';
const TXN_ID = 'v2-remote-tx';
const { connect, layout, settled } = remoteTxnCluster({ 'offsets.topic.replication.factor': 1 });

test('leader and group coordinator ≠ transaction coordinator: v2 adds, bumps and fences across brokers', {
  timeout: scaled(240_000),
}, async () => {
  const { coordinator, view, remote, any } = await layout(TOPIC, TXN_ID);
  assert.ok(remote.length >= 2, 'two partitions led by the other broker');
  const [p1, p2] = remote as [number, number];
  const other = leaderOf(view, TOPIC, p1);
  const leader = await connect(other);
  const coord = await connect(coordinator);
  let group = '';
  for (let i = 0; group === ''; i++) {
    if ((await coordinatorOf(any, GROUP, `v2-group-${i}`)) === other) group = `v2-group-${i}`;
    assert.ok(i < 200, 'a group coordinated by the other broker');
  }
  // FindCoordinator created __consumer_offsets through the first broker: the transaction
  // coordinator must know its partitions before it adds one (else UNKNOWN_TOPIC_OR_PARTITION,
  // which a real client retries; seen once in a suite run).
  await settled(['__consumer_offsets']);

  const p = await initPid(coord, TXN_ID);
  const produced = await produceTo(leader, 12, TXN_ID, TOPIC, p1, txnBatch(p, 0, ['remote-commit']));
  assert.equal(produced.errorCode, ErrorCode.NONE, String(produced.errorMessage));
  assert.equal(await txnOffsetCommit(leader, p, group, TOPIC, p1, 3n), ErrorCode.NONE);
  const open = (await coord.request(describeTransactionsApi, 0, { transactionalIds: [TXN_ID] }))
    .transactionStates[0]!;
  assert.equal(open.transactionState, 'Ongoing');
  assert.deepEqual(
    open.topics.map((t) => t.topic).sort(),
    ['__consumer_offsets', TOPIC],
    'both partitions were added by the other broker',
  );

  const end = await endTxn(coord, 5, p, true);
  assert.deepEqual([end.errorCode, end.producerEpoch], [ErrorCode.NONE, p.producerEpoch + 1]);
  const marker = (await batchesOf(leader, TOPIC, p1)).at(-1)!;
  assert.deepEqual([marker.control, marker.producerEpoch], [true, p.producerEpoch + 1]);
  const committed = await leader.request(offsetFetchApi, 7, {
    groupId: group,
    topics: [{ name: TOPIC, partitionIndexes: [p1] }],
    groups: [],
    requireStable: true,
  });
  assert.equal(committed.topics[0]!.partitions[0]!.committedOffset, 3n);

  // The old epoch on a partition the committed transaction never touched: the remote add is
  // refused by the coordinator (PRODUCER_FENCED → INVALID_PRODUCER_EPOCH), nothing appended.
  const before2 = (await batchesOf(leader, TOPIC, p2)).length;
  const late = await produceTo(leader, 12, TXN_ID, TOPIC, p2, txnBatch(p, 1, ['late']));
  assert.equal(late.errorCode, ErrorCode.INVALID_PRODUCER_EPOCH);
  assert.equal((await batchesOf(leader, TOPIC, p2)).length, before2);
  // The new epoch opens the next transaction there.
  const next = { ...p, producerEpoch: end.producerEpoch };
  const ok = await produceTo(leader, 12, TXN_ID, TOPIC, p2, txnBatch(next, 0, ['next']));
  assert.equal(ok.errorCode, ErrorCode.NONE, String(ok.errorMessage));
  const abort = await endTxn(coord, 5, next, false);
  assert.deepEqual([abort.errorCode, abort.producerEpoch], [ErrorCode.NONE, next.producerEpoch + 1]);
});
