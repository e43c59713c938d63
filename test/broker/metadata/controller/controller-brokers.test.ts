// Topics appearing and brokers coming and going: initial partition states, LeaderAndIsr and
// UpdateMetadata to the right brokers (one request per broker per event), leaders moving within
// the ISR with bumped epochs, dead brokers leaving ISRs, restarts, and unclean election only where
// a topic enables it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TestCluster } from './support/cluster.js';

test('a new topic: states written (leader = first live replica, ISR = live replicas), brokers told', async () => {
  const c = await TestCluster.start([1, 2, 3]);
  try {
    const ctl = c.activeController();
    c.network.clear();
    const t = await c.createTopic('orders', [
      [1, 2],
      [2, 3],
      [3, 1],
    ]);
    for (const [p, replicas] of t.partitions.entries()) {
      assert.deepEqual(
        { ...(await c.state('orders', p)) },
        {
          leader: replicas[0],
          leaderEpoch: 0,
          isr: replicas,
          controllerEpoch: ctl.controller.epoch,
          leaderRecoveryState: 0,
          version: 0,
        },
      );
    }
    for (const b of [1, 2, 3]) {
      const lai = c.network.sent('LeaderAndIsr', b);
      assert.equal(lai.length, 1, `one LeaderAndIsr to ${b}`);
      const req = lai[0]!.request;
      assert.equal(req.controllerId, ctl.id);
      assert.equal(req.brokerEpoch, c.nodes.get(b)!.epoch);
      assert.equal(req.topicStates[0]!.topicId, t.topicId);
      const parts = req.topicStates[0]!.partitionStates;
      assert.deepEqual(
        parts.map((p) => p.partitionIndex).sort(),
        t.partitions.flatMap((r, i) => (r.includes(b) ? [i] : [])),
      );
      assert.ok(parts.every((p) => p.isNew && p.partitionEpoch === 0 && p.replicas.includes(b)));
      assert.deepEqual(
        req.liveLeaders.map((l) => l.brokerId).sort(),
        [...new Set(parts.map((p) => p.leader))].sort(),
      );
      const um = c.network.sent('UpdateMetadata', b);
      assert.equal(um.length, 1, `one UpdateMetadata to ${b}`);
      const states = um[0]!.request.topicStates[0]!.partitionStates;
      assert.equal(states.length, 3);
      assert.ok(states.every((s) => s.zkVersion === 0 && s.offlineReplicas.length === 0));
    }
  } finally {
    await c.close();
  }
});

test('a topic whose replicas are all down stays without state until one comes back', async () => {
  const c = await TestCluster.start([1, 2]);
  try {
    await c.createTopic('later', [[3]]);
    assert.equal((await c.states('later')).size, 0);
    await c.startNode(3);
    await c.settle();
    assert.deepEqual((await c.state('later', 0)).isr, [3]);
    const lai = c.network.sent('LeaderAndIsr', 3).flatMap((r) => r.request.topicStates);
    assert.ok(lai.some((t) => t.topicName === 'later' && t.partitionStates[0]!.isNew));
  } finally {
    await c.close();
  }
});

test('broker loss: leaders move within the ISR with a new epoch, the dead broker leaves every ISR', async () => {
  const c = await TestCluster.start([1, 2, 3]);
  try {
    await c.createTopic('t', [
      [1, 2, 3],
      [2, 1, 3],
      [3, 2],
    ]);
    const before = await c.states('t');
    c.network.clear();
    await c.kill(1);
    const p0 = await c.state('t', 0);
    assert.equal(p0.leader, 2, 'first live ISR replica in assignment order');
    assert.equal(p0.leaderEpoch, before.get(0)!.leaderEpoch + 1);
    assert.deepEqual(p0.isr, [2, 3]);
    const p1 = await c.state('t', 1);
    assert.equal(p1.leader, 2, 'its leader stays');
    assert.deepEqual(p1.isr, [2, 3]);
    assert.equal(
      p1.leaderEpoch,
      before.get(1)!.leaderEpoch + 1,
      'Kafka bumps the epoch on an ISR shrink too',
    );
    assert.deepEqual(await c.state('t', 2), before.get(2), 'not hosted on the dead broker: untouched');
    // The survivors hear about it, the dead broker does not.
    assert.equal(c.network.sent('LeaderAndIsr', 1).length, 0);
    for (const b of [2, 3]) {
      const um = c.network.sent('UpdateMetadata', b);
      assert.equal(um.length, 1);
      assert.deepEqual(
        um[0]!.request.liveBrokers.map((x) => x.id),
        [2, 3],
      );
      const p0um = um[0]!.request.topicStates[0]!.partitionStates.find((s) => s.partitionIndex === 0)!;
      assert.deepEqual(p0um.offlineReplicas, [1]);
      assert.equal(p0um.leader, 2);
    }
    await c.assertNoLeaderlessPartitionWithLiveIsr();
  } finally {
    await c.close();
  }
});

test('last ISR member lost: leader -1, kept in the ISR, elected again when it returns', async () => {
  const c = await TestCluster.start([1, 2]);
  try {
    await c.createTopic('solo', [[1]]);
    await c.kill(1);
    const offline = await c.state('solo', 0);
    assert.deepEqual([offline.leader, offline.isr], [-1, [1]]);
    const um = c.network.sent('UpdateMetadata', 2).at(-1)!;
    assert.deepEqual(um.request.topicStates[0]!.partitionStates[0]!.offlineReplicas, [1]);
    c.network.clear();
    const back = await c.restart(1);
    const online = await c.state('solo', 0);
    assert.deepEqual([online.leader, online.isr], [1, [1]]);
    assert.ok(online.leaderEpoch > offline.leaderEpoch);
    const toBack = c.network.sent('UpdateMetadata', 1);
    assert.equal(toBack[0]!.request.type, 2, 'a (re)joining broker gets the full metadata first');
    assert.equal(toBack[0]!.request.brokerEpoch, back.epoch);
    assert.equal(c.network.sent('LeaderAndIsr', 1).length, 1);
  } finally {
    await c.close();
  }
});

test('a restart (same id, new epoch) is a loss plus a join: leadership moves, the broker rejoins as follower', async () => {
  const c = await TestCluster.start([1, 2, 3]);
  try {
    assert.equal(c.activeController().id, 1);
    await c.createTopic('t', [[2, 3, 1]]);
    const node2 = c.nodes.get(2)!;
    // A fast restart: the new registration is all the controller sees (bounced, not dead + new).
    c.service.expireSession(node2.store);
    await node2.controller.close();
    c.nodes.delete(2);
    c.network.clear();
    const again = await c.restart(2);
    assert.ok(again.epoch > node2.epoch);
    const s = await c.state('t', 0);
    assert.equal(s.leader, 3);
    assert.deepEqual(s.isr, [3, 1], 'the restarted broker must catch up before rejoining the ISR');
    const lai = c.network.sent('LeaderAndIsr', 2);
    assert.equal(lai.length, 1);
    assert.equal(lai[0]!.request.brokerEpoch, again.epoch);
    assert.equal(lai[0]!.request.topicStates[0]!.partitionStates[0]!.leader, 3);
  } finally {
    await c.close();
  }
});

test('unclean election happens only where the topic enables it, and marks the leader as recovering', async () => {
  const c = await TestCluster.start([1, 2]);
  try {
    const strict = await c.createTopic('strict', [[1, 2]]);
    const lax = await c.createTopic('lax', [[1, 2]], { 'unclean.leader.election.enable': 'true' });
    // Broker 1 (leader) shrinks both ISRs to itself: broker 2 fell behind.
    const ctl = c.activeController();
    for (const t of [strict, lax]) {
      const s = await c.state(t.name, 0);
      const r = await ctl.controller.alterPartition({
        brokerId: 1,
        brokerEpoch: c.nodes.get(1)!.epoch,
        topics: [
          {
            topicName: t.name,
            topicId: t.topicId,
            partitions: [
              {
                partitionIndex: 0,
                leaderEpoch: s.leaderEpoch,
                newIsr: [],
                newIsrWithEpochs: [{ brokerId: 1, brokerEpoch: -1n }],
                leaderRecoveryState: 0,
                partitionEpoch: s.version,
              },
            ],
          },
        ],
      });
      assert.equal(r.topics[0]!.partitions[0]!.errorCode, 0);
    }
    await c.kill(1);
    const s = await c.state('strict', 0);
    assert.deepEqual([s.leader, s.isr, s.leaderRecoveryState], [-1, [1], 0]);
    const l = await c.state('lax', 0);
    assert.deepEqual([l.leader, l.isr, l.leaderRecoveryState], [2, [2], 1]);

    // Enabling it later (a dynamic config change) lets the waiting partition elect.
    await c.admin.setConfigs(
      { type: 'topics', name: 'strict' },
      { 'unclean.leader.election.enable': 'true' },
    );
    await c.settle();
    const s2 = await c.state('strict', 0);
    assert.deepEqual([s2.leader, s2.isr, s2.leaderRecoveryState], [2, [2], 1]);
  } finally {
    await c.close();
  }
});

test('no partition ever lacks a leader while an ISR replica is alive, through kills and restarts', async () => {
  const c = await TestCluster.start([1, 2, 3, 4]);
  try {
    for (let i = 0; i < 6; i++) {
      await c.createTopic(`t${i}`, [
        [1 + (i % 4), 1 + ((i + 1) % 4), 1 + ((i + 2) % 4)],
        [1 + ((i + 2) % 4), 1 + ((i + 3) % 4)],
        [1 + ((i + 3) % 4)],
      ]);
    }
    let seed = 42;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const down: number[] = [];
    for (let step = 0; step < 24; step++) {
      const up = [...c.nodes.keys()];
      if (down.length > 0 && (up.length <= 2 || random() < 0.5)) {
        const id = down.splice(Math.floor(random() * down.length), 1)[0]!;
        await c.restart(id);
      } else {
        const id = up[Math.floor(random() * up.length)]!;
        down.push(id);
        await c.kill(id);
      }
      assert.equal(c.active().length, 1, `step ${step}: one controller`);
      await c.assertNoLeaderlessPartitionWithLiveIsr();
    }
    assert.deepEqual(c.network.staleRefused, []);
  } finally {
    await c.close();
  }
});
