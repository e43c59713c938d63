// KIP-890 part 1 in Produce (`transaction.partition.verification.enable`, default true as in
// Kafka 3.6+): raw frames against one broker. A transactional batch for a partition its
// transaction never added (no AddPartitionsToTxn) is refused with INVALID_TXN_STATE and nothing
// is appended; with AddPartitionsToTxn it is accepted, the transaction's later batches too
// (also pipelined), a fenced epoch gets INVALID_PRODUCER_EPOCH, and with the key set false the
// legacy behaviour comes back (the write that makes a hanging transaction is accepted).

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Admin } from '../../../src/client/admin/admin.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { decodeResponse } from '../../../src/protocol/messages/frame.js';
import { apiVersionsApi } from '../../../src/protocol/messages/generated/api-versions.js';
import { produceApi } from '../../../src/protocol/messages/generated/produce.js';
import { encodeRecordBatchSync } from '../../../src/protocol/record-batch/index.js';
import { startTestBroker, type TestBroker } from '../../../src/testkit/index.js';
import { scaled } from '../../support/timeouts.js';
import { RawClient } from '../support/raw-client.js';
import { createTopic, listOffset, produce } from '../support/wire.js';
import {
  addPartitions,
  endTxn,
  initPid,
  type Pid,
  produceTo,
  txnBatch,
  waitForTxnCoordinator,
} from './txn-v2-wire-support.js';

const TOPIC = 'verified';
const T = { timeout: scaled(60_000) };

let broker: TestBroker;
let c: RawClient;

before(async () => {
  broker = await startTestBroker();
  c = await RawClient.connect(broker.port);
  assert.equal(await createTopic(c, TOPIC, 8), ErrorCode.NONE);
  await waitForTxnCoordinator(c);
});

after(async () => {
  c?.close();
  await broker?.close();
});

/** EndTxn v3 (protocol v1), which must succeed. */
async function finish(p: Pid, committed: boolean): Promise<void> {
  assert.equal((await endTxn(c, 3, p, committed)).errorCode, ErrorCode.NONE);
}

/** The partition's high watermark and log end offset (one replica: they move together). */
async function ends(partition: number): Promise<{ hw: bigint; leo: bigint }> {
  const hw = await listOffset(c, TOPIC, partition);
  return { hw, leo: broker.services.replicas.get(TOPIC, partition)!.log.logEndOffset };
}

test(
  'a transactional Produce without AddPartitionsToTxn: INVALID_TXN_STATE, nothing appended',
  T,
  async () => {
    const p = await initPid(c, 'not-added');
    const before = await ends(0);
    for (const version of [3, 9]) {
      const r = await produceTo(c, version, p.id, TOPIC, 0, txnBatch(p, 0, ['ghost']));
      assert.equal(r.errorCode, ErrorCode.INVALID_TXN_STATE, `Produce v${version}`);
      assert.equal(r.baseOffset, -1n);
      if (version >= 8) assert.equal(r.errorMessage, 'Partition was not added to the transaction');
    }
    assert.deepEqual(await ends(0), before);
    // The broker keeps serving: the connection answers, a plain write goes through.
    const versions = await c.request(apiVersionsApi, 3, {
      clientSoftwareName: 'test',
      clientSoftwareVersion: '1',
    });
    assert.equal(versions.errorCode, ErrorCode.NONE);
    const plain = await produce(c, TOPIC, 0, encodeRecordBatchSync([{ value: Buffer.from('plain') }]), -1);
    assert.equal(plain.errorCode, ErrorCode.NONE);
    assert.equal(plain.baseOffset, before.leo);
    // Once added, the same producer's batch is accepted.
    await addPartitions(c, p, TOPIC, [0]);
    const ok = await produceTo(c, 9, p.id, TOPIC, 0, txnBatch(p, 0, ['now-added']));
    assert.equal(ok.errorCode, ErrorCode.NONE);
    await finish(p, false);
  },
);

test('a transactional batch without a transactional id is refused too', T, async () => {
  const p = await initPid(c, 'no-id');
  const before = await ends(5);
  const r = await produceTo(c, 9, null, TOPIC, 5, txnBatch(p, 0, ['anonymous']));
  assert.equal(r.errorCode, ErrorCode.INVALID_TXN_STATE);
  assert.deepEqual(await ends(5), before);
});

test(
  'with AddPartitionsToTxn: accepted, later batches too, and a new transaction is verified again',
  T,
  async () => {
    const p = await initPid(c, 'added');
    await addPartitions(c, p, TOPIC, [1]);
    const before = await ends(1);
    const first = await produceTo(c, 9, p.id, TOPIC, 1, txnBatch(p, 0, ['a']));
    assert.equal(first.errorCode, ErrorCode.NONE);
    assert.equal(first.baseOffset, before.leo);
    const second = await produceTo(c, 9, p.id, TOPIC, 1, txnBatch(p, 1, ['b']));
    assert.equal(second.errorCode, ErrorCode.NONE);
    assert.equal(second.baseOffset, before.leo + 1n);
    await finish(p, true); // the COMMIT marker ends the transaction on the partition
    const afterCommit = await ends(1);
    assert.equal(afterCommit.leo, before.leo + 3n);
    // The next transaction did not add partition 1: its first batch is refused.
    const next = await produceTo(c, 9, p.id, TOPIC, 1, txnBatch(p, 2, ['c']));
    assert.equal(next.errorCode, ErrorCode.INVALID_TXN_STATE);
    assert.deepEqual(await ends(1), afterCommit);
    await addPartitions(c, p, TOPIC, [1]);
    const added = await produceTo(c, 9, p.id, TOPIC, 1, txnBatch(p, 2, ['c']));
    assert.equal(added.errorCode, ErrorCode.NONE);
    await finish(p, false);
  },
);

test('pipelined Produce requests of a transaction keep their order behind the verification', T, async () => {
  const p = await initPid(c, 'pipelined');
  await addPartitions(c, p, TOPIC, [2]);
  const before = await ends(2);
  const ids: number[] = [];
  for (let seq = 0; seq < 5; seq++)
    ids.push(
      c.sendRequest(produceApi, 9, {
        transactionalId: p.id,
        acks: 1,
        timeoutMs: 5000,
        topicData: [{ name: TOPIC, partitionData: [{ index: 2, records: txnBatch(p, seq, [`v${seq}`]) }] }],
      }),
    );
  for (let i = 0; i < ids.length; i++) {
    const frame = await c.nextFrame(scaled(10_000));
    assert.ok(frame, 'a produce response');
    const { correlationId, body } = decodeResponse(produceApi, 9, frame);
    assert.equal(correlationId, ids[i]);
    const r = body.responses[0]!.partitionResponses[0]!;
    assert.equal(r.errorCode, ErrorCode.NONE, `batch ${i}: ${r.errorMessage}`);
    assert.equal(r.baseOffset, before.leo + BigInt(i));
  }
  await finish(p, true);
});

test('a fenced epoch: INVALID_PRODUCER_EPOCH, nothing appended', T, async () => {
  const old = await initPid(c, 'fenced');
  const cur = await initPid(c, 'fenced'); // epoch + 1
  assert.equal(cur.producerId, old.producerId);
  await addPartitions(c, cur, TOPIC, [3]);
  const before = await ends(3);
  const r = await produceTo(c, 9, old.id, TOPIC, 3, txnBatch(old, 0, ['zombie']));
  assert.equal(r.errorCode, ErrorCode.INVALID_PRODUCER_EPOCH);
  assert.deepEqual(await ends(3), before);
  await finish(cur, false);
});

test(
  'transaction.partition.verification.enable=false: the unverified write is accepted (legacy)',
  T,
  async () => {
    const admin = new Admin({ bootstrapServers: broker.bootstrap });
    const set = (value: string | null) =>
      admin.incrementalAlterConfigs([
        {
          type: 'broker',
          name: '',
          ops: [
            value === null
              ? { key: 'transaction.partition.verification.enable', op: 'delete' }
              : { key: 'transaction.partition.verification.enable', op: 'set', value },
          ],
        },
      ]);
    try {
      const p = await initPid(c, 'legacy');
      const before = await ends(4);
      await set('false');
      const deadline = Date.now() + scaled(20_000);
      let r = await produceTo(c, 9, p.id, TOPIC, 4, txnBatch(p, 0, ['unverified']));
      // The dynamic value reaches the broker through its metadata; a refusal appends nothing.
      while (r.errorCode === ErrorCode.INVALID_TXN_STATE && Date.now() < deadline) {
        await new Promise((res) => setTimeout(res, 50));
        r = await produceTo(c, 9, p.id, TOPIC, 4, txnBatch(p, 0, ['unverified']));
      }
      assert.equal(r.errorCode, ErrorCode.NONE);
      assert.equal(r.baseOffset, before.leo);
      assert.equal((await ends(4)).leo, before.leo + 1n);
      // Back to the default: verification again (each try a new transactional id; a write still
      // accepted while the deletion travels is harmless here).
      await set(null);
      const until = Date.now() + scaled(20_000);
      let code: number = ErrorCode.NONE;
      for (let i = 0; code !== ErrorCode.INVALID_TXN_STATE && Date.now() < until; i++) {
        if (i > 0) await new Promise((res) => setTimeout(res, 50));
        const q = await initPid(c, `legacy-after-${i}`);
        code = (await produceTo(c, 9, q.id, TOPIC, 6, txnBatch(q, 0, ['x']))).errorCode;
      }
      assert.equal(code, ErrorCode.INVALID_TXN_STATE);
    } finally {
      await admin.close();
    }
  },
);
