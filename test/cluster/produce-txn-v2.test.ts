// Transaction protocol v2 (KIP-890 part 2) across brokers: the data partition's leader and the
// group's coordinator are not the transactional id's coordinator, so they add the partitions
// to the transaction on the coordinating broker (AddPartitionsToTxn v5, VerifyOnly false) for
// Produce v12 and TxnOffsetCommit v5. EndTxn v5's markers reach the other broker with the bumped
// epoch; afterwards a late write at the old epoch is fenced there too, and the committed offsets
// and records are what readers see.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Admin } from '../../src/client/index.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { describeTransactionsApi } from '../../src/protocol/messages/generated/describe-transactions.js';
import { findCoordinatorApi } from '../../src/protocol/messages/generated/find-coordinator.js';
import { offsetFetchApi } from '../../src/protocol/messages/generated/offset-fetch.js';
import { txnOffsetCommitApi } from '../../src/protocol/messages/generated/txn-offset-commit.js';
import { startTestCluster, type TestCluster } from '../../src/testkit/index.js';
import { RawClient } from '../broker/support/raw-client.js';
import { batchesOf, endTxn, initPid, produceTo, txnBatch } from '../broker/txn/txn-v2-wire-support.js';
import { scaled } from '../support/timeouts.js';
import { leaderOf, waitForFullIsr } from './support.js';

const TOPIC = 'v2-remote';
const TXN_ID = 'v2-remote-tx';
let cluster: TestCluster;
const clients: RawClient[] = [];

before(async () => {
  cluster = await startTestCluster({
    brokers: 2,
    mode: 'in-process',
    overrides: {
      'transaction.state.log.replication.factor': 1,
      'transaction.state.log.min.isr': 1,
      'offsets.topic.replication.factor': 1,
    },
  });
});
after(async () => {
  for (const c of clients) c.close();
  await cluster?.close();
});

async function connect(nodeId: number): Promise<RawClient> {
  const c = await RawClient.connect(cluster.broker(nodeId).port!);
  clients.push(c);
  return c;
}

async function coordinatorOf(c: RawClient, keyType: number, key: string): Promise<number> {
  const deadline = Date.now() + scaled(60_000);
  for (;;) {
    const r = await c.request(findCoordinatorApi, 4, { key: '', keyType, coordinatorKeys: [key] });
    const k = r.coordinators[0]!;
    if (k.errorCode === ErrorCode.NONE) return k.nodeId;
    assert.ok(Date.now() < deadline, `timed out: no coordinator for ${key} (error ${k.errorCode})`);
    await new Promise((res) => setTimeout(res, 100));
  }
}

test('leader and group coordinator ≠ transaction coordinator: v2 adds, bumps and fences across brokers', {
  timeout: scaled(240_000),
}, async () => {
  const admin = new Admin({ bootstrapServers: cluster.bootstrap() });
  try {
    await admin.createTopics([{ name: TOPIC, numPartitions: 4, replicationFactor: 1 }]);
  } finally {
    await admin.close();
  }
  const views = await waitForFullIsr(cluster, [TOPIC]);
  const any = await connect(cluster.nodeIds[0]!);
  const coordinator = await coordinatorOf(any, 1, TXN_ID);
  const view = views.get(coordinator)!;
  const remote = [0, 1, 2, 3].filter((p) => leaderOf(view, TOPIC, p) !== coordinator);
  assert.ok(remote.length >= 2, 'two partitions led by the other broker');
  const [p1, p2] = remote as [number, number];
  const other = leaderOf(view, TOPIC, p1);
  const leader = await connect(other);
  const coord = await connect(coordinator);
  let group = '';
  for (let i = 0; group === ''; i++) {
    if ((await coordinatorOf(any, 0, `v2-group-${i}`)) === other) group = `v2-group-${i}`;
    assert.ok(i < 200, 'a group coordinated by the other broker');
  }

  const p = await initPid(coord, TXN_ID);
  const produced = await produceTo(leader, 12, TXN_ID, TOPIC, p1, txnBatch(p, 0, ['remote-commit']));
  assert.equal(produced.errorCode, ErrorCode.NONE, String(produced.errorMessage));
  const offsets = await leader.request(txnOffsetCommitApi, 5, {
    transactionalId: TXN_ID,
    groupId: group,
    producerId: p.producerId,
    producerEpoch: p.producerEpoch,
    generationId: -1,
    memberId: '',
    groupInstanceId: null,
    topics: [
      {
        name: TOPIC,
        partitions: [
          { partitionIndex: p1, committedOffset: 3n, committedLeaderEpoch: -1, committedMetadata: '' },
        ],
      },
    ],
  });
  assert.equal(offsets.topics[0]!.partitions[0]!.errorCode, ErrorCode.NONE);
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
