// Transactions against the broker's transaction coordinator: committed records are visible to
// a read_committed reader (kcat/librdkafka), aborted ones are not; offsets sent to a transaction
// become the group's committed offsets on commit; a second producer with the same
// transactional.id fences the first (typed fatal error).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Admin, FatalProducerError, Producer } from '../../../src/client/index.js';
import { kcatRead, type TestBroker, testBroker } from './helpers.js';

let tb: TestBroker;
before(async () => {
  tb = await testBroker({ 'transaction.state.log.num.partitions': 3, 'offsets.topic.num.partitions': 3 });
  const admin = new Admin({ bootstrapServers: tb.broker.bootstrap });
  await admin.createTopics([{ name: 'txn', numPartitions: 2, replicationFactor: 1 }]);
  await admin.close();
});
after(async () => {
  await tb.stop();
});

test('commit makes records visible, abort hides them (read_committed)', async () => {
  const p = new Producer({ bootstrapServers: tb.broker.bootstrap, transactionalId: 'it-txn-1' });
  await p.initTransactions();
  p.beginTransaction();
  for (let i = 0; i < 10; i++) p.sendAndForget({ topic: 'txn', key: `k${i}`, value: `committed-${i}` });
  await p.commitTransaction();
  p.beginTransaction();
  for (let i = 0; i < 10; i++) p.sendAndForget({ topic: 'txn', key: `k${i}`, value: `aborted-${i}` });
  await p.flush();
  await p.abortTransaction();
  p.beginTransaction();
  await p.send({ topic: 'txn', key: 'last', value: 'committed-last' });
  await p.commitTransaction();
  await p.close();
  const committed = await kcatRead(tb.broker.bootstrap, 'txn', ['-X', 'isolation.level=read_committed']);
  const values = committed.map((r) => r.value).sort();
  assert.equal(values.length, 11);
  assert.ok(values.every((v) => v.startsWith('committed-')));
  const all = await kcatRead(tb.broker.bootstrap, 'txn', ['-X', 'isolation.level=read_uncommitted']);
  assert.equal(all.length, 21, 'aborted records are in the log, hidden from read_committed');
});

test('sendOffsetsToTransaction commits the group offsets with the transaction', async () => {
  const p = new Producer({ bootstrapServers: tb.broker.bootstrap, transactionalId: 'it-txn-2' });
  await p.initTransactions();
  p.beginTransaction();
  await p.send({ topic: 'txn', partition: 0, value: 'x' });
  await p.sendOffsetsToTransaction([{ topic: 'txn', partition: 0, offset: 42n }], 'it-txn-group');
  await p.commitTransaction();
  await p.close();
  const admin = new Admin({ bootstrapServers: tb.broker.bootstrap });
  const offsets = await admin.listConsumerGroupOffsets('it-txn-group');
  await admin.close();
  assert.deepEqual(
    offsets.map((o) => [o.topic, o.partition, o.offset]),
    [['txn', 0, 42n]],
  );
});

test('a newer producer with the same transactional.id fences the older one', async () => {
  const a = new Producer({ bootstrapServers: tb.broker.bootstrap, transactionalId: 'it-txn-3' });
  await a.initTransactions();
  a.beginTransaction();
  await a.send({ topic: 'txn', value: 'from-a' });
  const b = new Producer({ bootstrapServers: tb.broker.bootstrap, transactionalId: 'it-txn-3' });
  await b.initTransactions();
  const err = await a.commitTransaction().catch((e: unknown) => e);
  assert.ok(err instanceof FatalProducerError, `expected a fatal error, got ${String(err)}`);
  await a.close({ timeoutMs: 1000 });
  b.beginTransaction();
  await b.send({ topic: 'txn', value: 'from-b' });
  await b.commitTransaction();
  await b.close();
});
