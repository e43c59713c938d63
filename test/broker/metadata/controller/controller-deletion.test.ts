// Topic deletion as Kafka's TopicDeletionManager does it: brokers' caches told at once (leader
// -2), live replicas deleted with StopReplica, the topic removed from the store only when every
// replica confirmed — waiting for offline brokers, retrying failures, surviving controller changes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ErrorCode } from '../../../../src/protocol/errors.js';
import { TestCluster } from './support/cluster.js';

function deletesTo(c: TestCluster, b: number): [number, boolean, number][] {
  return c.network
    .sent('StopReplica', b)
    .flatMap((r) =>
      r.request.topicStates.flatMap((ts) =>
        ts.partitionStates.map((p): [number, boolean, number] => [
          p.partitionIndex,
          p.deletePartition,
          p.leaderEpoch,
        ]),
      ),
    );
}

test('topic deletion: caches told at once, live replicas deleted, completion waits for an offline replica', async () => {
  const c = await TestCluster.start([1, 2, 3]);
  try {
    const t = await c.createTopic('doomed', [
      [1, 2],
      [2, 3],
    ]);
    await c.kill(3);
    c.network.clear();
    await c.admin.requestTopicDeletion('doomed');
    await c.settle();
    for (const b of [1, 2]) {
      const um = c.network.sent('UpdateMetadata', b);
      assert.ok(
        um.some((r) =>
          r.request.topicStates.some(
            (ts) => ts.topicId === t.topicId && ts.partitionStates.every((p) => p.leader === -2),
          ),
        ),
        `broker ${b} told the topic is being deleted`,
      );
    }
    const deletes = (b: number) => deletesTo(c, b);
    assert.deepEqual(deletes(1), [[0, true, -2]]);
    assert.deepEqual(deletes(2).sort(), [
      [0, true, -2],
      [1, true, -2],
    ]);
    assert.deepEqual(await c.admin.topicNames(), ['doomed'], 'broker 3 still holds a replica');
    assert.deepEqual(await c.admin.pendingTopicDeletions(), ['doomed']);

    c.network.clear();
    await c.restart(3);
    assert.deepEqual(deletes(3), [[1, true, -2]]);
    assert.deepEqual(await c.admin.topicNames(), []);
    assert.deepEqual(await c.admin.pendingTopicDeletions(), []);
    assert.ok(
      c.network
        .sent('UpdateMetadata', 1)
        .some((r) =>
          r.request.topicStates.some(
            (ts) => ts.topicName === 'doomed' && ts.partitionStates.every((p) => p.leader === -2),
          ),
        ),
      'after completion the caches are told once more',
    );
  } finally {
    await c.close();
  }
});

test('a replica that fails to delete is retried when its broker re-registers', async () => {
  const c = await TestCluster.start([1, 2]);
  try {
    await c.createTopic('d', [[1, 2]]);
    c.network.stopReplicaError = (to) => (to === 2 ? ErrorCode.KAFKA_STORAGE_ERROR : 0);
    await c.admin.requestTopicDeletion('d');
    await c.settle();
    assert.deepEqual(await c.admin.topicNames(), ['d']);
    c.network.stopReplicaError = () => 0;
    await c.kill(2);
    await c.restart(2);
    assert.deepEqual(await c.admin.topicNames(), []);
  } finally {
    await c.close();
  }
});

test('a pending deletion survives a controller failover and completes when the offline broker returns', async () => {
  const c = await TestCluster.start([1, 2, 3]);
  try {
    await c.createTopic('doomed', [[2, 3]]);
    await c.kill(3);
    await c.admin.requestTopicDeletion('doomed');
    await c.settle();
    assert.deepEqual(await c.admin.pendingTopicDeletions(), ['doomed']);
    const first = c.activeController();
    await c.kill(first.id);
    c.network.clear();
    await c.restart(3);
    assert.deepEqual(await c.admin.topicNames(), []);
    assert.deepEqual(await c.admin.pendingTopicDeletions(), []);
    assert.deepEqual(deletesTo(c, 3), [[0, true, -2]]);
  } finally {
    await c.close();
  }
});

test('partitions are not added to a topic being deleted: the assignment is put back', async () => {
  const c = await TestCluster.start([1, 2]);
  try {
    const t = await c.createTopic('d', [[1, 2]]);
    await c.kill(2);
    await c.admin.requestTopicDeletion('d');
    await c.settle();
    await c.admin.setAssignment({ ...t, partitions: [...t.partitions, [1, 2]] });
    await c.settle();
    const [a] = await c.admin.assignments(['d']);
    assert.deepEqual(a!.partitions, [[1, 2]]);
    assert.equal((await c.admin.partitionStates('d')).size, 1);
  } finally {
    await c.close();
  }
});
