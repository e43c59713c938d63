// The `transaction.version` gate (KIP-890 part 2): a broker started with transaction.version 1
// finalizes level 1, keeps offering Produce v12 / EndTxn v5 / TxnOffsetCommit v5 (as Kafka 4
// does: clients look at the finalized level) but refuses their protocol v2 behaviour with
// UNSUPPORTED_VERSION — nothing appended, nothing decided — while protocol v1 and
// non-transactional v12 writes work. Level 0 finalizes nothing and writes __transaction_state
// values in v0; levels 1-2 in v1. A level outside 0-2 stops the broker from starting.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { apiVersionsApi } from '../../../src/protocol/messages/generated/api-versions.js';
import { describeTransactionsApi } from '../../../src/protocol/messages/generated/describe-transactions.js';
import { encodeRecordBatchSync } from '../../../src/protocol/record-batch/index.js';
import { startTestBroker, type TestBroker } from '../../../src/testkit/index.js';
import { scaled } from '../../support/timeouts.js';
import { RawClient } from '../support/raw-client.js';
import { createTopic, fetchAll } from '../support/wire.js';
import {
  addPartitions,
  batchesOf,
  coordinatorOf,
  endTxn,
  GROUP,
  initPid,
  produceTo,
  txnBatch,
  txnOffsetCommit,
  waitForTxnCoordinator,
} from './txn-v2-wire-support.js';

const TOPIC = 'gated';
const T = { timeout: scaled(120_000) };

const brokers = new Map<number, { broker: TestBroker; c: RawClient }>();

async function at(level: number): Promise<{ broker: TestBroker; c: RawClient }> {
  let b = brokers.get(level);
  if (b === undefined) {
    const broker = await startTestBroker({ overrides: { 'transaction.version': level } });
    const c = await RawClient.connect(broker.port);
    b = { broker, c };
    brokers.set(level, b);
    assert.equal(await createTopic(c, TOPIC, 2), ErrorCode.NONE);
    await waitForTxnCoordinator(c);
  }
  return b;
}

before(async () => {
  await at(1);
});

after(async () => {
  for (const { broker, c } of brokers.values()) {
    c.close();
    await broker.close();
  }
});

const apiVersions = (c: RawClient) =>
  c.request(apiVersionsApi, 4, { clientSoftwareName: 'test', clientSoftwareVersion: '1' });

test(
  'transaction.version=1: finalized at 1; Produce v12 in a transaction is UNSUPPORTED_VERSION, plain v12 is fine',
  T,
  async () => {
    const { c } = await at(1);
    const v = await apiVersions(c);
    assert.deepEqual(v.finalizedFeatures, [
      { name: 'transaction.version', maxVersionLevel: 1, minVersionLevel: 1 },
    ]);
    assert.equal(v.apiKeys.find((k) => k.apiKey === 0)?.maxVersion, 12);
    const p = await initPid(c, 'gated-produce');
    const before = (await batchesOf(c, TOPIC, 0)).length;
    const r = await produceTo(c, 12, p.id, TOPIC, 0, txnBatch(p, 0, ['v2-refused']));
    assert.equal(r.errorCode, ErrorCode.UNSUPPORTED_VERSION);
    assert.equal((await batchesOf(c, TOPIC, 0)).length, before, 'nothing appended');
    const d = await c.request(describeTransactionsApi, 0, { transactionalIds: [p.id] });
    assert.equal(d.transactionStates[0]!.transactionState, 'Empty', 'no partition added');
    const plain = await produceTo(
      c,
      12,
      null,
      TOPIC,
      0,
      encodeRecordBatchSync([{ value: Buffer.from('plain-v12') }]),
    );
    assert.equal(plain.errorCode, ErrorCode.NONE);
    assert.ok((await fetchAll(c, TOPIC, 0)).some((rec) => rec.value?.toString() === 'plain-v12'));
  },
);

test(
  'transaction.version=1: EndTxn v5 and TxnOffsetCommit v5 are UNSUPPORTED_VERSION; protocol v1 ends the same transaction',
  T,
  async () => {
    const { c } = await at(1);
    const p = await initPid(c, 'gated-end');
    await addPartitions(c, p, TOPIC, [1]);
    assert.equal(
      (await produceTo(c, 11, p.id, TOPIC, 1, txnBatch(p, 0, ['v1-data']))).errorCode,
      ErrorCode.NONE,
    );
    await coordinatorOf(c, GROUP, 'gated-group');
    assert.equal(await txnOffsetCommit(c, p, 'gated-group', TOPIC, 0, 5n), ErrorCode.UNSUPPORTED_VERSION);
    const refused = await endTxn(c, 5, p, true);
    assert.deepEqual(
      [refused.errorCode, refused.producerId, refused.producerEpoch],
      [ErrorCode.UNSUPPORTED_VERSION, -1n, -1],
    );
    const d = await c.request(describeTransactionsApi, 0, { transactionalIds: [p.id] });
    assert.equal(d.transactionStates[0]!.transactionState, 'Ongoing', 'nothing was decided');
    const end = await endTxn(c, 4, p, true);
    assert.equal(end.errorCode, ErrorCode.NONE);
    const marker = (await batchesOf(c, TOPIC, 1)).at(-1)!;
    assert.deepEqual([marker.control, marker.producerEpoch], [true, p.producerEpoch]);
  },
);

/** The value version of the last __transaction_state record of `id`. */
async function stateValueVersion(c: RawClient, id: string): Promise<number> {
  for (let p = 0; p < 50; p++) {
    const recs = await fetchAll(c, '__transaction_state', p).catch(() => []);
    const mine = recs.filter((r) => r.key !== null && r.key.subarray(4).toString() === id);
    if (mine.length > 0) return mine.at(-1)!.value!.readInt16BE(0);
  }
  throw new Error(`no __transaction_state record of ${id}`);
}

test('__transaction_state values: v0 at level 0 (nothing finalized), v1 at level 1', T, async () => {
  for (const level of [0, 1]) {
    const { c } = await at(level);
    const v = await apiVersions(c);
    assert.deepEqual(v.finalizedFeatures.length, level === 0 ? 0 : 1, 'a level 0 feature is not listed');
    const p = await initPid(c, `log-format-${level}`);
    assert.ok(p.producerId >= 0n);
    assert.equal(await stateValueVersion(c, p.id), level === 0 ? 0 : 1);
  }
});

test('transaction.version outside 0-2 stops the broker from starting', T, async () => {
  await assert.rejects(startTestBroker({ overrides: { 'transaction.version': 3 } }), /transaction\.version/);
});
