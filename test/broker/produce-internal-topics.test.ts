// Clients may not produce to the internal topics (__consumer_offsets, __transaction_state):
// Kafka's ReplicaManager refuses the append with INVALID_TOPIC_EXCEPTION unless the client id
// is `__admin_client`, after the request-level record checks. Raw sockets against a real
// broker; the internal partitions must not grow.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ErrorCode } from '../../src/protocol/errors.js';
import { decodeResponse } from '../../src/protocol/messages/frame.js';
import { findCoordinatorApi } from '../../src/protocol/messages/generated/find-coordinator.js';
import { type ProduceRequest, produceApi } from '../../src/protocol/messages/generated/produce.js';
import { encodeRecordBatchSync } from '../../src/protocol/record-batch/index.js';
import { startTestBroker, type TestBroker } from '../../src/testkit/index.js';
import { RawClient } from './support/raw-client.js';
import { createTopic, fetchAll } from './support/wire.js';

let broker: TestBroker;
let c: RawClient;

before(async () => {
  broker = await startTestBroker();
  c = await RawClient.connect(broker.port);
  assert.equal(await createTopic(c, 'plain'), 0);
  // The coordinators create their topics on the first FindCoordinator; wait until both answer.
  for (const keyType of [0, 1]) {
    for (let i = 0; ; i++) {
      const r = await c.request(findCoordinatorApi, 4, { key: '', keyType, coordinatorKeys: ['k'] });
      if (r.coordinators[0]?.errorCode === ErrorCode.NONE) break;
      assert.ok(i < 100, `coordinator of key type ${keyType} not available`);
      await new Promise((res) => setTimeout(res, 50));
    }
  }
});
after(async () => {
  c.close();
  await broker.close();
});

const batch = (): Buffer => encodeRecordBatchSync([{ key: Buffer.from('k'), value: Buffer.from('v') }]);

/** Produce v9 with the given client id; partition responses in request order. */
async function produceAs(clientId: string, topics: ProduceRequest['topicData']) {
  const id = c.sendRequest(
    produceApi,
    9,
    { transactionalId: null, acks: 1, timeoutMs: 5000, topicData: topics },
    clientId,
  );
  const frame = await c.nextFrame();
  assert.ok(frame, 'a produce response');
  const { correlationId, body } = decodeResponse(produceApi, 9, frame);
  assert.equal(correlationId, id);
  return body.responses.flatMap((t) => t.partitionResponses.map((p) => ({ topic: t.name, ...p })));
}

const endOf = async (topic: string, partition: number) => (await fetchAll(c, topic, partition)).length;

for (const topic of ['__consumer_offsets', '__transaction_state']) {
  test(`a client's Produce to ${topic} is refused with INVALID_TOPIC_EXCEPTION`, async () => {
    const before = await endOf(topic, 3);
    const [r] = await produceAs('raw-test', [
      { name: topic, partitionData: [{ index: 3, records: batch() }] },
    ]);
    assert.equal(r?.errorCode, ErrorCode.INVALID_TOPIC_EXCEPTION);
    assert.equal(r?.errorMessage, `Cannot append to internal topic ${topic}`);
    assert.equal(r?.baseOffset, -1n);
    assert.equal(await endOf(topic, 3), before, 'nothing appended');
  });
}

test('the refusal is per partition: other topics of the same request are written', async () => {
  const rs = await produceAs('raw-test', [
    { name: 'plain', partitionData: [{ index: 0, records: batch() }] },
    { name: '__consumer_offsets', partitionData: [{ index: 0, records: batch() }] },
  ]);
  assert.deepEqual(
    rs.map((r) => [r.topic, r.errorCode]),
    [
      ['plain', ErrorCode.NONE],
      ['__consumer_offsets', ErrorCode.INVALID_TOPIC_EXCEPTION],
    ],
  );
  assert.equal(await endOf('plain', 0), 1);
});

test('record checks come first, as in Kafka (validateRecords before the append)', async () => {
  const bad = batch();
  bad.writeInt8(1, 16); // magic 1
  const [r] = await produceAs('raw-test', [
    { name: '__consumer_offsets', partitionData: [{ index: 1, records: bad }] },
  ]);
  assert.equal(r?.errorCode, ErrorCode.INVALID_RECORD);
});

test('a nonexistent partition of an internal topic answers UNKNOWN_TOPIC_OR_PARTITION', async () => {
  const [r] = await produceAs('raw-test', [
    { name: '__consumer_offsets', partitionData: [{ index: 999, records: batch() }] },
  ]);
  assert.equal(r?.errorCode, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
});

test('the __admin_client client id may write an internal topic (Kafka tooling)', async () => {
  const before = await endOf('__transaction_state', 7);
  const [r] = await produceAs('__admin_client', [
    { name: '__transaction_state', partitionData: [{ index: 7, records: batch() }] },
  ]);
  assert.equal(r?.errorCode, ErrorCode.NONE);
  assert.equal(await endOf('__transaction_state', 7), before + 1);
});
