// `samsa groups --describe` while a transaction holds offsets for the group that it has not
// committed (TxnOffsetCommit sent, no EndTxn: the producer went away mid-transaction). As
// kafka-consumer-groups (its admin does not ask for stable offsets), the committed offsets are
// shown at once; the pending one appears only if the transaction commits.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Admin, Producer } from '../../src/client/index.js';
import { startTestBroker, type TestBroker } from '../../src/testkit/index.js';
import { groups } from './groups-support.js';

const TOPIC = 'pending-orders';
const GROUP = 'pending-billing';

let broker: TestBroker;
let admin: Admin;
before(async () => {
  broker = await startTestBroker({
    overrides: { 'transaction.state.log.num.partitions': 3, 'offsets.topic.num.partitions': 3 },
  });
  admin = new Admin({ bootstrapServers: broker.bootstrap });
  await admin.createTopics([{ name: TOPIC, numPartitions: 2, replicationFactor: 1 }]);
  const p = new Producer({ bootstrapServers: broker.bootstrap });
  try {
    for (let i = 0; i < 10; i++) await p.send({ topic: TOPIC, partition: i % 2, value: `v${i}` });
  } finally {
    await p.close();
  }
});
after(async () => {
  await admin?.close();
  await broker?.close();
});

/** The describe table's rows as [topic, partition, current offset, log end, lag]. */
async function describeRows(): Promise<string[][]> {
  const r = await groups(broker.bootstrap, '--describe', '--group', GROUP);
  assert.equal(r.code, 0, r.err);
  return r.out
    .split('\n')
    .map((l) => l.trim().split(/\s+/))
    .filter((cols) => cols[0] === GROUP)
    .map((cols) => cols.slice(1, 6));
}

test('--describe shows the committed offsets while a transaction holds newer ones', async () => {
  await admin.alterConsumerGroupOffsets(GROUP, [
    { topic: TOPIC, partition: 0, offset: 2n },
    { topic: TOPIC, partition: 1, offset: 1n },
  ]);
  const txn = new Producer({ bootstrapServers: broker.bootstrap, transactionalId: 'pending-billing-txn' });
  await txn.initTransactions();
  txn.beginTransaction();
  await txn.sendOffsetsToTransaction(
    [
      { topic: TOPIC, partition: 0, offset: 5n },
      { topic: TOPIC, partition: 1, offset: 5n },
    ],
    GROUP,
  );
  await txn.close(); // neither committed nor aborted: the offsets stay pending

  assert.deepEqual(await describeRows(), [
    [TOPIC, '0', '2', '5', '3'],
    [TOPIC, '1', '1', '5', '4'],
  ]);

  // The next instance of the transactional.id aborts the transaction: the pending offsets go.
  const next = new Producer({ bootstrapServers: broker.bootstrap, transactionalId: 'pending-billing-txn' });
  try {
    await next.initTransactions();
    next.beginTransaction();
    await next.sendOffsetsToTransaction([{ topic: TOPIC, partition: 0, offset: 4n }], GROUP);
    await next.commitTransaction();
  } finally {
    await next.close();
  }
  assert.deepEqual(await describeRows(), [
    [TOPIC, '0', '4', '5', '1'],
    [TOPIC, '1', '1', '5', '4'],
  ]);
});
