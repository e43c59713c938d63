// Idempotent produce on the wire (a raw connection standing in for a client whose response
// was lost): the same batch sent twice lands once and both answers carry the same offset; a
// sequence gap is OUT_OF_ORDER_SEQUENCE_NUMBER; an epoch older than the partition's is
// INVALID_PRODUCER_EPOCH. The producer state survives a clean restart (snapshot) and a
// SIGKILL (log scan): a retry of the last batch after either is still recognised.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ErrorCode } from '../../src/protocol/errors.js';
import { createTopicsApi } from '../../src/protocol/messages/generated/create-topics.js';
import { initProducerIdApi } from '../../src/protocol/messages/generated/init-producer-id.js';
import { type ProduceResponse, produceApi } from '../../src/protocol/messages/generated/produce.js';
import { encodeRecordBatchSync } from '../../src/protocol/record-batch/encode.js';
import { RawClient } from '../broker/support/raw-client.js';
import { latestOffsets } from '../broker/txn/interop-support.js';
import { BrokerProcess } from './support/groups-broker.js';

let broker: BrokerProcess;
let client: RawClient;

function batch(
  producerId: bigint,
  producerEpoch: number,
  baseSequence: number,
  n: number,
  tag: string,
): Buffer {
  const records = Array.from({ length: n }, (_, i) => ({
    key: Buffer.from(`${tag}-${i}`),
    value: Buffer.from(`${tag}-${i}`),
  }));
  return encodeRecordBatchSync(records, { producerId, producerEpoch, baseSequence });
}

async function produce(records: Buffer): Promise<{ errorCode: number; baseOffset: bigint }> {
  const res: ProduceResponse = await client.request(produceApi, 8, {
    transactionalId: null,
    acks: -1,
    timeoutMs: 5000,
    topicData: [{ name: 'idem', partitionData: [{ index: 0, records }] }],
  });
  const p = res.responses[0]!.partitionResponses[0]!;
  return { errorCode: p.errorCode, baseOffset: p.baseOffset };
}

async function initProducerId(
  transactionalId: string | null,
): Promise<{ producerId: bigint; producerEpoch: number }> {
  const r = await client.request(initProducerIdApi, 4, {
    transactionalId,
    transactionTimeoutMs: 60_000,
    producerId: -1n,
    producerEpoch: -1,
  });
  assert.equal(r.errorCode, ErrorCode.NONE);
  return r;
}

async function restart(signal: 'SIGTERM' | 'SIGKILL'): Promise<void> {
  client.close();
  await broker.stop(signal);
  await broker.start();
  client = await RawClient.connect(broker.port);
}

before(async () => {
  broker = await BrokerProcess.create();
  await broker.start();
  client = await RawClient.connect(broker.port);
  const r = await client.request(createTopicsApi, 5, {
    topics: [{ name: 'idem', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }],
    timeoutMs: 5000,
    validateOnly: false,
  });
  assert.equal(r.topics[0]?.errorCode, ErrorCode.NONE);
});

after(async () => {
  client?.close();
  await broker.destroy();
});

test('a repeated batch lands once with the original offset; gaps and old epochs are rejected', {
  timeout: 60_000,
}, async () => {
  const { producerId } = await initProducerId(null);
  const first = batch(producerId, 0, 0, 5, 'a');
  const a1 = await produce(Buffer.from(first));
  assert.deepEqual(a1, { errorCode: ErrorCode.NONE, baseOffset: 0n });
  const a2 = await produce(Buffer.from(first));
  assert.deepEqual(
    a2,
    { errorCode: ErrorCode.NONE, baseOffset: 0n },
    'the lost-response retry gets the same offset',
  );
  const b = await produce(batch(producerId, 0, 5, 3, 'b'));
  assert.deepEqual(b, { errorCode: ErrorCode.NONE, baseOffset: 5n });
  // An older retained batch is still a duplicate (5 are kept per producer).
  assert.deepEqual(await produce(Buffer.from(first)), { errorCode: ErrorCode.NONE, baseOffset: 0n });
  assert.equal(
    (await produce(batch(producerId, 0, 10, 1, 'gap'))).errorCode,
    ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER,
  );
  assert.equal(
    (await produce(batch(producerId, 1, 3, 1, 'new-epoch'))).errorCode,
    ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER,
    'a new epoch starts at 0',
  );
  assert.deepEqual(await produce(batch(producerId, 1, 0, 2, 'c')), {
    errorCode: ErrorCode.NONE,
    baseOffset: 8n,
  });
  assert.equal(
    (await produce(batch(producerId, 0, 8, 1, 'zombie'))).errorCode,
    ErrorCode.INVALID_PRODUCER_EPOCH,
  );
  assert.deepEqual(await latestOffsets(broker.port, 'idem', 0), { hw: 10n, lso: 10n });
});

for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
  test(`producer state survives a ${signal === 'SIGTERM' ? 'clean restart (snapshot)' : 'SIGKILL (log scan)'}`, {
    timeout: 60_000,
  }, async () => {
    const { producerId } = await initProducerId(null);
    const start = (await latestOffsets(broker.port, 'idem', 0)).hw;
    assert.deepEqual(await produce(batch(producerId, 0, 0, 4, 'x')), {
      errorCode: ErrorCode.NONE,
      baseOffset: start,
    });
    const last = batch(producerId, 0, 4, 4, 'y');
    assert.deepEqual(await produce(Buffer.from(last)), { errorCode: ErrorCode.NONE, baseOffset: start + 4n });
    await restart(signal);
    assert.deepEqual(
      await produce(Buffer.from(last)),
      { errorCode: ErrorCode.NONE, baseOffset: start + 4n },
      'retry after restart',
    );
    assert.equal(
      (await produce(batch(producerId, 0, 9, 1, 'gap'))).errorCode,
      ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER,
    );
    assert.deepEqual(await produce(batch(producerId, 0, 8, 1, 'z')), {
      errorCode: ErrorCode.NONE,
      baseOffset: start + 8n,
    });
    // Producer ids come from durable blocks: a new one never repeats an old one.
    assert.ok((await initProducerId(null)).producerId > producerId);
  });
}
