// Controller election and failover, driven deterministically through the memory ensemble:
// exactly one active controller, epochs that only grow, a new controller that rebuilds everything
// from the store, and a deposed controller whose writes are fenced.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ErrorCode } from '../../../../src/protocol/errors.js';
import { TestCluster } from './support/cluster.js';

test('exactly one active controller; epochs strictly increase across 10 kills of the active one', async () => {
  const c = await TestCluster.start([1, 2, 3]);
  try {
    await c.createTopic('t', [
      [1, 2, 3],
      [2, 3, 1],
      [3, 1, 2],
    ]);
    let previous = c.activeController();
    assert.equal(previous.controller.epoch, 1);
    const epochs = [previous.controller.epoch];
    for (let round = 0; round < 10; round++) {
      const killed = previous.id;
      await c.kill(killed);
      const now = c.activeController();
      assert.notEqual(now.id, killed);
      assert.ok(
        now.controller.epoch > epochs.at(-1)!,
        `epoch ${now.controller.epoch} after ${epochs.at(-1)}`,
      );
      epochs.push(now.controller.epoch);
      for (const n of c.nodes.values()) assert.equal(n.controller.activeControllerId, now.id);
      await c.assertNoLeaderlessPartitionWithLiveIsr();
      await c.restart(killed);
      assert.equal(c.active().length, 1, 'a restarted broker does not take the role back');
      previous = now;
    }
    assert.deepEqual(
      epochs,
      [...epochs].sort((a, b) => a - b),
    );
    // Every request carries its sender's epoch, and brokers never had to refuse a stale one.
    assert.deepEqual(c.network.staleRefused, []);
  } finally {
    await c.close();
  }
});

test('a new controller rebuilds from the store and tells every broker everything', async () => {
  const c = await TestCluster.start([1, 2, 3]);
  try {
    await c.createTopic('a', [
      [1, 2],
      [2, 3],
    ]);
    await c.createTopic('b', [[3, 1]]);
    const old = c.activeController();
    c.network.clear();
    await c.kill(old.id);
    const now = c.activeController();
    const epoch = now.controller.epoch;
    for (const to of [...c.nodes.keys()]) {
      const um = c.network.sent('UpdateMetadata', to, now.id);
      assert.ok(um.length > 0, `UpdateMetadata to ${to}`);
      const full = um.find((r) => r.request.type === 2);
      assert.ok(full, `a full UpdateMetadata to ${to}`);
      assert.equal(full.request.controllerEpoch, epoch);
      assert.deepEqual(full.request.liveBrokers.map((b) => b.id).sort(), [...c.nodes.keys()].sort());
      assert.deepEqual(full.request.topicStates.map((t) => t.topicName).sort(), ['a', 'b']);
      const lai = c.network.sent('LeaderAndIsr', to, now.id);
      assert.equal(lai.length, 1, `one LeaderAndIsr to broker ${to} for the whole failover`);
    }
    await c.assertNoLeaderlessPartitionWithLiveIsr();
  } finally {
    await c.close();
  }
});

test('a deposed controller that has not noticed yet is fenced by the store and stops acting', async () => {
  const c = await TestCluster.start([1, 2, 3]);
  try {
    const t = await c.createTopic('t', [[1, 2, 3]]);
    const zombie = c.activeController();
    const before = await c.state('t', 0);
    // Another controller is elected behind the zombie's back (its watch has not fired yet).
    const epoch = zombie.controller.epoch;
    await c.admin.resignController({ nodeId: zombie.id, epoch, epochVersion: epoch });
    const usurper = (await c.admin.tryElectController(99))!;
    assert.equal(usurper.epoch, epoch + 1);
    assert.ok(zombie.controller.isActive, 'the zombie still believes it is the controller');
    c.network.clear();
    const response = await zombie.controller.alterPartition({
      brokerId: before.leader,
      brokerEpoch: c.nodes.get(before.leader)!.epoch,
      topics: [
        {
          topicName: 't',
          topicId: t.topicId,
          partitions: [
            {
              partitionIndex: 0,
              leaderEpoch: before.leaderEpoch,
              newIsr: [],
              newIsrWithEpochs: [{ brokerId: before.leader, brokerEpoch: -1n }],
              leaderRecoveryState: 0,
              partitionEpoch: before.version,
            },
          ],
        },
      ],
    });
    assert.equal(response.errorCode, ErrorCode.NOT_CONTROLLER);
    assert.equal(zombie.controller.isActive, false, 'a fenced write deposes at once');
    assert.deepEqual(await c.state('t', 0), before, 'nothing written under the stale epoch');
    assert.deepEqual(
      c.network.sent('LeaderAndIsr', undefined, zombie.id),
      [],
      'nothing sent after being fenced',
    );
    await c.admin.resignController(usurper);
    await c.settle();
    const next = c.activeController();
    assert.ok(next.controller.epoch > usurper.epoch);
  } finally {
    await c.close();
  }
});

test('session expiry of the controller: it resigns at once and someone (maybe itself) is elected', async () => {
  const c = await TestCluster.start([1, 2]);
  try {
    const first = c.activeController();
    c.service.expireSession(first.store);
    // Its broker registration went with the session: re-register as the broker would.
    await first.store.registerBroker({
      nodeId: first.id,
      host: `broker${first.id}`,
      port: 9090 + first.id,
      rack: null,
      endpoints: [],
    });
    await c.settle();
    const now = c.activeController();
    assert.ok(now.controller.epoch > 1);
    assert.equal(c.active().length, 1);
  } finally {
    await c.close();
  }
});

test('requests to a broker that is not the controller: NOT_CONTROLLER (ControlledShutdown: STALE_CONTROLLER_EPOCH)', async () => {
  const c = await TestCluster.start([1, 2]);
  try {
    const follower = [...c.nodes.values()].find((n) => !n.controller.isActive)!;
    await assert.rejects(follower.controller.controlledShutdown(1, -1n), {
      code: ErrorCode.STALE_CONTROLLER_EPOCH,
    });
    const r = await follower.controller.alterPartition({ brokerId: 1, brokerEpoch: 0n, topics: [] });
    assert.equal(r.errorCode, ErrorCode.NOT_CONTROLLER);
    const e = await follower.controller.electLeaders(true, [{ topic: 'x', partition: 0 }]);
    assert.equal(e[0]!.errorCode, ErrorCode.NOT_CONTROLLER);
  } finally {
    await c.close();
  }
});
