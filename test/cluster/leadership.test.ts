// Leadership management on a real cluster over ZooKeeper: preferred leader election through our
// Admin and through raw ElectLeaders (v0 and v2, null = all partitions) after a leader was killed
// and restarted; Kafka's per-partition answers (ELECTION_NOT_NEEDED, UNKNOWN_TOPIC_OR_PARTITION,
// NOT_CONTROLLER from another broker); bad reassignment requests answered with Kafka's codes
// while the broker stays up; and the automatic rebalance (short check interval) moving a
// leadership back on its own.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Admin } from '../../src/client/index.js';
import { KafkaResponseError } from '../../src/net/errors.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { alterPartitionReassignmentsApi } from '../../src/protocol/messages/generated/alter-partition-reassignments.js';
import { electLeadersApi } from '../../src/protocol/messages/generated/elect-leaders.js';
import { listPartitionReassignmentsApi } from '../../src/protocol/messages/generated/list-partition-reassignments.js';
import { startTestCluster, type TestCluster } from '../../src/testkit/cluster.js';
import { startTestZooKeeper, type TestZooKeeper } from '../../src/testkit/zookeeper.js';
import { RawClient } from '../broker/support/raw-client.js';
import { scaled } from '../support/timeouts.js';
import {
  controllerZnodes,
  killAndRestart,
  leaderOf,
  viewOf,
  waitForFullIsr,
  waitForViews,
} from './support.js';

const SESSION_MS = 4000;
const TOPIC = 'pref';

let zk: TestZooKeeper;
let cluster: TestCluster;
let admin: Admin;

before(async () => {
  zk = await startTestZooKeeper();
  // No automatic rebalance here: the elections below must be the requests' doing.
  cluster = await startTestCluster({
    zookeeper: zk,
    brokers: 3,
    sessionTimeoutMs: SESSION_MS,
    overrides: { 'auto.leader.rebalance.enable': false },
  });
  admin = new Admin({ bootstrapServers: cluster.bootstrap() });
  await admin.createTopics([
    { name: TOPIC, replicaAssignment: { 0: [1, 2, 3], 1: [2, 3, 1], 2: [3, 1, 2] } },
  ]);
  await waitForFullIsr(cluster, [TOPIC]);
});
after(async () => {
  await admin?.close();
  await cluster?.close();
  await zk?.stop();
});

/** Raw request to one broker. */
async function on<Res>(nodeId: number, fn: (c: RawClient) => Promise<Res>): Promise<Res> {
  const c = await RawClient.connect(cluster.broker(nodeId).port!);
  try {
    return await fn(c);
  } finally {
    c.close();
  }
}

const codesOf = (r: {
  replicaElectionResults: { topic: string; partitionResult: { partitionId: number; errorCode: number }[] }[];
}) =>
  Object.fromEntries(
    r.replicaElectionResults.flatMap((t) =>
      t.partitionResult.map((p) => [`${t.topic}-${p.partitionId}`, p.errorCode]),
    ),
  );

test('preferred election through Admin and raw ElectLeaders after a leader kill and restart', {
  timeout: scaled(240_000),
}, async () => {
  // Broker 1 dies: partition 0 moves to 2; back, it rejoins the ISR but does not lead.
  await killAndRestart(cluster, 1, SESSION_MS);
  const views = await waitForFullIsr(cluster, [TOPIC]);
  assert.notEqual(leaderOf([...views.values()][0]!, TOPIC, 0), 1, 'leadership left broker 1');

  const results = await admin.electLeaders('preferred', [
    { topic: TOPIC, partition: 0 },
    { topic: TOPIC, partition: 1 },
    { topic: 'no-such-topic', partition: 0 },
  ]);
  assert.deepEqual(
    results.map((r) => [r.topic, r.partition, r.errorCode]).sort(),
    [
      ['no-such-topic', 0, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION],
      [TOPIC, 0, ErrorCode.NONE],
      [TOPIC, 1, ErrorCode.ELECTION_NOT_NEEDED],
    ].sort(),
  );
  await waitForViews(cluster, 'partition 0 led by broker 1 everywhere', (v) => leaderOf(v, TOPIC, 0) === 1);

  // Broker 2 dies and comes back: partition 1 moves away; a raw v2 request for all partitions
  // sent to the controller moves it back and lists only what it elected.
  await killAndRestart(cluster, 2, SESSION_MS);
  await waitForFullIsr(cluster, [TOPIC]);
  const { controllerId } = await controllerZnodes(cluster);
  const all = await on(controllerId, (c) =>
    c.request(electLeadersApi, 2, { electionType: 0, topicPartitions: null, timeoutMs: 30_000 }),
  );
  assert.equal(all.errorCode, 0);
  const codes = codesOf(all);
  assert.equal(codes[`${TOPIC}-1`], ErrorCode.NONE, JSON.stringify(codes));
  assert.ok(
    Object.values(codes).every((c) => c !== ErrorCode.ELECTION_NOT_NEEDED),
    'partitions that needed nothing are left out',
  );
  await waitForViews(cluster, 'preferred leaders everywhere', (v) =>
    [0, 1, 2].every((p) => leaderOf(v, TOPIC, p) === p + 1),
  );

  // v0 (preferred only) and an unclean election of a partition that has a leader.
  const v0 = await on(controllerId, (c) =>
    c.request(electLeadersApi, 0, {
      electionType: 0,
      topicPartitions: [{ topic: TOPIC, partitions: [2] }],
      timeoutMs: 10_000,
    }),
  );
  assert.deepEqual(codesOf(v0), { [`${TOPIC}-2`]: ErrorCode.ELECTION_NOT_NEEDED });
  const unclean = await admin.electLeaders('unclean', [{ topic: TOPIC, partition: 2 }]);
  assert.equal(unclean[0]!.errorCode, ErrorCode.ELECTION_NOT_NEEDED);

  // Another broker is not the controller: every named partition says so.
  const other = cluster.nodeIds.find((id) => id !== controllerId)!;
  const refused = await on(other, (c) =>
    c.request(electLeadersApi, 2, {
      electionType: 0,
      topicPartitions: [{ topic: TOPIC, partitions: [0] }],
      timeoutMs: 10_000,
    }),
  );
  assert.deepEqual(codesOf(refused), { [`${TOPIC}-0`]: ErrorCode.NOT_CONTROLLER });
});

test('bad reassignment requests get Kafka’s error codes and the brokers stay up', {
  timeout: scaled(120_000),
}, async () => {
  const rejects = async (replicas: number[] | null, code: number, topic = TOPIC) =>
    assert.rejects(
      admin.alterPartitionReassignments([{ topic, partition: 0, replicas }]),
      (e: unknown) => e instanceof KafkaResponseError && e.errorCode === code,
    );
  await rejects([], ErrorCode.INVALID_REPLICA_ASSIGNMENT);
  await rejects([1, 2, 2], ErrorCode.INVALID_REPLICA_ASSIGNMENT);
  await rejects([1, 2, 7], ErrorCode.INVALID_REPLICA_ASSIGNMENT);
  await rejects([1, -1], ErrorCode.INVALID_REPLICA_ASSIGNMENT);
  await rejects([1, 2], ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, 'no-such-topic');
  await rejects(null, ErrorCode.NO_REASSIGNMENT_IN_PROGRESS);

  // One raw request mixing them: per-partition answers, nothing started.
  const { controllerId } = await controllerZnodes(cluster);
  const r = await on(controllerId, (c) =>
    c.request(alterPartitionReassignmentsApi, 0, {
      timeoutMs: 10_000,
      topics: [
        {
          name: TOPIC,
          partitions: [
            { partitionIndex: 0, replicas: [3, 3] },
            { partitionIndex: 1, replicas: [] },
            { partitionIndex: 9, replicas: [1, 2, 3] },
          ],
        },
      ],
    }),
  );
  assert.equal(r.errorCode, 0);
  assert.deepEqual(
    r.responses[0]!.partitions.map((p) => [p.partitionIndex, p.errorCode]),
    [
      [0, ErrorCode.INVALID_REPLICA_ASSIGNMENT],
      [1, ErrorCode.INVALID_REPLICA_ASSIGNMENT],
      [9, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION],
    ],
  );
  const other = cluster.nodeIds.find((id) => id !== controllerId)!;
  const refused = await on(other, (c) =>
    c.request(listPartitionReassignmentsApi, 0, { timeoutMs: 10_000, topics: null }),
  );
  assert.equal(refused.errorCode, ErrorCode.NOT_CONTROLLER);
  assert.deepEqual(await admin.listPartitionReassignments(), []);
  for (const id of cluster.nodeIds) {
    const v = await viewOf(cluster.broker(id).port!);
    assert.deepEqual(
      v.topics.get(TOPIC)!.map((p) => p.replicas),
      [
        [1, 2, 3],
        [2, 3, 1],
        [3, 1, 2],
      ],
      `broker ${id} serves, assignment unchanged`,
    );
  }
});

test('automatic rebalance moves a leadership back to its preferred replica', {
  timeout: scaled(240_000),
}, async () => {
  const auto = await startTestCluster({
    zookeeper: zk,
    brokers: 3,
    mode: 'in-process',
    sessionTimeoutMs: SESSION_MS,
    overrides: { 'leader.imbalance.check.interval.seconds': 1 },
  });
  const a = new Admin({ bootstrapServers: auto.bootstrap() });
  try {
    await a.createTopics([{ name: 'auto', replicaAssignment: { 0: [1, 2, 3], 1: [2, 3, 1] } }]);
    await waitForFullIsr(auto, ['auto']);
    // A clean stop moves leadership away (controlled shutdown); nothing asks for it back.
    await auto.stop(1);
    await waitForViews(auto, 'partition 0 led elsewhere', (v) => ![-1, 1].includes(leaderOf(v, 'auto', 0)));
    await auto.restart(1);
    await waitForViews(
      auto,
      'partition 0 led by its preferred replica again, by the rebalance alone',
      (v) => leaderOf(v, 'auto', 0) === 1 && leaderOf(v, 'auto', 1) === 2,
      120_000,
    );
  } finally {
    await a.close();
    await auto.close();
  }
});
