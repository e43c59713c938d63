// `samsa transactions` (kafka-transactions.sh) against an in-process broker with two stuck
// transactions: one our Producer began and abandoned (closed without EndTxn, a long
// transaction.timeout.ms: the coordinator still tracks it, Ongoing), and one that hangs (a
// transactional write its coordinator never heard of: InitProducerId, then Produce without
// AddPartitionsToTxn; the broker runs with transaction.partition.verification.enable=false, as a
// Kafka 3.6+ broker must for such a write to be accepted). list / describe / describe-producers
// show them in Kafka's columns, find-hanging reports the second only, abort clears each so the
// last stable offset moves past it, and bad input is one line with exit status 1.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { runTransactions } from '../../src/cli/commands/transactions.js';
import { Admin } from '../../src/client/admin/admin.js';
import { Consumer } from '../../src/client/consumer/index.js';
import { Producer } from '../../src/client/producer/producer.js';
import { initProducerIdApi } from '../../src/protocol/messages/generated/init-producer-id.js';
import { produceApi } from '../../src/protocol/messages/generated/produce.js';
import { encodeRecordBatchSync } from '../../src/protocol/record-batch/index.js';
import { startTestBroker, type TestBroker } from '../../src/testkit/index.js';
import { RawClient } from '../broker/support/raw-client.js';
import { scaled } from '../support/timeouts.js';
import { produceCounts } from './groups-support.js';
import { fails, failsIn, ok, okIn } from './operator-support.js';

const TOPIC = 'tx-orders';
const TXN_TIMEOUT_MS = 600_000;
const T = { timeout: scaled(120_000) };

let broker: TestBroker;
let bs: string;
let ghostProducerId: bigint;

/** `samsa transactions ARGS` run in this process against the broker, which must succeed. */
const transactions = (...args: string[]) => okIn(runTransactions, bs, 'transactions', ...args);
/** `samsa transactions ARGS` run in this process, which must fail with one line matching `pattern`. */
const transactionsFail = (pattern: RegExp, ...args: string[]) =>
  failsIn(runTransactions, bs, pattern, 'transactions', ...args);

before(async () => {
  // Without KIP-890 verification: the hanging write below is refused otherwise.
  broker = await startTestBroker({ overrides: { 'transaction.partition.verification.enable': false } });
  bs = broker.bootstrap;
  await produceCounts(bs, TOPIC, [3, 0]); // committed records 0..2 on partition 0

  // Abandoned: begun, two records sent, then closed without commit or abort.
  const p = new Producer({
    bootstrapServers: bs,
    transactionalId: 'stuck-tx',
    transactionTimeoutMs: TXN_TIMEOUT_MS,
  });
  await p.initTransactions();
  p.beginTransaction();
  const old = Date.now() - 120_000;
  await p.send({ topic: TOPIC, partition: 0, value: 'x1', timestamp: old });
  await p.send({ topic: TOPIC, partition: 0, value: 'x2', timestamp: old });
  await p.close();

  // Hanging: a transactional batch on partition 1 its coordinator does not know about.
  const raw = await RawClient.connect(broker.port);
  try {
    const init = await raw.request(initProducerIdApi, 4, {
      transactionalId: 'ghost-tx',
      transactionTimeoutMs: TXN_TIMEOUT_MS,
      producerId: -1n,
      producerEpoch: -1,
    });
    assert.equal(init.errorCode, 0);
    ghostProducerId = init.producerId;
    const records = encodeRecordBatchSync([{ value: Buffer.from('ghost') }], {
      producerId: init.producerId,
      producerEpoch: init.producerEpoch,
      baseSequence: 0,
      transactional: true,
      timestamp: old,
    });
    const r = await raw.request(produceApi, 9, {
      transactionalId: 'ghost-tx',
      acks: -1,
      timeoutMs: 5000,
      topicData: [{ name: TOPIC, partitionData: [{ index: 1, records }] }],
    });
    assert.equal(r.responses[0]!.partitionResponses[0]!.errorCode, 0);
  } finally {
    raw.close();
  }
});

after(async () => {
  await broker?.close();
});

/** Kafka's table: tab after every cell; cells trimmed. */
function rows(text: string): string[][] {
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => {
      assert.ok(l.endsWith('\t'), `Kafka ends every cell with a tab: ${JSON.stringify(l)}`);
      return l
        .slice(0, -1)
        .split('\t')
        .map((c) => c.trim());
    });
}

/** What a read_committed consumer of `partition` reads from the start until its position is `end`. */
async function readCommitted(partition: number, end: bigint): Promise<string[]> {
  const c = new Consumer({
    bootstrapServers: bs,
    isolationLevel: 'read_committed',
    autoOffsetReset: 'earliest',
  });
  const tp = { topic: TOPIC, partition };
  const values: string[] = [];
  try {
    c.assign([tp]);
    const deadline = Date.now() + scaled(30_000);
    while ((await c.position(tp)) < end) {
      assert.ok(Date.now() < deadline, `position ${await c.position(tp)} never reached ${end}`);
      for (const r of await c.poll(200)) values.push(String(r.value));
    }
    return values;
  } finally {
    await c.close();
  }
}

async function offsets(partition: number): Promise<{ lso: bigint; hw: bigint }> {
  const admin = new Admin({ bootstrapServers: bs });
  try {
    const q = [{ topic: TOPIC, partition, spec: 'latest' as const }];
    const [lso] = await admin.listOffsets(q, { isolationLevel: 'read_committed' });
    const [hw] = await admin.listOffsets(q);
    return { lso: lso!.offset, hw: hw!.offset };
  } finally {
    await admin.close();
  }
}

/** `samsa transactions describe-producers` of TOPIC's partition, as rows. */
const producersOf = async (partition: number) =>
  rows((await transactions('describe-producers', '--topic', TOPIC, '--partition', String(partition))).stdout);

test('list and describe: the abandoned transaction is Ongoing with its partition', T, async () => {
  const list = rows((await ok(bs, 'transactions', 'list')).stdout);
  assert.deepEqual(list[0], ['TransactionalId', 'Coordinator', 'ProducerId', 'TransactionState']);
  const byId = new Map(list.slice(1).map((r) => [r[0], r]));
  assert.equal(byId.get('stuck-tx')?.[1], String(broker.nodeId));
  assert.equal(byId.get('stuck-tx')?.[3], 'Ongoing');
  assert.deepEqual(byId.get('ghost-tx')?.slice(2), [String(ghostProducerId), 'Empty']);
  // The flag form works as well.
  const flagged = JSON.parse((await transactions('--list', '--output', 'json')).stdout);
  assert.ok(
    flagged.some((l: { transactionalId: string; state: string }) => l.transactionalId === 'stuck-tx'),
  );

  const d = rows((await transactions('describe', '--transactional-id', 'stuck-tx')).stdout);
  assert.deepEqual(d[0], [
    'CoordinatorId',
    'TransactionalId',
    'ProducerId',
    'ProducerEpoch',
    'TransactionState',
    'TransactionTimeoutMs',
    'CurrentTransactionStartTimeMs',
    'TransactionDurationMs',
    'TopicPartitions',
  ]);
  const [coord, id, , , state, timeout, start, duration, parts] = d[1]!;
  assert.deepEqual(
    [coord, id, state, timeout, parts],
    [String(broker.nodeId), 'stuck-tx', 'Ongoing', String(TXN_TIMEOUT_MS), `${TOPIC}-0`],
  );
  assert.ok(Number(start) > 0 && Number(duration) >= 0, `${start} ${duration}`);

  const j = JSON.parse(
    (await transactions('describe', '--transactional-id', 'ghost-tx', '--output', 'json')).stdout,
  );
  assert.equal(j.state, 'Empty');
  assert.equal(j.producerId, Number(ghostProducerId));
  assert.equal(j.transactionStartTimeMs, null);
  assert.deepEqual(j.partitions, []);
});

test('describe-producers: the open transactions and where they start', T, async () => {
  const out = await producersOf(0);
  assert.deepEqual(out[0], [
    'ProducerId',
    'ProducerEpoch',
    'LatestCoordinatorEpoch',
    'LastSequence',
    'LastTimestamp',
    'CurrentTransactionStartOffset',
  ]);
  const open = out.slice(1).filter((r) => r[5] !== 'None');
  assert.equal(open.length, 1, JSON.stringify(out));
  assert.equal(open[0]![5], '3');
  const j = JSON.parse(
    (await transactions('describe-producers', '--topic', TOPIC, '--partition', '1', '--output', 'json'))
      .stdout,
  );
  assert.equal(j.activeProducers.length, 1);
  assert.equal(j.activeProducers[0].producerId, Number(ghostProducerId));
  assert.equal(j.activeProducers[0].currentTransactionStartOffset, 0);
  assert.equal(j.activeProducers[0].coordinatorEpoch, null);
  assert.equal((await offsets(0)).lso, 3n, 'read_committed readers are held at the open transaction');
});

test(
  'find-hanging: the write no coordinator tracks, not the one its coordinator will time out',
  T,
  async () => {
    const byTopic = rows(
      (await transactions('find-hanging', '--topic', TOPIC, '--max-transaction-timeout', '0')).stdout,
    );
    assert.deepEqual(byTopic[0], [
      'Topic',
      'Partition',
      'ProducerId',
      'ProducerEpoch',
      'CoordinatorEpoch',
      'StartOffset',
      'LastTimestamp',
      'Duration(min)',
    ]);
    assert.equal(byTopic.length, 2, JSON.stringify(byTopic));
    const [topic, partition, pid, , coordEpoch, startOffset, , minutes] = byTopic[1]!;
    assert.deepEqual(
      [topic, partition, pid, coordEpoch, startOffset],
      [TOPIC, '1', String(ghostProducerId), '-1', '0'],
    );
    assert.ok(Number(minutes) >= 2, minutes);
    const byBroker = JSON.parse(
      (
        await transactions(
          'find-hanging',
          '--broker-id',
          String(broker.nodeId),
          '--max-transaction-timeout',
          '0',
          '--output',
          'json',
        )
      ).stdout,
    );
    assert.deepEqual(
      byBroker.map((h: { topic: string; partition: number; transactionalId: string }) => [
        h.topic,
        h.partition,
        h.transactionalId,
      ]),
      [[TOPIC, 1, 'ghost-tx']],
    );
    // Younger than the default 15 minutes: not a candidate.
    const young = rows((await transactions('find-hanging', '--topic', TOPIC, '--partition', '1')).stdout);
    assert.equal(young.length, 1);
  },
);

test('abort by --start-offset and by producer: the last stable offset moves past each', T, async () => {
  assert.equal(
    (await ok(bs, 'transactions', 'abort', '--topic', TOPIC, '--partition', '0', '--start-offset', '3'))
      .stdout,
    '',
  );
  const p0 = await offsets(0);
  assert.equal(p0.lso, p0.hw, 'nothing open on partition 0 any more');
  assert.ok(p0.hw > 5n);
  // A read_committed consumer passes the aborted records (and the marker) to the end.
  assert.deepEqual(await readCommitted(0, p0.hw), ['0-0', '0-1', '0-2']);
  const after0 = await producersOf(0);
  assert.ok(
    after0.slice(1).every((r) => r[5] === 'None'),
    JSON.stringify(after0),
  );

  assert.equal((await offsets(1)).lso, 0n);
  const j = JSON.parse(
    (
      await transactions(
        '--abort',
        '--topic',
        TOPIC,
        '--partition',
        '1',
        '--producer-id',
        String(ghostProducerId),
        '--producer-epoch',
        '0',
        '--coordinator-epoch',
        '-1',
        '--output',
        'json',
      )
    ).stdout,
  );
  assert.deepEqual(j, {
    topic: TOPIC,
    partition: 1,
    producerId: Number(ghostProducerId),
    producerEpoch: 0,
    coordinatorEpoch: 0,
    aborted: true,
  });
  const p1 = await offsets(1);
  assert.equal(p1.lso, p1.hw);
  const none = rows(
    (await transactions('find-hanging', '--topic', TOPIC, '--max-transaction-timeout', '0')).stdout,
  );
  assert.equal(none.length, 1, 'nothing hangs any more');
});

test('bad input: one line on stderr, exit status 1', T, async () => {
  const mistakes: [RegExp, ...string[]][] = [
    [
      /^samsa: transactional id 'nope' not found \(samsa transactions list shows them\)$/m,
      'describe',
      '--transactional-id',
      'nope',
    ],
    [/^samsa: topic 'nope' does not exist/m, 'describe-producers', '--topic', 'nope', '--partition', '0'],
    [
      /^samsa: partition tx-orders-9 does not exist \(tx-orders has 2 partitions\)$/m,
      'describe-producers',
      '--topic',
      TOPIC,
      '--partition',
      '9',
    ],
    [/^samsa: topic 'nope' does not exist/m, 'find-hanging', '--topic', 'nope'],
    [
      /^samsa: no open transaction starts at offset 1 on tx-orders-0/m,
      'abort',
      '--topic',
      TOPIC,
      '--partition',
      '0',
      '--start-offset',
      '1',
    ],
    [/^samsa transactions: describe needs --transactional-id$/m, 'describe'],
    [/describe-producers needs --partition$/m, 'describe-producers', '--topic', TOPIC],
    [/abort needs --topic and --partition$/m, 'abort', '--start-offset', '3'],
    [
      /identify the transaction by --start-offset, or by --producer-id/,
      'abort',
      '--topic',
      TOPIC,
      '--partition',
      '0',
    ],
    [
      /identify the transaction by --start-offset, or by --producer-id/,
      'abort',
      '--topic',
      TOPIC,
      '--partition',
      '0',
      '--start-offset',
      '3',
      '--producer-id',
      '1',
    ],
    [
      /abort needs --producer-epoch and --coordinator-epoch$/m,
      'abort',
      '--topic',
      TOPIC,
      '--partition',
      '0',
      '--producer-id',
      '1',
    ],
    [/find-hanging needs --topic or --broker-id/, 'find-hanging'],
    [/--partition needs --topic/, 'find-hanging', '--broker-id', '0', '--partition', '1'],
    [/--topic does not apply to list/, 'list', '--topic', TOPIC],
    [
      /--partition must be a whole number \(0 or more\), got "x"/,
      'describe-producers',
      '--topic',
      TOPIC,
      '--partition',
      'x',
    ],
    [/unknown action "lst" \(did you mean list\?\)/, 'lst'],
    [/give the action: list \| describe/],
    [/give one action, not list and abort/, 'list', '--abort'],
    [/--output is text or json, not "xml"/, 'list', '--output', 'xml'],
  ];
  for (const [pattern, ...args] of mistakes) await transactionsFail(pattern, ...args);
  await fails(
    bs,
    /^samsa: transactional id 'nope' not found/,
    'transactions',
    'describe',
    '--transactional-id',
    'nope',
  );
  const help = await transactions('--help');
  assert.match(help.stdout, /^Usage: samsa transactions/);
  assert.match(help.stdout, /samsa transactions abort --topic orders --partition 0 --start-offset 1200/);
});
