// Partition reassignment under load on a four-broker cluster (brokers as processes, real
// ZooKeeper): a topic on brokers {1,2,3} moves to {2,3,4} while an idempotent acks=all producer
// writes and a consumer reads. Broker 4 is frozen (SIGSTOP) while the move starts, so that the
// in-progress state is observable whatever the machine's speed: ListPartitionReassignments lists
// it and the topic znode (version 3) holds adding_replicas/removing_replicas. Once broker 4 runs
// again the move completes: the list and the znode's extra fields are empty, leadership left
// broker 1, broker 1 deleted its logs, and every acknowledged record was read exactly once.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Admin, Consumer, Producer } from '../../src/client/index.js';
import { startTestCluster, type TestCluster } from '../../src/testkit/cluster.js';
import { scaled, TestTimeoutError } from '../support/timeouts.js';
import { hostsLog, producePaced, topicZnode } from './reassignment-support.js';
import { controllerZnodes, leaderOf, sleep, waitFor, waitForFullIsr, waitForViews } from './support.js';

const TOPIC = 'moving';
const FROM: Record<number, number[]> = { 0: [1, 2, 3], 1: [2, 3, 1], 2: [3, 1, 2] };
const TO: Record<number, number[]> = { 0: [2, 3, 4], 1: [3, 4, 2], 2: [4, 2, 3] };
const PARTITIONS = [0, 1, 2];

let cluster: TestCluster;

before(async () => {
  cluster = await startTestCluster({
    brokers: 4,
    sessionTimeoutMs: 10_000,
    // Leadership moves here only because of the reassignment.
    overrides: { 'auto.leader.rebalance.enable': false },
  });
});
after(async () => {
  await cluster?.close();
});

test('reassignment {1,2,3} → {2,3,4} under load: observable in progress, completes, nothing lost or duplicated', {
  timeout: scaled(420_000),
}, async () => {
  // The move is started on the controller; broker 4 will be frozen, so it must not be that one.
  if ((await controllerZnodes(cluster)).controllerId === 4) {
    await cluster.stop(4);
    await cluster.restart(4);
  }
  const bootstrap = [1, 2, 3].map((id) => cluster.broker(id).bootstrap!).join(',');
  const admin = new Admin({ bootstrapServers: bootstrap });
  const producer = new Producer({ bootstrapServers: bootstrap, acks: 'all', lingerMs: 5 });
  const consumer = new Consumer({ bootstrapServers: bootstrap });
  const consumed = new Map<string, number>();
  let reading = true;
  let reader: Promise<void> = Promise.resolve();
  try {
    await admin.createTopics([{ name: TOPIC, replicaAssignment: FROM }]);
    await waitForFullIsr(cluster, [TOPIC]);
    const tps = PARTITIONS.map((partition) => ({ topic: TOPIC, partition }));
    consumer.assign(tps);
    consumer.seekToBeginning(tps);
    reader = (async () => {
      while (reading)
        for (const r of await consumer.poll(200)) {
          const v = r.value!.toString();
          consumed.set(v, (consumed.get(v) ?? 0) + 1);
        }
    })();
    const load = producePaced(producer, TOPIC, PARTITIONS.length, 'r', 20);
    await waitFor('the first records acknowledged', () => load.acked.length >= 100, 120_000);

    // Frozen, broker 4 cannot join any ISR: the move stays in phase A until it runs again.
    cluster.pause(4);
    try {
      await admin.alterPartitionReassignments(
        PARTITIONS.map((p) => ({ topic: TOPIC, partition: p, replicas: TO[p]! })),
      );
      const listed = await admin.listPartitionReassignments();
      assert.deepEqual(
        listed.map((r) => [r.partition, r.replicas, r.addingReplicas, r.removingReplicas]).sort(),
        PARTITIONS.map((p) => [p, [...TO[p]!, 1], [4], [1]]),
        'in progress: RS = target then the leaving replica, adding 4, removing 1',
      );
      const z = await topicZnode(cluster, TOPIC);
      assert.equal(z.version, 3);
      assert.ok(z.topicId !== null, 'topic_id kept');
      for (const p of PARTITIONS)
        assert.deepEqual(z.partitions.get(p), { replicas: [...TO[p]!, 1], adding: [4], removing: [1] });
    } finally {
      cluster.resume(4);
    }

    const ms = scaled(180_000);
    const deadline = Date.now() + ms;
    let listed = await admin.listPartitionReassignments();
    while (listed.length > 0) {
      if (Date.now() > deadline)
        throw new TestTimeoutError('the reassignment to complete', ms, JSON.stringify(listed));
      await sleep(250);
      listed = await admin.listPartitionReassignments();
    }
    const z = await topicZnode(cluster, TOPIC);
    for (const p of PARTITIONS)
      assert.deepEqual(z.partitions.get(p), { replicas: TO[p]!, adding: [], removing: [] }, `znode of ${p}`);
    await waitForViews(cluster, 'every broker sees the new replicas, led from them', (v) =>
      PARTITIONS.every((p) => {
        const part = v.topics.get(TOPIC)?.[p];
        return (
          part !== undefined &&
          JSON.stringify(part.replicas) === JSON.stringify(TO[p]) &&
          TO[p]!.includes(leaderOf(v, TOPIC, p)) &&
          [...part.isr].sort().join() === [...TO[p]!].sort().join()
        );
      }),
    );
    // More writes on the new replicas, then everything acknowledged must be read once.
    const ackedAtMove = load.acked.length;
    await waitFor(
      'records acknowledged after the move',
      () => load.acked.length >= ackedAtMove + 100,
      120_000,
    );
    await load.stop();
    assert.deepEqual(load.failed, [], 'no send failed');
    await waitFor(
      'every acknowledged record read',
      () => load.acked.every((v) => consumed.has(v)),
      120_000,
      () => `${load.acked.filter((v) => !consumed.has(v)).length} of ${load.acked.length} missing`,
    );
    const twice = [...consumed].filter(([, n]) => n > 1).map(([v]) => v);
    assert.deepEqual(twice.slice(0, 10), [], 'no record read twice');
    await waitFor('broker 1 deleted its logs of the topic', () =>
      PARTITIONS.every((p) => !hostsLog(cluster, 1, TOPIC, p)),
    );
    for (const p of PARTITIONS) assert.ok(hostsLog(cluster, 4, TOPIC, p), `broker 4 holds ${TOPIC}-${p}`);
  } finally {
    reading = false;
    await reader.catch(() => {});
    await consumer.close();
    await producer.close();
    await admin.close();
  }
});
