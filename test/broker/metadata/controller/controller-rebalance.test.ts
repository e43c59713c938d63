// Automatic preferred-leader rebalance: Kafka's per-broker imbalance ratio against
// leader.imbalance.per.broker.percentage (pure, on a hand-built context), and the active
// controller's timer moving a leadership back once the preferred replica is in sync (memory
// store, mock clock).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ControllerContext } from '../../../../src/broker/metadata/controller/controller-context.js';
import {
  FIRST_CHECK_DELAY_MS,
  partitionsToRebalance,
} from '../../../../src/broker/metadata/controller/leader-rebalance.js';
import type { BrokerInfo } from '../../../../src/broker/metadata/store/records.js';
import type { AlterPartitionRequest } from '../../../../src/protocol/messages/generated/alter-partition.js';
import { TestCluster } from './support/cluster.js';

function context(
  assignment: number[][],
  leaders: number[],
  isrs: number[][],
  live: number[],
): ControllerContext {
  const ctx = new ControllerContext();
  for (const id of live) ctx.liveBrokers.set(id, { nodeId: id, epoch: 1n } as BrokerInfo);
  ctx.topics.set('t', { name: 't', topicId: 'AAAAAAAAAAAAAAAAAAAAAA', partitions: assignment });
  leaders.forEach((leader, p) => {
    ctx.setState('t', p, {
      leader,
      leaderEpoch: 1,
      isr: isrs[p]!,
      controllerEpoch: 1,
      leaderRecoveryState: 0,
      version: 1,
    });
  });
  return ctx;
}

test('imbalance: a broker above the percentage gets back the partitions it can lead', () => {
  // Broker 1 prefers 10 partitions; 1 is led by 2 → 10 %, not above 10 %.
  const assignment = Array.from({ length: 10 }, () => [1, 2]);
  const leaders = [2, ...Array(9).fill(1)];
  const isrs = assignment.map(() => [1, 2]);
  assert.deepEqual(partitionsToRebalance(context(assignment, leaders, isrs, [1, 2]), 10), []);
  // Two of ten (20 %): both elected back...
  const two = [2, 2, ...Array(8).fill(1)];
  assert.deepEqual(
    partitionsToRebalance(context(assignment, two, isrs, [1, 2]), 10).map((tp) => tp.partition),
    [0, 1],
  );
  // ...except one whose preferred replica is not in its ISR.
  const notInSync = isrs.map((isr, p) => (p === 1 ? [2] : isr));
  assert.deepEqual(
    partitionsToRebalance(context(assignment, two, notInSync, [1, 2]), 10).map((tp) => tp.partition),
    [0],
  );
  // A broker that is not online cannot take anything back.
  assert.deepEqual(partitionsToRebalance(context(assignment, two, isrs, [2]), 10), []);
  // 0 % tolerates nothing.
  assert.deepEqual(
    partitionsToRebalance(context(assignment, leaders, isrs, [1, 2]), 0).map((tp) => tp.partition),
    [0],
  );
});

test('the active controller moves a leadership back to its preferred replica on its timer', async () => {
  const c = await TestCluster.start([1, 2, 3]);
  try {
    const t = await c.createTopic('t', [
      [1, 2, 3],
      [2, 3, 1],
    ]);
    await c.kill(1);
    await c.restart(1);
    let s = await c.state('t', 0);
    assert.deepEqual([s.leader, s.isr.includes(1)], [2, false], 'led elsewhere, 1 not in sync yet');
    // The check runs, but broker 1 is not in sync: nothing moves.
    c.clock.advance(FIRST_CHECK_DELAY_MS);
    await c.settle();
    assert.equal((await c.state('t', 0)).leader, 2);
    // The leader takes 1 back into the ISR; the next check (300 s later) moves leadership.
    const req: AlterPartitionRequest = {
      brokerId: 2,
      brokerEpoch: c.nodes.get(2)!.epoch,
      topics: [
        {
          topicName: 't',
          topicId: t.topicId,
          partitions: [
            {
              partitionIndex: 0,
              leaderEpoch: s.leaderEpoch,
              newIsr: [],
              newIsrWithEpochs: [...s.isr, 1].map((brokerId) => ({ brokerId, brokerEpoch: -1n })),
              leaderRecoveryState: 0,
              partitionEpoch: s.version,
            },
          ],
        },
      ],
    };
    await c.activeController().controller.alterPartition(req, 3);
    await c.settle();
    c.clock.advance(299_000);
    await c.settle();
    assert.equal((await c.state('t', 0)).leader, 2, 'not before the interval');
    c.clock.advance(1_000);
    await c.settle();
    s = await c.state('t', 0);
    assert.equal(s.leader, 1, 'back on the preferred replica');
    assert.equal((await c.state('t', 1)).leader, 2, 'the other partition untouched');
  } finally {
    await c.close();
  }
});
