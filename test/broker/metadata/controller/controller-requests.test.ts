// What brokers and admin commands ask of the controller: ControlledShutdown, AlterPartition (with
// Kafka's fencing codes), preferred leader election, added partitions, and store trouble (a lost
// reply, a lost connection).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TopicAssignment } from '../../../../src/broker/metadata/store/records.js';
import { ErrorCode } from '../../../../src/protocol/errors.js';
import type { AlterPartitionRequest } from '../../../../src/protocol/messages/generated/alter-partition.js';
import { TestCluster } from './support/cluster.js';

function isrChange(
  c: TestCluster,
  t: TopicAssignment,
  from: number,
  p: { leaderEpoch: number; partitionEpoch: number; isr: number[]; brokerEpochs?: bigint[] },
): AlterPartitionRequest {
  return {
    brokerId: from,
    brokerEpoch: c.nodes.get(from)!.epoch,
    topics: [
      {
        topicName: t.name,
        topicId: t.topicId,
        partitions: [
          {
            partitionIndex: 0,
            leaderEpoch: p.leaderEpoch,
            newIsr: [],
            newIsrWithEpochs: p.isr.map((brokerId, i) => ({
              brokerId,
              brokerEpoch: p.brokerEpochs?.[i] ?? -1n,
            })),
            leaderRecoveryState: 0,
            partitionEpoch: p.partitionEpoch,
          },
        ],
      },
    ],
  };
}

test('controlled shutdown moves leaderships, shrinks ISRs, answers what it still leads', async () => {
  const c = await TestCluster.start([1, 2, 3]);
  try {
    await c.createTopic('t', [
      [1, 2, 3],
      [2, 1, 3],
      [1, 3],
    ]);
    await c.createTopic('single', [[1]]);
    const ctl = c.activeController().controller;
    await assert.rejects(ctl.controlledShutdown(1, c.nodes.get(1)!.epoch - 1n), {
      code: ErrorCode.STALE_BROKER_EPOCH,
    });
    await assert.rejects(ctl.controlledShutdown(9, -1n), { code: ErrorCode.BROKER_NOT_AVAILABLE });
    c.network.clear();
    const remaining = await ctl.controlledShutdown(1, c.nodes.get(1)!.epoch);
    assert.deepEqual(remaining, [{ topic: 'single', partition: 0 }], 'RF 1: nowhere to move');
    const p0 = await c.state('t', 0);
    assert.deepEqual([p0.leader, p0.isr], [2, [2, 3]]);
    const p1 = await c.state('t', 1);
    assert.deepEqual([p1.leader, p1.isr], [2, [2, 3]]);
    const p2 = await c.state('t', 2);
    assert.deepEqual([p2.leader, p2.isr], [3, [3]]);
    // The stopping broker stops following partition 1, and hears it is now a follower of 0 and 2.
    const stop = c.network.sent('StopReplica', 1);
    assert.equal(stop.length, 1);
    assert.deepEqual(stop[0]!.request.topicStates, [
      // The epoch after the shrink: a broker stops a replica for an epoch at least its own.
      {
        topicName: 't',
        partitionStates: [{ partitionIndex: 1, leaderEpoch: p1.leaderEpoch, deletePartition: false }],
      },
    ]);
    const lai1 = c.network.sent('LeaderAndIsr', 1).flatMap((r) => r.request.topicStates[0]!.partitionStates);
    assert.deepEqual(lai1.map((p) => [p.partitionIndex, p.leader]).sort(), [
      [0, 2],
      [2, 3],
    ]);
    assert.equal(c.network.sent('LeaderAndIsr', 2).length, 1, 'one request per broker');
    // Nothing is elected onto a shutting-down broker, and leaders cannot add it back to the ISR.
    const t = (await c.admin.assignments(['t']))[0]!;
    const back = await ctl.alterPartition(
      isrChange(c, t, 2, { leaderEpoch: p0.leaderEpoch, partitionEpoch: p0.version, isr: [2, 3, 1] }),
    );
    assert.equal(back.topics[0]!.partitions[0]!.errorCode, ErrorCode.INELIGIBLE_REPLICA);
  } finally {
    await c.close();
  }
});

test('AlterPartition: accepted ISR changes keep the leader epoch and bump the partition epoch; stale ones are fenced', async () => {
  const c = await TestCluster.start([1, 2, 3]);
  try {
    const t = await c.createTopic('t', [[1, 2, 3]]);
    const ctl = c.activeController().controller;
    const s0 = await c.state('t', 0);
    c.network.clear();
    const ok = await ctl.alterPartition(
      isrChange(c, t, 1, { leaderEpoch: s0.leaderEpoch, partitionEpoch: s0.version, isr: [1, 2] }),
    );
    assert.equal(ok.errorCode, 0);
    assert.deepEqual(ok.topics[0], {
      topicName: 't',
      topicId: t.topicId,
      partitions: [
        {
          partitionIndex: 0,
          errorCode: 0,
          leaderId: 1,
          leaderEpoch: s0.leaderEpoch,
          isr: [1, 2],
          leaderRecoveryState: 0,
          partitionEpoch: s0.version + 1,
        },
      ],
    });
    const s1 = await c.state('t', 0);
    assert.deepEqual([s1.isr, s1.leaderEpoch, s1.version], [[1, 2], s0.leaderEpoch, s0.version + 1]);
    for (const b of [1, 2, 3])
      assert.equal(c.network.sent('UpdateMetadata', b).length, 1, `UpdateMetadata to ${b}`);
    assert.equal(c.network.sent('LeaderAndIsr').length, 0, 'the leader learns from the response');

    const code = async (req: AlterPartitionRequest, version = 3) => {
      const r = await ctl.alterPartition(req, version);
      return r.errorCode !== 0 ? r.errorCode : r.topics[0]!.partitions[0]!.errorCode;
    };
    const base = { leaderEpoch: s1.leaderEpoch, partitionEpoch: s1.version, isr: [1, 2, 3] };
    assert.equal(
      await code(isrChange(c, t, 1, { ...base, isr: [1, 2] })),
      0,
      'a retry of what is already there succeeds',
    );
    assert.equal(
      await code(isrChange(c, t, 1, { ...base, partitionEpoch: s0.version })),
      ErrorCode.INVALID_UPDATE_VERSION,
    );
    assert.equal(
      await code(isrChange(c, t, 1, { ...base, leaderEpoch: s1.leaderEpoch - 1 })),
      ErrorCode.FENCED_LEADER_EPOCH,
    );
    assert.equal(
      await code(isrChange(c, t, 1, { ...base, leaderEpoch: s1.leaderEpoch + 1 })),
      ErrorCode.NOT_CONTROLLER,
    );
    assert.equal(await code(isrChange(c, t, 2, base)), ErrorCode.INVALID_REQUEST, 'only the leader proposes');
    assert.equal(
      await code(isrChange(c, t, 1, { ...base, isr: [2, 3] })),
      ErrorCode.INVALID_REQUEST,
      'the leader stays in',
    );
    assert.equal(
      await code(isrChange(c, t, 1, { ...base, isr: [1, 4] })),
      ErrorCode.INVALID_REQUEST,
      'not a replica',
    );
    assert.equal(
      await code(isrChange(c, t, 1, { ...base, brokerEpochs: [-1n, -1n, c.nodes.get(3)!.epoch - 1n] })),
      ErrorCode.INELIGIBLE_REPLICA,
      'a member with an old broker epoch (it restarted since)',
    );
    const stale = { ...isrChange(c, t, 1, base), brokerEpoch: c.nodes.get(1)!.epoch - 1n };
    assert.equal(await code(stale), ErrorCode.STALE_BROKER_EPOCH);
    const unknownId = isrChange(c, t, 1, base);
    unknownId.topics[0]!.topicId = 'AAAAAAAAAAAAAAAAAAAAAQ';
    assert.equal(await code(unknownId), ErrorCode.UNKNOWN_TOPIC_ID);
    const unknownPartition = isrChange(c, t, 1, base);
    unknownPartition.topics[0]!.partitions[0]!.partitionIndex = 5;
    assert.equal(await code(unknownPartition), ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);

    await c.kill(3);
    const s2 = await c.state('t', 0);
    const offline = isrChange(c, t, 1, {
      leaderEpoch: s2.leaderEpoch,
      partitionEpoch: s2.version,
      isr: [1, 2, 3],
    });
    assert.equal(await code(offline), ErrorCode.INELIGIBLE_REPLICA, 'an offline replica cannot join');
    assert.equal(
      await code(offline, 1),
      ErrorCode.OPERATION_NOT_ATTEMPTED,
      'older versions get the older code',
    );
    // The expansion once the follower is back (epochs as they are now) succeeds.
    await c.restart(3);
    const s3 = await c.state('t', 0);
    assert.equal(
      await code(
        isrChange(c, t, 1, { leaderEpoch: s3.leaderEpoch, partitionEpoch: s3.version, isr: [1, 2, 3] }),
      ),
      0,
    );
    assert.deepEqual((await c.state('t', 0)).isr, [1, 2, 3]);
  } finally {
    await c.close();
  }
});

test('preferred leader election moves leadership back once the preferred replica is in sync', async () => {
  const c = await TestCluster.start([1, 2]);
  try {
    const t = await c.createTopic('t', [[1, 2]]);
    await c.kill(1);
    await c.restart(1);
    const ctl = c.activeController().controller;
    let s = await c.state('t', 0);
    assert.deepEqual([s.leader, s.isr], [2, [2]]);
    const notInSync = await ctl.electLeaders(true, [{ topic: 't', partition: 0 }]);
    assert.equal(notInSync[0]!.errorCode, ErrorCode.PREFERRED_LEADER_NOT_AVAILABLE);
    await ctl.alterPartition(
      isrChange(c, t, 2, { leaderEpoch: s.leaderEpoch, partitionEpoch: s.version, isr: [2, 1] }),
    );
    const r = await ctl.electLeaders(true, null);
    assert.deepEqual(r, [{ topic: 't', partition: 0, errorCode: 0, errorMessage: null, leader: 1 }]);
    s = await c.state('t', 0);
    assert.deepEqual([s.leader, s.isr], [1, [2, 1]]);
    const again = await ctl.electLeaders(true, [
      { topic: 't', partition: 0 },
      { topic: 'nope', partition: 0 },
    ]);
    assert.deepEqual(
      again.map((x) => x.errorCode),
      [ErrorCode.ELECTION_NOT_NEEDED, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION],
    );
  } finally {
    await c.close();
  }
});

test('partitions added to a topic get states and are announced as new', async () => {
  const c = await TestCluster.start([1, 2]);
  try {
    const t = await c.createTopic('t', [[1, 2]]);
    c.network.clear();
    await c.admin.setAssignment({ ...t, partitions: [...t.partitions, [2, 1], [1, 2]] });
    await c.settle();
    const states = await c.states('t');
    assert.deepEqual(
      [...states].map(([p, s]) => [p, s.leader]),
      [
        [0, 1],
        [1, 2],
        [2, 1],
      ],
    );
    const lai = c.network.sent('LeaderAndIsr', 1)[0]!.request.topicStates[0]!.partitionStates;
    assert.deepEqual(
      lai.map((p) => [p.partitionIndex, p.isNew]),
      [
        [1, true],
        [2, true],
      ],
    );
  } finally {
    await c.close();
  }
});

test('a controller write whose reply was lost is re-read, not repeated', async () => {
  const c = await TestCluster.start([1, 2]);
  try {
    const ctl = c.activeController();
    c.service.injectConnectionLoss(ctl.store, { afterApply: true });
    c.network.clear();
    await c.createTopic('t', [[2, 1]]);
    const s = await c.state('t', 0);
    assert.deepEqual([s.leader, s.leaderEpoch, s.version], [2, 0, 0], 'written once');
    const lai = c.network.sent('LeaderAndIsr', 2);
    assert.equal(lai.length, 1);
    assert.equal(lai[0]!.request.topicStates[0]!.partitionStates[0]!.isNew, true);
    assert.ok(ctl.controller.isActive);
  } finally {
    await c.close();
  }
});

test('a controller cut off from the store waits, then goes on (or steps down if its session expired)', async () => {
  const c = await TestCluster.start([1, 2]);
  try {
    const ctl = c.activeController();
    c.service.disconnect(ctl.store);
    await c.createTopic('t', [[1, 2]]);
    assert.equal((await c.states('t')).size, 0, 'nothing decided while the controller is cut off');
    c.service.reconnect(ctl.store);
    await c.settle();
    assert.ok(ctl.controller.isActive);
    assert.equal((await c.state('t', 0)).leader, 1);

    c.service.disconnect(ctl.store);
    c.clock.advance(60_000);
    await c.settle();
    const others = c.active().filter((n) => n.id !== ctl.id);
    assert.equal(others.length, 1, 'another controller took over');
    assert.ok(ctl.controller.isActive, 'cut off, it cannot know yet (and cannot write: fenced by the store)');
    c.service.reconnect(ctl.store);
    await c.settle();
    assert.equal(ctl.controller.isActive, false);
    assert.equal(c.active().length, 1);
  } finally {
    await c.close();
  }
});
