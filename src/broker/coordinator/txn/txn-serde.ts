// TxnRecord <-> __transaction_state bytes in Kafka's format: TransactionLogKey v0 and
// TransactionLogValue v0 (`transaction.version` 0) or v1 (levels 1 and 2: flexible, with the
// previous and next producer id and the client's transaction version as tagged fields), as
// Kafka's TransactionVersion.transactionLogValueVersion picks, so a log written by Samsa reads
// as Kafka's. Both versions are read whatever the level. Unknown key versions are skipped;
// damaged records throw and fail the load, as in Kafka.
import {
  decodeTransactionLogRecord,
  encodeTransactionLogKey,
  encodeTransactionLogValue,
} from '../../../protocol/internal-topics/transaction-log.js';
import type { RecordSerde } from '../runtime/coordinator-shard.js';
import type { SerializedRecord } from '../runtime/partition-writer.js';
import {
  NO_PRODUCER_EPOCH,
  TXN_STATES,
  type TxnMetadata,
  type TxnRecord,
  type TxnState,
} from './txn-metadata.js';

function statusOf(state: TxnState): number {
  return TXN_STATES.indexOf(state);
}

function serdeOf(valueVersion: 0 | 1): RecordSerde<TxnRecord> {
  return {
    serialize(r: TxnRecord): SerializedRecord {
      const key = encodeTransactionLogKey({ transactionalId: r.transactionalId });
      const v = r.value;
      if (v === null) return { key, value: null };
      const value = encodeTransactionLogValue(
        {
          producerId: v.producerId,
          previousProducerId: v.previousProducerId,
          nextProducerId: v.nextProducerId ?? -1n,
          producerEpoch: v.producerEpoch,
          transactionTimeoutMs: v.timeoutMs,
          transactionStatus: statusOf(v.state),
          transactionPartitions:
            v.state === 'Empty'
              ? null
              : v.partitions.map((t) => ({ topic: t.topic, partitionIds: t.partitions })),
          transactionLastUpdateTimestampMs: BigInt(v.lastUpdateTimestamp),
          transactionStartTimestampMs: BigInt(v.startTimestamp),
          clientTransactionVersion: v.clientTransactionVersion ?? 0,
        },
        valueVersion,
      );
      return { key, value };
    },

    deserialize(rec: SerializedRecord): TxnRecord | null {
      const d = decodeTransactionLogRecord(rec.key, rec.value);
      if (d.type === 'unknown') return null;
      const v = d.value;
      if (v === null) return { transactionalId: d.key.transactionalId, value: null };
      const value: TxnMetadata = {
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
      };
      // Protocol v1 leaves these at their defaults: absent, as in a record it wrote itself.
      if (v.clientTransactionVersion !== 0) value.clientTransactionVersion = v.clientTransactionVersion;
      if (v.nextProducerId !== -1n) value.nextProducerId = v.nextProducerId;
      return { transactionalId: d.key.transactionalId, value };
    },
  };
}

/** TransactionLogValue v0: what Kafka writes at `transaction.version` 0. */
export const txnRecordSerde: RecordSerde<TxnRecord> = serdeOf(0);
const txnRecordSerdeV1: RecordSerde<TxnRecord> = serdeOf(1);

/** The serde for a `transaction.version` level (Kafka's transactionLogValueVersion: v1 from level 1). */
export function txnRecordSerdeFor(transactionVersion: number): RecordSerde<TxnRecord> {
  return transactionVersion >= 1 ? txnRecordSerdeV1 : txnRecordSerde;
}
