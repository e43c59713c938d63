// Raw-frame helpers for the transaction protocol v2 tests (KIP-890 part 2): a producer id from
// InitProducerId, transactional batches sent with Produce at a chosen version, EndTxn at a
// chosen version, and a partition's batches as the log holds them (control batches included,
// with their producer epochs).
import assert from 'node:assert/strict';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { endTxnApi } from '../../../src/protocol/messages/generated/end-txn.js';
import { fetchApi } from '../../../src/protocol/messages/generated/fetch.js';
import { findCoordinatorApi } from '../../../src/protocol/messages/generated/find-coordinator.js';
import { initProducerIdApi } from '../../../src/protocol/messages/generated/init-producer-id.js';
import { produceApi } from '../../../src/protocol/messages/generated/produce.js';
import {
  encodeRecordBatchSync,
  isControl,
  iterateBatches,
  readBatchHeader,
} from '../../../src/protocol/record-batch/index.js';
import { scaled } from '../../support/timeouts.js';
import type { RawClient } from '../support/raw-client.js';

export interface Pid {
  id: string;
  producerId: bigint;
  producerEpoch: number;
}

/** Waits until the transaction coordinator answers FindCoordinator (it loads on first use). */
export async function waitForTxnCoordinator(c: RawClient): Promise<void> {
  for (let i = 0; ; i++) {
    const r = await c.request(findCoordinatorApi, 4, { key: '', keyType: 1, coordinatorKeys: ['any'] });
    if (r.coordinators[0]?.errorCode === ErrorCode.NONE) return;
    assert.ok(i < scaled(200), 'timed out waiting for the transaction coordinator');
    await new Promise((res) => setTimeout(res, 50));
  }
}

export async function initPid(c: RawClient, id: string): Promise<Pid> {
  for (let i = 0; ; i++) {
    const r = await c.request(initProducerIdApi, 5, {
      transactionalId: id,
      transactionTimeoutMs: 300_000,
      producerId: -1n,
      producerEpoch: -1,
    });
    if (r.errorCode === ErrorCode.NONE)
      return { id, producerId: r.producerId, producerEpoch: r.producerEpoch };
    assert.ok(i < scaled(100), `timed out: InitProducerId ${id} kept answering error ${r.errorCode}`);
    await new Promise((res) => setTimeout(res, 50));
  }
}

export const txnBatch = (p: Pid, seq: number, values: readonly string[], epoch = p.producerEpoch): Buffer =>
  encodeRecordBatchSync(
    values.map((v) => ({ key: Buffer.from(p.id), value: Buffer.from(v) })),
    { producerId: p.producerId, producerEpoch: epoch, baseSequence: seq, transactional: true },
  );

/** One partition's Produce answer (acks=-1). */
export async function produceTo(
  c: RawClient,
  version: number,
  transactionalId: string | null,
  topic: string,
  partition: number,
  records: Buffer,
) {
  const r = await c.request(produceApi, version, {
    transactionalId,
    acks: -1,
    timeoutMs: 5000,
    topicData: [{ name: topic, partitionData: [{ index: partition, records }] }],
  });
  return r.responses[0]!.partitionResponses[0]!;
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
  const r = await c.request(fetchApi, 11, {
    clusterId: null,
    replicaId: -1,
    replicaState: { replicaId: -1, replicaEpoch: -1n },
    maxWaitMs: 0,
    minBytes: 0,
    maxBytes: 4 << 20,
    isolationLevel: 0,
    sessionId: 0,
    sessionEpoch: -1,
    topics: [
      {
        topic,
        topicId: 'AAAAAAAAAAAAAAAAAAAAAA',
        partitions: [
          {
            partition,
            currentLeaderEpoch: -1,
            fetchOffset: 0n,
            lastFetchedEpoch: -1,
            logStartOffset: -1n,
            partitionMaxBytes: 4 << 20,
            replicaDirectoryId: 'AAAAAAAAAAAAAAAAAAAAAA',
          },
        ],
      },
    ],
    forgottenTopicsData: [],
    rackId: '',
  });
  const p = r.responses[0]!.partitions[0]!;
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
