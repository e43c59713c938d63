// ElectLeaders(UNCLEAN) on the controller (memory store): a leaderless partition whose only
// in-sync replica is gone gets an out-of-sync leader although the topic does not enable unclean
// election (the admin asked, as Kafka's AdminClientTriggered), marked as recovering (KIP-704);
// partitions with a live leader need nothing; with no live replica there is no eligible leader.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ErrorCode } from '../../../../src/protocol/errors.js';
import { TestCluster } from './support/cluster.js';

test('unclean ElectLeaders: only where the leader is gone, with Kafka’s per-partition codes', async () => {
  // Broker 4 hosts nothing: it stays to be the controller.
  const c = await TestCluster.start([1, 2, 3, 4]);
  try {
    const t = await c.createTopic('t', [
      [1, 2],
      [3, 2],
    ]);
    // Broker 1 leads partition 0 and shrinks its ISR to itself; then it dies.
    const s = await c.state('t', 0);
    await c.activeController().controller.alterPartition(
      {
        brokerId: 1,
        brokerEpoch: c.nodes.get(1)!.epoch,
        topics: [
          {
            topicName: 't',
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
      },
      3,
    );
    await c.settle();
    await c.kill(1);
    const offline = await c.state('t', 0);
    assert.deepEqual(
      [offline.leader, offline.isr],
      [-1, [1]],
      'no clean leader: the topic does not allow unclean',
    );

    const ctl = c.activeController().controller;
    const r = await ctl.electLeaders(false, [
      { topic: 't', partition: 0 },
      { topic: 't', partition: 1 },
    ]);
    assert.deepEqual(
      r.map((o) => [o.partition, o.errorCode, o.leader]),
      [
        [0, ErrorCode.NONE, 2],
        [1, ErrorCode.ELECTION_NOT_NEEDED, 3],
      ],
    );
    const after = await c.state('t', 0);
    assert.deepEqual([after.leader, after.isr, after.leaderRecoveryState], [2, [2], 1]);

    // Both replicas of partition 1 gone: nobody to elect.
    await c.kill(3);
    await c.kill(2);
    const none = await c.activeController().controller.electLeaders(false, [{ topic: 't', partition: 1 }]);
    assert.equal(none[0]!.errorCode, ErrorCode.ELIGIBLE_LEADERS_NOT_AVAILABLE);
  } finally {
    await c.close();
  }
});
