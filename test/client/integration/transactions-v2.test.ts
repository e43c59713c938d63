// Our producer picks the transaction protocol from the brokers' finalized `transaction.version`
// (KIP-890 part 2): against a broker at level 2 it sends no AddPartitionsToTxn/AddOffsetsToTxn,
// uses Produce v12, TxnOffsetCommit v5 and EndTxn v5 and continues each transaction at the
// epoch the coordinator moved to; against a broker at level 1 it speaks protocol v1 (Produce ≤
// v11, AddPartitionsToTxn v3, EndTxn ≤ v4, one epoch). Either way read_committed readers —
// kcat and confluent-kafka-python (librdkafka 2.0.2) — see exactly the committed records and
// the group's offsets follow the commit. The broker's request log tells which requests and
// versions went out.
//
// A coordinator restart in the middle of a transaction (in-process broker stopped and started
// on the same data directory and port): the producer's commit goes through once the reloaded
// coordinator answers, the records become visible, the next transaction runs at the bumped
// epoch and a late write at the old epoch is fenced.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import type { Logger } from '../../../src/broker/logger.js';
import { Admin, Producer } from '../../../src/client/index.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { startTestBroker, type TestBroker } from '../../../src/testkit/index.js';
import { RawClient } from '../../broker/support/raw-client.js';
import { ckReadCommitted, kcatRead } from '../../broker/txn/interop-support.js';
import { produceTo, txnBatch } from '../../broker/txn/txn-v2-wire-support.js';
import { scaled } from '../../support/timeouts.js';

const T = { timeout: scaled(180_000) };
const CLIENT_ID = 'v2-producer';

/** Collects (api, version) of every request of our producer from the broker's request log. */
function requestRecorder(): { logger: Logger; seen: Array<[string, number]> } {
  const seen: Array<[string, number]> = [];
  return {
    seen,
    logger: {
      enabled: (level) => level === 'debug',
      log(_level, msg, fields) {
        if (msg === 'Completed request' && fields?.clientId === CLIENT_ID)
          seen.push([String(fields.api), Number(fields.apiVersion)]);
      },
    },
  };
}

const brokers: TestBroker[] = [];
after(async () => {
  for (const b of brokers) await b.close().catch(() => undefined);
});

/** The values of every partition of `topic` as confluent-kafka-python reads them under read_committed, sorted. */
async function pythonReadCommitted(bootstrap: string, topic: string, partitions: number): Promise<string[]> {
  const all = Array.from({ length: partitions }, (_, partition) => ({ topic, partition }));
  return (await ckReadCommitted(bootstrap, all)).map((r) => r.value).sort();
}

async function epochOf(admin: Admin, id: string): Promise<number> {
  return (await admin.describeTransactions([id]))[0]!.producerEpoch;
}

/** Three transactions (commit with offsets, abort, commit); returns what the request log saw. */
async function runTransactions(level: number) {
  const rec = requestRecorder();
  const broker = await startTestBroker({ logger: rec.logger, overrides: { 'transaction.version': level } });
  brokers.push(broker);
  const topic = `txn-v${level}`;
  const admin = new Admin({ bootstrapServers: broker.bootstrap });
  await admin.createTopics([{ name: topic, numPartitions: 2, replicationFactor: 1 }]);
  const id = `tx-level-${level}`;
  const p = new Producer({ bootstrapServers: broker.bootstrap, transactionalId: id, clientId: CLIENT_ID });
  try {
    await p.initTransactions();
    const startEpoch = await epochOf(admin, id);
    p.beginTransaction();
    for (let i = 0; i < 6; i++) p.sendAndForget({ topic, partition: i % 2, value: `one-${i}` });
    await p.sendOffsetsToTransaction([{ topic, partition: 0, offset: 11n }], `group-${level}`);
    await p.commitTransaction();
    p.beginTransaction();
    for (let i = 0; i < 4; i++) p.sendAndForget({ topic, partition: i % 2, value: `aborted-${i}` });
    await p.flush();
    await p.abortTransaction();
    p.beginTransaction();
    await p.send({ topic, partition: 1, value: 'three' });
    await p.commitTransaction();
    const expected = ['one-0', 'one-1', 'one-2', 'one-3', 'one-4', 'one-5', 'three'];
    const kcat = (await kcatRead(broker.bootstrap, topic, 'read_committed')).map((r) => r.value).sort();
    assert.deepEqual(kcat, expected, 'kcat read_committed');
    assert.deepEqual(
      await pythonReadCommitted(broker.bootstrap, topic, 2),
      expected,
      'confluent-kafka read_committed',
    );
    const everything = await kcatRead(broker.bootstrap, topic, 'read_uncommitted');
    assert.equal(everything.length, 11, 'the aborted records are in the log');
    const offsets = await admin.listConsumerGroupOffsets(`group-${level}`);
    assert.deepEqual(
      offsets.map((o) => [o.topic, o.partition, o.offset]),
      [[topic, 0, 11n]],
    );
    return { seen: rec.seen, epochs: [startEpoch, await epochOf(admin, id)] };
  } finally {
    await p.close();
    await admin.close();
  }
}

const versions = (seen: Array<[string, number]>, api: string) =>
  [...new Set(seen.filter(([a]) => a === api).map(([, v]) => v))].sort();

test(
  'transaction.version 2: protocol v2 (Produce v12, TxnOffsetCommit v5, EndTxn v5, an epoch per transaction)',
  T,
  async () => {
    const { seen, epochs } = await runTransactions(2);
    assert.deepEqual(versions(seen, 'Produce'), [12]);
    assert.deepEqual(versions(seen, 'EndTxn'), [5]);
    assert.deepEqual(versions(seen, 'TxnOffsetCommit'), [5]);
    assert.deepEqual(versions(seen, 'AddPartitionsToTxn'), [], 'the broker adds the partitions');
    assert.deepEqual(versions(seen, 'AddOffsetsToTxn'), []);
    assert.equal(seen.filter(([a]) => a === 'EndTxn').length, 3);
    assert.equal(epochs[1], epochs[0]! + 3, 'each EndTxn moved the epoch on');
  },
);

test(
  'transaction.version 1: protocol v1 (AddPartitionsToTxn v3, Produce ≤ v11, EndTxn ≤ v4, one epoch)',
  T,
  async () => {
    const { seen, epochs } = await runTransactions(1);
    assert.deepEqual(versions(seen, 'Produce'), [11]);
    assert.deepEqual(versions(seen, 'EndTxn'), [4]);
    assert.deepEqual(versions(seen, 'TxnOffsetCommit'), [4]);
    assert.deepEqual(versions(seen, 'AddPartitionsToTxn'), [3]);
    assert.deepEqual(versions(seen, 'AddOffsetsToTxn'), [4]);
    assert.equal(epochs[1], epochs[0], 'the epoch stays');
  },
);

test(
  'coordinator restart mid-transaction (same data dir): the commit completes, the old epoch is fenced',
  T,
  async () => {
    let broker = await startTestBroker({ overrides: { 'transaction.state.log.num.partitions': 3 } });
    brokers.push(broker);
    const port = broker.port;
    const dataDir = broker.dataDir;
    const topic = 'txn-restart';
    const id = 'tx-restart';
    const admin = new Admin({ bootstrapServers: broker.bootstrap });
    await admin.createTopics([{ name: topic, numPartitions: 2, replicationFactor: 1 }]);
    await admin.close();
    const p = new Producer({
      bootstrapServers: `127.0.0.1:${port}`,
      transactionalId: id,
      transactionTimeoutMs: 600_000,
    });
    try {
      await p.initTransactions();
      p.beginTransaction();
      for (let i = 0; i < 4; i++) p.sendAndForget({ topic, partition: i % 2, value: `before-restart-${i}` });
      await p.flush();
      await broker.stop();
      brokers.pop();
      broker = await startTestBroker({
        dataDir,
        overrides: { 'transaction.state.log.num.partitions': 3, listeners: `PLAINTEXT://127.0.0.1:${port}` },
      });
      brokers.push(broker);
      await p.commitTransaction();
      const values = (await kcatRead(broker.bootstrap, topic, 'read_committed')).map((r) => r.value).sort();
      assert.deepEqual(values, [
        'before-restart-0',
        'before-restart-1',
        'before-restart-2',
        'before-restart-3',
      ]);
      const check = new Admin({ bootstrapServers: broker.bootstrap });
      const d = (await check.describeTransactions([id]))[0]!;
      await check.close();
      assert.equal(d.state, 'CompleteCommit');
      // A late resend of the committed transaction's first batch (its pre-commit epoch) is fenced.
      const c = await RawClient.connect(port);
      try {
        const stale = { id, producerId: d.producerId, producerEpoch: d.producerEpoch - 1 };
        const r = await produceTo(c, 12, id, topic, 0, txnBatch(stale, 0, ['zombie']));
        assert.equal(r.errorCode, ErrorCode.INVALID_PRODUCER_EPOCH);
      } finally {
        c.close();
      }
      // The producer carries on at the new epoch.
      p.beginTransaction();
      await p.send({ topic, partition: 0, value: 'after-restart' });
      await p.commitTransaction();
      const after = (await kcatRead(broker.bootstrap, topic, 'read_committed')).map((r) => r.value);
      assert.ok(after.includes('after-restart'));
      assert.ok(!after.includes('zombie'));
    } finally {
      await p.close();
    }
  },
);
