// TxnRecord <-> __transaction_state bytes in Kafka's format (TransactionLogKey v0 /
// TransactionLogValue v0, what Kafka writes without transaction protocol v2), so a log written
// by Samsa reads as Kafka's. Unknown key versions are skipped; damaged records throw and fail
// the load, as in Kafka.
import {
  decodeTransactionLogRecord,
  encodeTransactionLogKey,
  encodeTransactionLogValue,
} from '../../../protocol/internal-topics/transaction-log.js';
import type { RecordSerde } from '../runtime/coordinator-shard.js';
import type { SerializedRecord } from '../runtime/partition-writer.js';
import { NO_PRODUCER_EPOCH, TXN_STATES, type TxnRecord, type TxnState } from './txn-metadata.js';

function statusOf(state: TxnState): number {
  return TXN_STATES.indexOf(state);
}

export const txnRecordSerde: RecordSerde<TxnRecord> = {
  serialize(r: TxnRecord): SerializedRecord {
    const key = encodeTransactionLogKey({ transactionalId: r.transactionalId });
    const v = r.value;
    if (v === null) return { key, value: null };
    const value = encodeTransactionLogValue({
      producerId: v.producerId,
      previousProducerId: v.previousProducerId,
      nextProducerId: -1n,
      producerEpoch: v.producerEpoch,
      transactionTimeoutMs: v.timeoutMs,
      transactionStatus: statusOf(v.state),
      transactionPartitions:
        v.state === 'Empty'
          ? null
          : v.partitions.map((t) => ({ topic: t.topic, partitionIds: t.partitions })),
      transactionLastUpdateTimestampMs: BigInt(v.lastUpdateTimestamp),
      transactionStartTimestampMs: BigInt(v.startTimestamp),
      clientTransactionVersion: 0,
    });
    return { key, value };
  },

  deserialize(rec: SerializedRecord): TxnRecord | null {
    const d = decodeTransactionLogRecord(rec.key, rec.value);
    if (d.type === 'unknown') return null;
    const v = d.value;
    if (v === null) return { transactionalId: d.key.transactionalId, value: null };
    return {
      transactionalId: d.key.transactionalId,
      value: {
        producerId: v.producerId,
        previousProducerId: v.previousProducerId,
        producerEpoch: v.producerEpoch,
        lastProducerEpoch: NO_PRODUCER_EPOCH,
        timeoutMs: v.transactionTimeoutMs,
        state: TXN_STATES[v.transactionStatus] as TxnState,
        partitions: (v.transactionPartitions ?? []).map((t) => ({
          topic: t.topic,
          partitions: [...t.partitionIds],
        })),
        startTimestamp: Number(v.transactionStartTimestampMs),
        lastUpdateTimestamp: Number(v.transactionLastUpdateTimestampMs),
      },
    };
  },
};
