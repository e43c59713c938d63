// read_committed against the real broker's transactions: records of aborted transactions and
// transaction markers never reach a read_committed consumer, records of open transactions wait
// for the commit (LSO), and read_uncommitted sees aborted data but still no markers.
// Also consume-transform-produce: offsets committed through the producer's transaction.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Producer } from '../../../src/client/producer/producer.js';
import type { TestBroker } from '../../../src/testkit/index.js';
import { broker, consumer, createTopic, pollN, str } from './support.js';

let b: TestBroker;
before(async () => {
  b = await broker({ 'transaction.state.log.num.partitions': 3 });
  await createTopic(b, 'txn', 1);
});
after(async () => {
  await b?.close();
});

test('read_committed skips aborted transactions and markers; read_uncommitted skips only markers', async () => {
  const plain = new Producer({ bootstrapServers: b.bootstrap });
  const txn = new Producer({ bootstrapServers: b.bootstrap, transactionalId: 'txn-test' });
  await txn.initTransactions();
  await plain.send({ topic: 'txn', partition: 0, value: 'plain-1' });
  txn.beginTransaction();
  await txn.send({ topic: 'txn', partition: 0, value: 'aborted-1' });
  await txn.send({ topic: 'txn', partition: 0, value: 'aborted-2' });
  await txn.abortTransaction();
  await plain.send({ topic: 'txn', partition: 0, value: 'plain-2' });
  txn.beginTransaction();
  await txn.send({ topic: 'txn', partition: 0, value: 'committed-1' });
  await txn.commitTransaction();

  // An open transaction holds back everything after its first record (LSO) for read_committed.
  txn.beginTransaction();
  await txn.send({ topic: 'txn', partition: 0, value: 'late-commit' });
  await plain.send({ topic: 'txn', partition: 0, value: 'plain-3' });

  const rc = consumer(b);
  const ru = consumer(b, { isolationLevel: 'read_uncommitted' });
  try {
    rc.assign([{ topic: 'txn', partition: 0 }]);
    ru.assign([{ topic: 'txn', partition: 0 }]);
    const before = await pollN(rc, 3, 5000);
    assert.deepEqual(before.map((r) => str(r.value)), ['plain-1', 'plain-2', 'committed-1']);
    assert.deepEqual(await rc.poll(500), [], 'nothing past the open transaction yet');
    await txn.commitTransaction();
    const afterCommit = await pollN(rc, 2, 5000);
    assert.deepEqual(afterCommit.map((r) => str(r.value)), ['late-commit', 'plain-3']);
    // Position is past the last marker, so a commit of it leaves no lag.
    assert.equal(await rc.position({ topic: 'txn', partition: 0 }), (await rc.endOffsets([{ topic: 'txn', partition: 0 }]))[0]);

    const all = await pollN(ru, 7, 5000);
    assert.deepEqual(all.map((r) => str(r.value)), ['plain-1', 'aborted-1', 'aborted-2', 'plain-2', 'committed-1', 'late-commit', 'plain-3']);
  } finally {
    await rc.close();
    await ru.close();
    await plain.close();
    await txn.close();
  }
});

test('consume-transform-produce: offsets sent to the transaction are committed with it', async () => {
  await createTopic(b, 'ctp-in', 1);
  await createTopic(b, 'ctp-out', 1);
  const seed = new Producer({ bootstrapServers: b.bootstrap });
  for (let i = 0; i < 5; i++) await seed.send({ topic: 'ctp-in', partition: 0, value: `in-${i}` });
  await seed.close();
  const c = consumer(b, { groupId: 'ctp', enableAutoCommit: false });
  const p = new Producer({ bootstrapServers: b.bootstrap, transactionalId: 'ctp-app' });
  try {
    await p.initTransactions();
    c.subscribe(['ctp-in']);
    const recs = await pollN(c, 5);
    p.beginTransaction();
    for (const r of recs) await p.send({ topic: 'ctp-out', partition: 0, value: `out-${str(r.value)}` });
    await p.sendOffsetsToTransaction([{ topic: 'ctp-in', partition: 0, offset: recs.at(-1)!.offset + 1n }], c.groupMetadata());
    await p.commitTransaction();
    assert.equal((await c.committed([{ topic: 'ctp-in', partition: 0 }]))[0]?.offset, 5n);
  } finally {
    await c.close();
    await p.close();
  }
});
