// Raw-frame helpers for the transaction tests (KIP-890 part 1 verification, protocol v2 of part
// 2): the coordinator of a key, a producer id from InitProducerId, partitions added with
// AddPartitionsToTxn v3, transactional batches sent with Produce at a chosen version, offsets
// with TxnOffsetCommit v5, EndTxn at a chosen version, and a partition's batches as the log
// holds them (control batches included, with their producer epochs).
import assert from 'node:assert/strict';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { addPartitionsToTxnApi } from '../../../src/protocol/messages/generated/add-partitions-to-txn.js';
import { endTxnApi } from '../../../src/protocol/messages/generated/end-txn.js';
import { findCoordinatorApi } from '../../../src/protocol/messages/generated/find-coordinator.js';
import { initProducerIdApi } from '../../../src/protocol/messages/generated/init-producer-id.js';
import { txnOffsetCommitApi } from '../../../src/protocol/messages/generated/txn-offset-commit.js';
import {
  encodeRecordBatchSync,
  isControl,
  iterateBatches,
  readBatchHeader,
} from '../../../src/protocol/record-batch/index.js';
import { scaled } from '../../support/timeouts.js';
import type { RawClient } from '../support/raw-client.js';
import { fetchOnce, produce } from '../support/wire.js';

export interface Pid {
  id: string;
  producerId: bigint;
  producerEpoch: number;
}

/** FindCoordinator key types. */
export const GROUP = 0;
export const TRANSACTION = 1;

/** The broker coordinating `key`, once one answers (coordinators load on first use). */
export async function coordinatorOf(c: RawClient, keyType: number, key: string): Promise<number> {
  const deadline = Date.now() + scaled(60_000);
  for (;;) {
    const r = await c.request(findCoordinatorApi, 4, { key: '', keyType, coordinatorKeys: [key] });
    const k = r.coordinators[0]!;
    if (k.errorCode === ErrorCode.NONE) return k.nodeId;
    assert.ok(Date.now() < deadline, `timed out: no coordinator for ${key} (error ${k.errorCode})`);
    await new Promise((res) => setTimeout(res, 50));
  }
}

/** Waits until the transaction coordinator answers FindCoordinator. */
export async function waitForTxnCoordinator(c: RawClient): Promise<void> {
  await coordinatorOf(c, TRANSACTION, 'any');
}

/** A producer id and epoch for transactional id `id` (InitProducerId v5), retried while the coordinator loads. */
export async function initPid(c: RawClient, id: string): Promise<Pid> {
  const deadline = Date.now() + scaled(30_000);
  for (;;) {
    const r = await c.request(initProducerIdApi, 5, {
      transactionalId: id,
      transactionTimeoutMs: 300_000,
      producerId: -1n,
      producerEpoch: -1,
    });
    if (r.errorCode === ErrorCode.NONE)
      return { id, producerId: r.producerId, producerEpoch: r.producerEpoch };
    assert.ok(Date.now() < deadline, `timed out: InitProducerId ${id} kept answering error ${r.errorCode}`);
    await new Promise((res) => setTimeout(res, 50));
  }
}

export const txnBatch = (p: Pid, seq: number, values: readonly string[], epoch = p.producerEpoch): Buffer =>
  encodeRecordBatchSync(
    values.map((v) => ({ key: Buffer.from(p.id), value: Buffer.from(v) })),
    { producerId: p.producerId, producerEpoch: epoch, baseSequence: seq, transactional: true },
  );

/** One partition's Produce answer (acks=-1). */
export function produceTo(
  c: RawClient,
  version: number,
  transactionalId: string | null,
  topic: string,
  partition: number,
  records: Buffer,
) {
  return produce(c, topic, partition, records, -1, version, transactionalId);
}

/** AddPartitionsToTxn v3 (protocol v1, as the client sends it): every partition must be added. */
export async function addPartitions(
  c: RawClient,
  p: Pid,
  topic: string,
  partitions: number[],
): Promise<void> {
  const r = await c.request(addPartitionsToTxnApi, 3, {
    transactions: [],
    v3AndBelowTransactionalId: p.id,
    v3AndBelowProducerId: p.producerId,
    v3AndBelowProducerEpoch: p.producerEpoch,
    v3AndBelowTopics: [{ name: topic, partitions }],
  });
  const codes = r.resultsByTopicV3AndBelow.flatMap((t) =>
    t.resultsByPartition.map((x) => x.partitionErrorCode),
  );
  assert.deepEqual(
    codes,
    partitions.map(() => ErrorCode.NONE),
    `AddPartitionsToTxn ${p.id}`,
  );
}

/** TxnOffsetCommit v5 of `offset` for one partition, by a group-less producer: the partition's error code. */
export async function txnOffsetCommit(
  c: RawClient,
  p: Pid,
  groupId: string,
  topic: string,
  partitionIndex: number,
  committedOffset: bigint,
  epoch = p.producerEpoch,
): Promise<number> {
  const r = await c.request(txnOffsetCommitApi, 5, {
    transactionalId: p.id,
    groupId,
    producerId: p.producerId,
    producerEpoch: epoch,
    generationId: -1,
    memberId: '',
    groupInstanceId: null,
    topics: [
      {
        name: topic,
        partitions: [{ partitionIndex, committedOffset, committedLeaderEpoch: -1, committedMetadata: '' }],
      },
    ],
  });
  return r.topics[0]!.partitions[0]!.errorCode;
}

export function endTxn(c: RawClient, version: number, p: Pid, committed: boolean, epoch = p.producerEpoch) {
  return c.request(endTxnApi, version, {
    transactionalId: p.id,
    producerId: p.producerId,
    producerEpoch: epoch,
    committed,
  });
}

export interface LoggedBatch {
  baseOffset: bigint;
  control: boolean;
  producerId: bigint;
  producerEpoch: number;
  count: number;
}

/** Every batch of a partition up to its high watermark, read_uncommitted. */
export async function batchesOf(c: RawClient, topic: string, partition: number): Promise<LoggedBatch[]> {
  const p = await fetchOnce(c, topic, partition, 0n, { partitionMaxBytes: 4 << 20 });
  assert.equal(p.errorCode, ErrorCode.NONE);
  const records = p.records ?? Buffer.alloc(0);
  const out: LoggedBatch[] = [];
  for (const b of iterateBatches(records)) {
    const h = readBatchHeader(records, b.position);
    out.push({
      baseOffset: h.baseOffset,
      control: isControl(h.attributes),
      producerId: h.producerId,
      producerEpoch: h.producerEpoch,
      count: h.recordCount,
    });
  }
  return out;
}
