// KIP-890 verification in Produce across brokers: the data partition's leader is not the
// transactional id's coordinator, so the leader asks the coordinating broker. A transactional
// write its transaction never added is refused (INVALID_TXN_STATE, nothing appended); once
// AddPartitionsToTxn added it, the write is accepted.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Admin } from '../../src/client/index.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { addPartitionsToTxnApi } from '../../src/protocol/messages/generated/add-partitions-to-txn.js';
import { endTxnApi } from '../../src/protocol/messages/generated/end-txn.js';
import { findCoordinatorApi } from '../../src/protocol/messages/generated/find-coordinator.js';
import { initProducerIdApi } from '../../src/protocol/messages/generated/init-producer-id.js';
import { listOffsetsApi } from '../../src/protocol/messages/generated/list-offsets.js';
import { produceApi } from '../../src/protocol/messages/generated/produce.js';
import { encodeRecordBatchSync } from '../../src/protocol/record-batch/index.js';
import { startTestCluster, type TestCluster } from '../../src/testkit/index.js';
import { RawClient } from '../broker/support/raw-client.js';
import { scaled } from '../support/timeouts.js';
import { leaderOf, waitForFullIsr } from './support.js';

const TOPIC = 'verified-remote';
const TXN_ID = 'remote-verified-tx';
let cluster: TestCluster;
const clients: RawClient[] = [];

before(async () => {
  cluster = await startTestCluster({
    brokers: 2,
    mode: 'in-process',
    overrides: { 'transaction.state.log.replication.factor': 1, 'transaction.state.log.min.isr': 1 },
  });
});
after(async () => {
  for (const c of clients) c.close();
  await cluster?.close();
});

async function connect(nodeId: number): Promise<RawClient> {
  const c = await RawClient.connect(cluster.broker(nodeId).port!);
  clients.push(c);
  return c;
}

async function coordinatorOf(c: RawClient, id: string): Promise<number> {
  const deadline = Date.now() + scaled(60_000);
  for (;;) {
    const r = await c.request(findCoordinatorApi, 4, { key: '', keyType: 1, coordinatorKeys: [id] });
    const k = r.coordinators[0]!;
    if (k.errorCode === ErrorCode.NONE) return k.nodeId;
    assert.ok(Date.now() < deadline, `no coordinator for ${id}: error ${k.errorCode}`);
    await new Promise((res) => setTimeout(res, 100));
  }
}

async function endOffset(c: RawClient, partition: number): Promise<bigint> {
  const r = await c.request(listOffsetsApi, 7, {
    replicaId: -1,
    isolationLevel: 0,
    timeoutMs: 5000,
    topics: [
      {
        name: TOPIC,
        partitions: [{ partitionIndex: partition, currentLeaderEpoch: -1, timestamp: -1n, maxNumOffsets: 1 }],
      },
    ],
  });
  const p = r.topics[0]!.partitions[0]!;
  assert.equal(p.errorCode, ErrorCode.NONE);
  return p.offset;
}

test('leader ≠ coordinator: the unadded partition is refused, the added one accepted', {
  timeout: scaled(180_000),
}, async () => {
  const admin = new Admin({ bootstrapServers: cluster.bootstrap() });
  try {
    await admin.createTopics([{ name: TOPIC, numPartitions: 4, replicationFactor: 1 }]);
  } finally {
    await admin.close();
  }
  const views = await waitForFullIsr(cluster, [TOPIC]);
  const any = await connect(cluster.nodeIds[0]!);
  const coordinator = await coordinatorOf(any, TXN_ID);
  const view = views.get(coordinator)!;
  const partition = [0, 1, 2, 3].find((p) => leaderOf(view, TOPIC, p) !== coordinator);
  assert.ok(partition !== undefined, 'a partition led by the other broker');
  const leader = await connect(leaderOf(view, TOPIC, partition));
  const coord = await connect(coordinator);

  let init = await coord.request(initProducerIdApi, 4, {
    transactionalId: TXN_ID,
    transactionTimeoutMs: 60_000,
    producerId: -1n,
    producerEpoch: -1,
  });
  for (let i = 0; init.errorCode !== ErrorCode.NONE && i < scaled(100); i++) {
    await new Promise((res) => setTimeout(res, 100));
    init = await coord.request(initProducerIdApi, 4, {
      transactionalId: TXN_ID,
      transactionTimeoutMs: 60_000,
      producerId: -1n,
      producerEpoch: -1,
    });
  }
  assert.equal(init.errorCode, ErrorCode.NONE);
  const records = () =>
    encodeRecordBatchSync([{ value: Buffer.from('v') }], {
      producerId: init.producerId,
      producerEpoch: init.producerEpoch,
      baseSequence: 0,
      transactional: true,
    });
  const produce = async () => {
    const r = await leader.request(produceApi, 9, {
      transactionalId: TXN_ID,
      acks: -1,
      timeoutMs: 5000,
      topicData: [{ name: TOPIC, partitionData: [{ index: partition, records: records() }] }],
    });
    return r.responses[0]!.partitionResponses[0]!;
  };

  const before = await endOffset(leader, partition);
  const refused = await produce();
  assert.equal(refused.errorCode, ErrorCode.INVALID_TXN_STATE, String(refused.errorMessage));
  assert.equal(await endOffset(leader, partition), before);

  const added = await coord.request(addPartitionsToTxnApi, 3, {
    transactions: [],
    v3AndBelowTransactionalId: TXN_ID,
    v3AndBelowProducerId: init.producerId,
    v3AndBelowProducerEpoch: init.producerEpoch,
    v3AndBelowTopics: [{ name: TOPIC, partitions: [partition] }],
  });
  assert.equal(added.resultsByTopicV3AndBelow[0]!.resultsByPartition[0]!.partitionErrorCode, ErrorCode.NONE);
  const accepted = await produce();
  assert.equal(accepted.errorCode, ErrorCode.NONE, String(accepted.errorMessage));
  assert.equal(accepted.baseOffset, before);
  const end = await coord.request(endTxnApi, 3, {
    transactionalId: TXN_ID,
    producerId: init.producerId,
    producerEpoch: init.producerEpoch,
    committed: true,
  });
  assert.equal(end.errorCode, ErrorCode.NONE);
});
