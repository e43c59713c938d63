// Each replica's own log end offset, as tools ask for it: ListOffsets (latest) with replica id -2
// (Kafka's DEBUGGING_REPLICA_ID) is answered by followers too, up to their own log end, while a
// consumer's ListOffsets (replica id -1) to a follower is refused. Admin.replicaLogEndOffsets asks
// every replica's broker; a broker that is down leaves null.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Admin, Producer } from '../../src/client/index.js';
import { BrokerLink } from '../../src/net/index.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { listOffsetsApi } from '../../src/protocol/messages/generated/list-offsets.js';
import { startTestCluster, type TestCluster } from '../../src/testkit/index.js';

let cluster: TestCluster;
const TOPIC = 'replica-ends';

before(async () => {
  cluster = await startTestCluster({ brokers: 2, mode: 'in-process' });
});
after(async () => {
  await cluster?.close();
});

async function latest(nodeId: number, replicaId: number) {
  const link = new BrokerLink(nodeId, '127.0.0.1', cluster.broker(nodeId).port!, {
    clientId: 'replica-ends',
  });
  try {
    const r = await link.request(listOffsetsApi, {
      replicaId,
      isolationLevel: 0,
      topics: [
        {
          name: TOPIC,
          partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -1n, maxNumOffsets: 1 }],
        },
      ],
      timeoutMs: 30_000,
    });
    return r.topics[0]!.partitions[0]!;
  } finally {
    link.close();
  }
}

test("ListOffsets with replica id -2 gives each replica's log end; replica id -1 only on the leader", async () => {
  const admin = new Admin({ bootstrapServers: cluster.bootstrap() });
  try {
    await admin.createTopics([{ name: TOPIC, numPartitions: 1, replicationFactor: 2 }]);
    const producer = new Producer({ bootstrapServers: cluster.bootstrap(), acks: -1 });
    try {
      for (let i = 0; i < 5; i++) await producer.send({ topic: TOPIC, partition: 0, value: `v${i}` });
    } finally {
      await producer.close();
    }
    const [desc] = await admin.describeTopics([TOPIC]);
    const p = desc!.partitions[0]!;
    const follower = p.replicas.find((b) => b !== p.leader)!;
    // acks=all: both replicas have the five records.
    const ends = await admin.replicaLogEndOffsets([{ topic: TOPIC, partition: 0, replicas: p.replicas }]);
    assert.deepEqual(
      ends.map((e) => [e.broker, e.logEndOffset]).sort(),
      p.replicas.map((b) => [b, 5n]).sort(),
    );
    const asConsumer = await latest(follower, -1);
    assert.equal(asConsumer.errorCode, ErrorCode.NOT_LEADER_OR_FOLLOWER);
    const asDebugger = await latest(follower, -2);
    assert.equal(asDebugger.errorCode, ErrorCode.NONE);
    assert.equal(asDebugger.offset, 5n);

    await cluster.stop(follower);
    const ends2 = await admin.replicaLogEndOffsets([{ topic: TOPIC, partition: 0, replicas: p.replicas }]);
    assert.equal(
      ends2.find((e) => e.broker === follower)!.logEndOffset,
      null,
      'a stopped broker leaves null',
    );
    assert.equal(ends2.find((e) => e.broker === p.leader)!.logEndOffset, 5n);
  } finally {
    await admin.close();
  }
});
