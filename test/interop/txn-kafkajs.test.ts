// kafkajs 2.2.4 transactions: send + sendOffsets committed and aborted; a read_committed
// kafkajs consumer sees only committed records; offsets sent in a transaction are invisible
// until it commits (OffsetFetch RequireStable answers UNSTABLE_OFFSET_COMMIT meanwhile, and
// an abort drops them); the admin APIs (DescribeTransactions, ListTransactions,
// DescribeProducers) report the transaction while it is open.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Kafka, logLevel } from 'kafkajs';
import { ErrorCode } from '../../src/protocol/errors.js';
import { describeProducersApi } from '../../src/protocol/messages/generated/describe-producers.js';
import { describeTransactionsApi } from '../../src/protocol/messages/generated/describe-transactions.js';
import { listTransactionsApi } from '../../src/protocol/messages/generated/list-transactions.js';
import { offsetFetchApi } from '../../src/protocol/messages/generated/offset-fetch.js';
import { startTestBroker, type TestBroker } from '../../src/testkit/index.js';
import { RawClient } from '../broker/support/raw-client.js';
import { kcatRead, waitFor } from '../broker/txn/interop-support.js';

let broker: TestBroker;
let kafka: Kafka;

before(async () => {
  broker = await startTestBroker({ overrides: { 'group.initial.rebalance.delay.ms': 0 } });
  kafka = new Kafka({ brokers: [broker.bootstrap], logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: ['kjs-in', 'kjs-out'].map((topic) => ({ topic, numPartitions: 2 })) });
  await admin.disconnect();
});

after(async () => {
  await broker.close();
});

async function fetchOffset(
  raw: RawClient,
  requireStable: boolean,
): Promise<{ errorCode: number; offset: bigint }> {
  const r = await raw.request(offsetFetchApi, 7, {
    groupId: 'kjs-group',
    topics: [{ name: 'kjs-in', partitionIndexes: [0] }],
    groups: [],
    requireStable,
  });
  const p = r.topics[0]!.partitions[0]!;
  return { errorCode: p.errorCode, offset: p.committedOffset };
}

test('kafkajs: transactions with sendOffsets; offsets and records visible only after commit', {
  timeout: 60_000,
}, async () => {
  const producer = kafka.producer({ transactionalId: 'kjs-tx', maxInFlightRequests: 1, idempotent: true });
  await producer.connect();
  const raw = await RawClient.connect(broker.port);
  try {
    const t1 = await producer.transaction();
    await t1.send({ topic: 'kjs-out', messages: [{ key: 'a', value: 'committed-1', partition: 0 }] });
    await t1.sendOffsets({
      consumerGroupId: 'kjs-group',
      topics: [{ topic: 'kjs-in', partitions: [{ partition: 0, offset: '10' }] }],
    });
    // Open: the offset is pending.
    assert.deepEqual(await fetchOffset(raw, true), {
      errorCode: ErrorCode.UNSTABLE_OFFSET_COMMIT,
      offset: -1n,
    });
    assert.deepEqual(await fetchOffset(raw, false), { errorCode: ErrorCode.NONE, offset: -1n });
    // While it is open, the admin APIs show it.
    const described = await raw.request(describeTransactionsApi, 0, { transactionalIds: ['kjs-tx', 'nope'] });
    const d = described.transactionStates[0]!;
    assert.equal(d.transactionState, 'Ongoing');
    assert.deepEqual(d.topics.map((t) => t.topic).sort(), ['__consumer_offsets', 'kjs-out']);
    assert.equal(described.transactionStates[1]!.errorCode, ErrorCode.TRANSACTIONAL_ID_NOT_FOUND);
    const listed = await raw.request(listTransactionsApi, 1, {
      stateFilters: ['Ongoing', 'Bogus'],
      producerIdFilters: [],
      durationFilter: -1n,
    });
    assert.deepEqual(listed.unknownStateFilters, ['Bogus']);
    assert.deepEqual(
      listed.transactionStates.map((t) => t.transactionalId),
      ['kjs-tx'],
    );
    const producers = await raw.request(describeProducersApi, 0, {
      topics: [{ name: 'kjs-out', partitionIndexes: [0, 7] }],
    });
    const [p0, p7] = producers.topics[0]!.partitions;
    assert.equal(p0!.activeProducers.length, 1);
    assert.equal(p0!.activeProducers[0]!.producerId, d.producerId);
    assert.equal(p0!.activeProducers[0]!.currentTxnStartOffset, 0n);
    assert.equal(p7!.errorCode, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    await t1.commit();
    assert.deepEqual(await fetchOffset(raw, true), { errorCode: ErrorCode.NONE, offset: 10n });

    const t2 = await producer.transaction();
    await t2.send({ topic: 'kjs-out', messages: [{ key: 'b', value: 'aborted-1', partition: 1 }] });
    await t2.sendOffsets({
      consumerGroupId: 'kjs-group',
      topics: [{ topic: 'kjs-in', partitions: [{ partition: 0, offset: '20' }] }],
    });
    await t2.abort();
    assert.deepEqual(
      await fetchOffset(raw, true),
      { errorCode: ErrorCode.NONE, offset: 10n },
      'an abort drops the pending offset',
    );

    const t3 = await producer.transaction();
    await t3.send({ topic: 'kjs-out', messages: [{ key: 'c', value: 'committed-2', partition: 1 }] });
    await t3.sendOffsets({
      consumerGroupId: 'kjs-group',
      topics: [{ topic: 'kjs-in', partitions: [{ partition: 0, offset: '30' }] }],
    });
    await t3.commit();
    assert.deepEqual(await fetchOffset(raw, true), { errorCode: ErrorCode.NONE, offset: 30n });
  } finally {
    raw.close();
    await producer.disconnect();
  }

  const seen: string[] = [];
  const consumer = kafka.consumer({ groupId: 'kjs-reader', readUncommitted: false });
  await consumer.connect();
  await consumer.subscribe({ topic: 'kjs-out', fromBeginning: true });
  await consumer.run({ eachMessage: async ({ message }) => void seen.push(String(message.value)) });
  try {
    await waitFor(() => seen.length >= 2, 20_000, 'two committed records');
    await new Promise((r) => setTimeout(r, 500));
    assert.deepEqual(seen.sort(), ['committed-1', 'committed-2']);
  } finally {
    await consumer.disconnect();
  }
  const admin = kafka.admin();
  await admin.connect();
  try {
    const [offsets] = await admin.fetchOffsets({ groupId: 'kjs-group', topics: ['kjs-in'] });
    assert.equal(offsets?.partitions.find((p) => p.partition === 0)?.offset, '30');
  } finally {
    await admin.disconnect();
  }
});

test('kafkajs: a second producer with the same transactional id fences the first', {
  timeout: 60_000,
}, async () => {
  const first = kafka.producer({
    transactionalId: 'kjs-zombie',
    maxInFlightRequests: 1,
    idempotent: true,
    retry: { retries: 1 },
  });
  await first.connect();
  const t1 = await first.transaction();
  await t1.send({ topic: 'kjs-out', messages: [{ value: 'zombie-1', partition: 0 }] });
  const second = kafka.producer({ transactionalId: 'kjs-zombie', maxInFlightRequests: 1, idempotent: true });
  await second.connect();
  try {
    // kafkajs initialises the producer id with its first transaction: this fences the first.
    const t2 = await second.transaction();
    await assert.rejects(t1.commit(), (e: Error & { type?: string }) =>
      /INVALID_PRODUCER_EPOCH|PRODUCER_FENCED/.test(e.type ?? e.message),
    );
    await t2.send({ topic: 'kjs-out', messages: [{ value: 'winner-1', partition: 0 }] });
    await t2.commit();
  } finally {
    await first.disconnect();
    await second.disconnect();
  }
  const committed = (await kcatRead(broker.bootstrap, 'kjs-out', 'read_committed')).map((r) => r.value);
  assert.ok(committed.includes('winner-1'));
  assert.ok(!committed.includes('zombie-1'), 'the fenced transaction was aborted');
});
