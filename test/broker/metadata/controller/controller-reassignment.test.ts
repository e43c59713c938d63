// Partition reassignment in the controller over the memory store (deterministic): the phases of
// KIP-455 as the topic record and the requests show them, validation errors, cancellation, and a
// new controller resuming a reassignment it finds in the store.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TopicAssignment } from '../../../../src/broker/metadata/store/records.js';
import { ErrorCode } from '../../../../src/protocol/errors.js';
import type { AlterPartitionRequest } from '../../../../src/protocol/messages/generated/alter-partition.js';
import { TestCluster } from './support/cluster.js';

const tp = { topic: 't', partition: 0 };

/** The leader's AlterPartition proposing `isr` for partition 0, on its current state. */
async function grow(c: TestCluster, t: TopicAssignment, isr: number[]): Promise<void> {
  const s = await c.state(t.name, 0);
  const req: AlterPartitionRequest = {
    brokerId: s.leader,
    brokerEpoch: c.nodes.get(s.leader)!.epoch,
    topics: [
      {
        topicName: t.name,
        topicId: t.topicId,
        partitions: [
          {
            partitionIndex: 0,
            leaderEpoch: s.leaderEpoch,
            newIsr: [],
            newIsrWithEpochs: isr.map((brokerId) => ({ brokerId, brokerEpoch: -1n })),
            leaderRecoveryState: 0,
            partitionEpoch: s.version,
          },
        ],
      },
    ],
  };
  const r = await c.activeController().controller.alterPartition(req, 3);
  assert.equal(r.topics[0]!.partitions[0]!.errorCode, 0, 'ISR change accepted');
  await c.settle();
}

async function record(c: TestCluster, topic = 't'): Promise<TopicAssignment> {
  return (await c.admin.assignments([topic]))[0]!;
}

test('reassignment {1,2,3} → {2,3,4}: RS/AR/RR written, new replica started, completed once in sync', async () => {
  const c = await TestCluster.start([1, 2, 3, 4]);
  try {
    const t = await c.createTopic('t', [[1, 2, 3]]);
    const ctl = c.activeController().controller;
    const before = await c.state('t', 0);
    c.network.clear();
    const r = await ctl.alterPartitionReassignments([{ ...tp, replicas: [2, 3, 4] }]);
    assert.deepEqual(r, [{ ...tp, errorCode: 0, errorMessage: null }]);
    await c.settle();
    const moving = await record(c);
    assert.deepEqual(moving.partitions[0], [2, 3, 4, 1], 'RS = target first, then the original replicas');
    assert.deepEqual([moving.addingReplicas?.[0], moving.removingReplicas?.[0]], [[4], [1]]);
    const during = await c.state('t', 0);
    assert.deepEqual([during.leader, during.leaderEpoch, during.isr], [1, before.leaderEpoch + 1, [1, 2, 3]]);
    const toNew = c.network.sent('LeaderAndIsr', 4).flatMap((x) => x.request.topicStates[0]!.partitionStates);
    assert.equal(toNew.length, 1);
    assert.deepEqual(
      [toNew[0]!.isNew, toNew[0]!.replicas, toNew[0]!.addingReplicas, toNew[0]!.removingReplicas],
      [true, [2, 3, 4, 1], [4], [1]],
    );
    for (const b of [1, 2, 3])
      assert.equal(c.network.sent('LeaderAndIsr', b).length, 1, `LeaderAndIsr to ${b}`);
    assert.deepEqual(await ctl.listPartitionReassignments(null), [
      { ...tp, replicas: [2, 3, 4, 1], adding: [4], removing: [1] },
    ]);

    // Not yet: 4 is not in sync. Then the leader adds it.
    await grow(c, t, [1, 2, 3]);
    assert.equal((await record(c)).addingReplicas?.[0]?.[0], 4, 'still moving');
    c.network.clear();
    await grow(c, t, [1, 2, 3, 4]);
    const done = await record(c);
    assert.deepEqual(done.partitions[0], [2, 3, 4]);
    assert.equal(done.addingReplicas, undefined, 'adding/removing cleared');
    assert.equal(done.removingReplicas, undefined);
    const after = await c.state('t', 0);
    assert.deepEqual([after.leader, after.isr], [2, [2, 3, 4]], 'leadership moved into the target');
    const stops = c.network.sent('StopReplica', 1).flatMap((x) => x.request.topicStates[0]!.partitionStates);
    assert.deepEqual(
      stops.map((s) => s.deletePartition),
      [true],
    );
    assert.equal(c.network.sent('StopReplica', 4).length, 0);
    assert.deepEqual(await ctl.listPartitionReassignments(null), []);
  } finally {
    await c.close();
  }
});

test('reassignment requests are validated with Kafka’s codes', async () => {
  const c = await TestCluster.start([1, 2, 3]);
  try {
    await c.createTopic('t', [[1, 2]]);
    const ctl = c.activeController().controller;
    const codes = async (replicas: number[] | null, topic = 't', partition = 0) =>
      (await ctl.alterPartitionReassignments([{ topic, partition, replicas }]))[0]!.errorCode;
    assert.equal(await codes([]), ErrorCode.INVALID_REPLICA_ASSIGNMENT, 'empty');
    assert.equal(await codes([1, 1]), ErrorCode.INVALID_REPLICA_ASSIGNMENT, 'duplicates');
    assert.equal(await codes([1, -3]), ErrorCode.INVALID_REPLICA_ASSIGNMENT, 'negative id');
    assert.equal(await codes([1, 9]), ErrorCode.INVALID_REPLICA_ASSIGNMENT, 'broker 9 is not live');
    assert.equal(await codes([1, 2], 'nope'), ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    assert.equal(await codes([1, 2], 't', 5), ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    assert.equal(await codes(null), ErrorCode.NO_REASSIGNMENT_IN_PROGRESS);
    assert.deepEqual((await record(c)).partitions, [[1, 2]], 'nothing written');
    // A non-controller refuses.
    const other = [...c.nodes.values()].find((n) => !n.controller.isActive)!;
    await assert.rejects(
      other.controller.alterPartitionReassignments([{ ...tp, replicas: [2, 3] }]),
      (
        e: Error & {
          code?: number;
        },
      ) => e.code === ErrorCode.NOT_CONTROLLER,
    );
    await assert.rejects(
      other.controller.listPartitionReassignments(null),
      (e: Error & { code?: number }) => e.code === ErrorCode.NOT_CONTROLLER,
    );
  } finally {
    await c.close();
  }
});

test('a cancelled reassignment reverts to the original replicas and deletes the added ones', async () => {
  const c = await TestCluster.start([1, 2, 3, 4]);
  try {
    await c.createTopic('t', [[1, 2, 3]]);
    const ctl = c.activeController().controller;
    await ctl.alterPartitionReassignments([{ ...tp, replicas: [2, 3, 4] }]);
    await c.settle();
    c.network.clear();
    const r = await ctl.alterPartitionReassignments([{ ...tp, replicas: null }]);
    assert.equal(r[0]!.errorCode, 0);
    await c.settle();
    const back = await record(c);
    // Kafka's known limit: the original set is RS minus the added replicas, in RS order, so a
    // cancelled move keeps the replicas but not necessarily their original order.
    assert.deepEqual([back.partitions[0], back.addingReplicas], [[2, 3, 1], undefined]);
    const s = await c.state('t', 0);
    assert.deepEqual([s.leader, s.isr], [1, [1, 2, 3]]);
    const stops = c.network.sent('StopReplica', 4).flatMap((x) => x.request.topicStates[0]!.partitionStates);
    assert.deepEqual(
      stops.map((x) => x.deletePartition),
      [true],
    );
    assert.deepEqual(await ctl.listPartitionReassignments([tp]), []);
  } finally {
    await c.close();
  }
});

test('a new controller resumes a reassignment from the topic record and completes it', async () => {
  const c = await TestCluster.start([1, 2, 3, 4]);
  try {
    const first = c.activeController();
    // The controller's broker is the one leaving; the other three are the target.
    const rest = [1, 2, 3, 4].filter((id) => id !== first.id);
    const t = await c.createTopic('t', [[first.id, rest[0]!, rest[1]!]]);
    await first.controller.alterPartitionReassignments([{ ...tp, replicas: rest }]);
    await c.settle();
    const epochBefore = (await c.state('t', 0)).leaderEpoch;
    c.network.clear();
    await c.kill(first.id);
    const next = c.activeController();
    // The replica being added hears about the reassignment again from the new controller.
    const toNew = c.network
      .sent('LeaderAndIsr', rest[2]!, next.id)
      .flatMap((x) => x.request.topicStates.flatMap((ts) => ts.partitionStates));
    assert.ok(
      toNew.some((p) => p.addingReplicas.includes(rest[2]!)),
      'LeaderAndIsr with the reassignment',
    );
    assert.ok((await c.state('t', 0)).leaderEpoch > epochBefore, 'leader epoch bumped');
    assert.deepEqual(await next.controller.listPartitionReassignments(null), [
      { ...tp, replicas: [...rest, first.id], adding: [rest[2]], removing: [first.id] },
    ]);
    const s = await c.state('t', 0);
    assert.ok(!s.isr.includes(first.id), 'the dead broker left the ISR');
    await grow(c, t, [...s.isr, rest[2]!]);
    const done = await record(c);
    assert.deepEqual([done.partitions[0], done.addingReplicas], [rest, undefined]);
    const after = await c.state('t', 0);
    assert.ok(rest.includes(after.leader), `leader ${after.leader} in the target`);
    assert.deepEqual([...after.isr].sort(), [...rest].sort());
  } finally {
    await c.close();
  }
});
