// OffsetCommit and TxnOffsetCommit for a topic or partition that does not exist (issue 14,
// item 2): Kafka answers UNKNOWN_TOPIC_OR_PARTITION per partition before the request reaches the
// group coordinator (every version; nothing is written for them, and with no partition left the
// coordinator is not asked, so not even a group error replaces that answer); the partitions that
// exist are handled as usual. Over the wire, with confluent-kafka-python (librdkafka 2.0.2),
// kafkajs 2.2.4 and our own client (consumer commits, admin alterConsumerGroupOffsets).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Kafka, logLevel } from 'kafkajs';
import { Admin, AlterOffsetsPartitionError, Consumer, KafkaResponseError } from '../../src/client/index.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { findCoordinatorApi } from '../../src/protocol/messages/generated/find-coordinator.js';
import { initProducerIdApi } from '../../src/protocol/messages/generated/init-producer-id.js';
import { offsetCommitApi } from '../../src/protocol/messages/generated/offset-commit.js';
import { offsetFetchApi } from '../../src/protocol/messages/generated/offset-fetch.js';
import { txnOffsetCommitApi } from '../../src/protocol/messages/generated/txn-offset-commit.js';
import { startTestBroker, type TestBroker } from '../../src/testkit/index.js';
import { RawClient } from '../broker/support/raw-client.js';
import { runPython } from '../broker/txn/interop-support.js';
import { scaled } from '../support/timeouts.js';

const UNKNOWN = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
let broker: TestBroker;
let raw: RawClient;

before(async () => {
  broker = await startTestBroker({ overrides: { 'group.initial.rebalance.delay.ms': 0 } });
  const admin = new Admin({ bootstrapServers: broker.bootstrap });
  await admin.createTopics([{ name: 'known', numPartitions: 2, replicationFactor: 1 }]);
  await admin.close();
  raw = await RawClient.connect(broker.port);
  // The first FindCoordinator creates __consumer_offsets; wait until its partitions are loaded.
  const deadline = Date.now() + scaled(30_000);
  for (;;) {
    const fc = await raw.request(findCoordinatorApi, 3, { key: 'any', keyType: 0, coordinatorKeys: [] });
    const probe = await raw.request(offsetFetchApi, 7, {
      groupId: 'probe',
      topics: [{ name: 'known', partitionIndexes: [0] }],
      groups: [],
      requireStable: false,
    });
    if (fc.errorCode === 0 && probe.errorCode === 0) break;
    assert.ok(Date.now() < deadline, 'the group coordinator never became available');
    await new Promise((r) => setTimeout(r, 100));
  }
});
after(async () => {
  raw.close();
  await broker.close();
});

const part = (partitionIndex: number, committedOffset: bigint) => ({
  partitionIndex,
  committedOffset,
  committedLeaderEpoch: -1,
  commitTimestamp: -1n,
  committedMetadata: null,
});

/** A kafkajs error's protocol type, also through its retrier's wrapper. */
const kjsType = (e: unknown): string | undefined => {
  const err = e as { type?: string; cause?: { type?: string } } | null;
  return err?.type ?? err?.cause?.type;
};

/** [topic, partition, errorCode] in response order. */
const codes = (topics: { name: string; partitions: { partitionIndex: number; errorCode: number }[] }[]) =>
  topics.flatMap((t) => t.partitions.map((p) => [t.name, p.partitionIndex, p.errorCode]));

async function committed(groupId: string, topic: string, partition: number): Promise<bigint> {
  const r = await raw.request(offsetFetchApi, 7, {
    groupId,
    topics: [{ name: topic, partitionIndexes: [partition] }],
    groups: [],
    requireStable: false,
  });
  return r.topics[0]!.partitions[0]!.committedOffset;
}

test('OffsetCommit v0-9: unknown topic and out-of-range partition answer UNKNOWN_TOPIC_OR_PARTITION', async () => {
  for (let v = 0; v <= 9; v++) {
    const groupId = `raw-v${v}`;
    const res = await raw.request(offsetCommitApi, v, {
      groupId,
      generationIdOrMemberEpoch: -1,
      memberId: '',
      groupInstanceId: null,
      retentionTimeMs: -1n,
      topics: [
        { name: 'nope', partitions: [part(0, 5n)] },
        { name: 'known', partitions: [part(0, 7n), part(2, 5n), part(-1, 5n)] },
      ],
    });
    assert.deepEqual(
      codes(res.topics),
      [
        ['nope', 0, UNKNOWN],
        ['known', 2, UNKNOWN],
        ['known', -1, UNKNOWN],
        ['known', 0, ErrorCode.NONE],
      ],
      `v${v}`,
    );
    assert.equal(await committed(groupId, 'known', 0), 7n, `v${v}: the existing partition is committed`);
    assert.equal(await committed(groupId, 'nope', 0), -1n, `v${v}: nothing stored for the unknown topic`);
    assert.equal(await committed(groupId, 'known', 2), -1n);
  }
  // Internal topics are not special here (Kafka checks only that the partition exists).
  const internal = await raw.request(offsetCommitApi, 8, {
    groupId: 'raw-internal',
    generationIdOrMemberEpoch: -1,
    memberId: '',
    groupInstanceId: null,
    retentionTimeMs: -1n,
    topics: [{ name: '__consumer_offsets', partitions: [part(0, 1n), part(999, 1n)] }],
  });
  assert.deepEqual(codes(internal.topics), [
    ['__consumer_offsets', 999, UNKNOWN],
    ['__consumer_offsets', 0, ErrorCode.NONE],
  ]);
  // Nothing left for the coordinator: not even an invalid group id replaces the answer.
  const res = await raw.request(offsetCommitApi, 8, {
    groupId: '',
    generationIdOrMemberEpoch: -1,
    memberId: '',
    groupInstanceId: null,
    retentionTimeMs: -1n,
    topics: [{ name: 'nope', partitions: [part(3, 1n)] }],
  });
  assert.deepEqual(codes(res.topics), [['nope', 3, UNKNOWN]]);
});

test('TxnOffsetCommit v0-4: unknown partitions are answered before the transaction is checked', async () => {
  const pid = await raw.request(initProducerIdApi, 4, {
    transactionalId: 'raw-tx',
    transactionTimeoutMs: 60_000,
    producerId: -1n,
    producerEpoch: -1,
  });
  assert.equal(pid.errorCode, ErrorCode.NONE);
  for (let v = 0; v <= 4; v++) {
    const body = (topics: { name: string; partitions: ReturnType<typeof part>[] }[]) => ({
      transactionalId: 'raw-tx',
      groupId: 'raw-txn-group',
      producerId: pid.producerId,
      producerEpoch: pid.producerEpoch,
      generationId: -1,
      memberId: '',
      groupInstanceId: null,
      topics,
    });
    // Only unknown partitions: the (not started) transaction is never looked at.
    const onlyUnknown = await raw.request(
      txnOffsetCommitApi,
      v,
      body([
        { name: 'nope', partitions: [part(0, 5n)] },
        { name: 'known', partitions: [part(9, 5n)] },
      ]),
    );
    assert.deepEqual(
      codes(onlyUnknown.topics),
      [
        ['nope', 0, UNKNOWN],
        ['known', 9, UNKNOWN],
      ],
      `v${v}`,
    );
    // Mixed: the existing partition gets the transaction's verdict (no AddOffsetsToTxn was
    // sent, so it is refused), the unknown one UNKNOWN_TOPIC_OR_PARTITION.
    const mixed = await raw.request(
      txnOffsetCommitApi,
      v,
      body([{ name: 'known', partitions: [part(1, 5n), part(4, 5n)] }]),
    );
    const [[, , unknownCode], [, , knownCode]] = codes(mixed.topics) as [string, number, number][];
    assert.deepEqual(codes(mixed.topics)[0], ['known', 4, UNKNOWN], `v${v}`);
    assert.equal(unknownCode, UNKNOWN);
    assert.ok(knownCode !== ErrorCode.NONE && knownCode !== UNKNOWN, `v${v}: known partition ${knownCode}`);
  }
});

const CK_COMMIT = `
import sys, json
from confluent_kafka import Consumer, TopicPartition, KafkaException
bootstrap, known = sys.argv[1], sys.argv[2]
c = Consumer({'bootstrap.servers': bootstrap, 'group.id': 'ck-unknown', 'enable.auto.commit': False})
def attempt(tps):
    try:
        res = c.commit(offsets=tps, asynchronous=False)
        return {'raised': None, 'partitions': [[t.topic, t.partition, t.error.name() if t.error else None] for t in res]}
    except KafkaException as e:
        return {'raised': e.args[0].name(), 'partitions': None}
out = {
    'unknown_topic': attempt([TopicPartition('nope', 0, 5)]),
    'beyond_count': attempt([TopicPartition(known, 7, 5)]),
    'mixed': attempt([TopicPartition(known, 1, 11), TopicPartition('nope', 0, 5)]),
}
out['committed'] = c.committed([TopicPartition(known, 1)], timeout=20)[0].offset
c.close()
print(json.dumps(out))
`;

/** librdkafka reports a per-partition commit error either way: raised, or on the partition. */
function ckError(
  r: { raised: string | null; partitions: [string, number, string | null][] | null },
  topic: string,
  partition: number,
): string | null {
  if (r.raised !== null) return r.raised;
  return r.partitions!.find(([t, p]) => t === topic && p === partition)?.[2] ?? null;
}

test('confluent-kafka-python: commit() of an unknown topic or partition reports UNKNOWN_TOPIC_OR_PART', {
  timeout: scaled(90_000),
}, async () => {
  const [line] = await runPython(CK_COMMIT, [broker.bootstrap, 'known'], scaled(60_000));
  const out = JSON.parse(line!) as Record<
    string,
    { raised: string | null; partitions: [string, number, string | null][] | null }
  > & {
    committed: number;
  };
  assert.equal(ckError(out.unknown_topic!, 'nope', 0), 'UNKNOWN_TOPIC_OR_PART', JSON.stringify(out));
  assert.equal(ckError(out.beyond_count!, 'known', 7), 'UNKNOWN_TOPIC_OR_PART', JSON.stringify(out));
  assert.equal(ckError(out.mixed!, 'nope', 0), 'UNKNOWN_TOPIC_OR_PART', JSON.stringify(out));
  assert.equal(out.committed, 11, 'the existing partition of the mixed commit is committed');
});

test('kafkajs: consumer.commitOffsets to an unknown topic or partition fails with UNKNOWN_TOPIC_OR_PARTITION', {
  timeout: scaled(90_000),
}, async () => {
  const kafka = new Kafka({
    brokers: [broker.bootstrap],
    logLevel: logLevel.NOTHING,
    retry: { retries: 1, initialRetryTime: 100, maxRetryTime: 1000 },
  });
  const consumer = kafka.consumer({
    groupId: 'kjs-unknown',
    sessionTimeout: 10_000,
    rebalanceTimeout: 10_000,
    maxWaitTimeInMs: 100,
    retry: { retries: 0 },
  });
  await consumer.connect();
  try {
    await consumer.subscribe({ topics: ['known'], fromBeginning: true });
    let joined!: () => void;
    const ready = new Promise<void>((r) => (joined = r));
    consumer.on(consumer.events.GROUP_JOIN, () => joined());
    await consumer.run({ autoCommit: false, eachMessage: async () => {} });
    await ready;
    const err = await consumer.commitOffsets([{ topic: 'nope', partition: 0, offset: '5' }]).then(
      () => null,
      (e: unknown) => e,
    );
    assert.equal(kjsType(err), 'UNKNOWN_TOPIC_OR_PARTITION', String(err));
    const beyond = await consumer.commitOffsets([{ topic: 'known', partition: 5, offset: '5' }]).then(
      () => null,
      (e: unknown) => e,
    );
    assert.equal(kjsType(beyond), 'UNKNOWN_TOPIC_OR_PARTITION', String(beyond));
    await consumer.commitOffsets([{ topic: 'known', partition: 0, offset: '3' }]);
    assert.equal(await committed('kjs-unknown', 'known', 0), 3n);
  } finally {
    await consumer.disconnect();
  }
});

test('kafkajs: transaction sendOffsets (TxnOffsetCommit) to an unknown topic fails with UNKNOWN_TOPIC_OR_PARTITION', {
  timeout: scaled(90_000),
}, async () => {
  // kafkajs retries this error on a fixed schedule of its own before it reports it (5 retries,
  // about 10 s: its transaction manager ignores the retry options).
  const kafka = new Kafka({ brokers: [broker.bootstrap], logLevel: logLevel.NOTHING });
  const producer = kafka.producer({
    transactionalId: 'kjs-unknown-tx',
    maxInFlightRequests: 1,
    idempotent: true,
    retry: { retries: 1, initialRetryTime: 100 },
  });
  await producer.connect();
  try {
    const t = await producer.transaction();
    await t.send({ topic: 'known', messages: [{ value: 'x', partition: 0 }] });
    const err = await t
      .sendOffsets({
        consumerGroupId: 'kjs-unknown-txg',
        topics: [{ topic: 'nope', partitions: [{ partition: 0, offset: '5' }] }],
      })
      .then(
        () => null,
        (e: unknown) => e,
      );
    assert.equal(kjsType(err), 'UNKNOWN_TOPIC_OR_PARTITION', String(err));
    await t.abort();
  } finally {
    await producer.disconnect();
  }
});

test('our client: consumer commits and admin alterConsumerGroupOffsets surface UNKNOWN_TOPIC_OR_PARTITION', {
  timeout: scaled(90_000),
}, async () => {
  const consumer = new Consumer({
    bootstrapServers: broker.bootstrap,
    groupId: 'own-unknown',
    enableAutoCommit: false,
  });
  try {
    const once = await consumer.commitAsync([{ topic: 'nope', partition: 0, offset: 5n }]).then(
      () => null,
      (e: unknown) => e,
    );
    assert.ok(once instanceof KafkaResponseError && once.errorCode === UNKNOWN, String(once));
    // commitSync retries it (it may be a topic still being created, as Kafka's consumer does)
    // until its deadline, then reports it; the partition that exists is committed meanwhile.
    const sync = await consumer
      .commitSync(
        [
          { topic: 'known', partition: 1, offset: 21n },
          { topic: 'known', partition: 9, offset: 5n },
        ],
        { timeoutMs: 1500 },
      )
      .then(
        () => null,
        (e: unknown) => e,
      );
    assert.ok(sync instanceof KafkaResponseError && sync.errorCode === UNKNOWN, String(sync));
    assert.equal(await committed('own-unknown', 'known', 1), 21n);
  } finally {
    await consumer.close();
  }

  const admin = new Admin({ bootstrapServers: broker.bootstrap });
  try {
    const started = Date.now();
    const err = await admin
      .alterConsumerGroupOffsets('own-admin', [
        { topic: 'known', partition: 0, offset: 4n },
        { topic: 'nope', partition: 0, offset: 5n },
        { topic: 'known', partition: 2, offset: 5n },
      ])
      .then(
        () => null,
        (e: unknown) => e,
      );
    assert.ok(err instanceof AlterOffsetsPartitionError, String(err));
    assert.equal(err.errorCode, UNKNOWN);
    assert.deepEqual(err.partitions.map((p) => [p.topic, p.partition, p.errorCode]).sort(), [
      ['known', 2, UNKNOWN],
      ['nope', 0, UNKNOWN],
    ]);
    assert.ok(
      Date.now() - started < scaled(10_000),
      'a partition error is final, not retried until the timeout',
    );
    const offsets = await admin.listConsumerGroupOffsets('own-admin');
    assert.deepEqual(
      offsets.map((o) => [o.topic, o.partition, o.offset]),
      [['known', 0, 4n]],
    );
  } finally {
    await admin.close();
  }
});
