// `__transaction_state` records (CLIENTS.md §6.2): key = TransactionLogKey v0 {transactionalId};
// value = TransactionLogValue v0 (v1, flexible, only with transaction protocol v2). A null value
// is a tombstone (the transactional id expired).

import { ErrorCode, KafkaError } from '../errors.js';
import {
  readTransactionLogKey,
  type TransactionLogKey,
  writeTransactionLogKey,
} from '../messages/generated/data/transaction-log-key.js';
import {
  readTransactionLogValue,
  type TransactionLogValue,
  writeTransactionLogValue,
} from '../messages/generated/data/transaction-log-value.js';
import { decodeBody, encodeVersioned, InternalRecordError, readVersion } from './versioned.js';

export type { TransactionLogValuePartitionsSchema } from '../messages/generated/data/transaction-log-value.js';
export type { TransactionLogKey, TransactionLogValue };

/** Kafka's `TransactionState` ids as stored in TransactionStatus. */
export const TransactionStatus = {
  EMPTY: 0,
  ONGOING: 1,
  PREPARE_COMMIT: 2,
  PREPARE_ABORT: 3,
  COMPLETE_COMMIT: 4,
  COMPLETE_ABORT: 5,
  DEAD: 6,
  PREPARE_EPOCH_FENCE: 7,
} as const;
export type TransactionStatusValue = (typeof TransactionStatus)[keyof typeof TransactionStatus];

export const TRANSACTION_LOG_KEY_VERSION = 0;

export type TransactionLogRecord =
  | {
      type: 'transaction';
      keyVersion: number;
      key: TransactionLogKey;
      valueVersion: number | null;
      value: TransactionLogValue | null;
    }
  | { type: 'unknown'; keyVersion: number };

function isStatus(n: number): n is TransactionStatusValue {
  return Number.isInteger(n) && n >= TransactionStatus.EMPTY && n <= TransactionStatus.PREPARE_EPOCH_FENCE;
}

export function encodeTransactionLogKey(key: TransactionLogKey): Buffer {
  return encodeVersioned(TRANSACTION_LOG_KEY_VERSION, key, writeTransactionLogKey);
}

/**
 * Encodes a value in v0 (what Kafka writes without transaction protocol v2) or v1. Like Kafka,
 * an Empty transaction stores a null partition list, and Empty with partitions is refused.
 */
export function encodeTransactionLogValue(value: TransactionLogValue, version: 0 | 1 = 0): Buffer {
  if (!isStatus(value.transactionStatus)) {
    throw new KafkaError(
      ErrorCode.INVALID_TXN_STATE,
      `Unknown transaction status ${value.transactionStatus}.`,
    );
  }
  let partitions = value.transactionPartitions;
  if (value.transactionStatus === TransactionStatus.EMPTY) {
    if (partitions !== null && partitions.length > 0) {
      throw new KafkaError(ErrorCode.INVALID_TXN_STATE, 'An Empty transaction cannot have partitions.');
    }
    partitions = null;
  }
  return encodeVersioned(version, { ...value, transactionPartitions: partitions }, writeTransactionLogValue);
}

/** Decodes one `__transaction_state` record. Throws InternalRecordError (CORRUPT_MESSAGE) on damage. */
export function decodeTransactionLogRecord(key: Buffer, value: Buffer | null): TransactionLogRecord {
  const keyVersion = readVersion(key, '__transaction_state key');
  if (keyVersion !== TRANSACTION_LOG_KEY_VERSION) return { type: 'unknown', keyVersion };
  const k = decodeBody(key, keyVersion, 'TransactionLogKey', readTransactionLogKey);
  if (value === null) return { type: 'transaction', keyVersion, key: k, valueVersion: null, value: null };
  const valueVersion = readVersion(value, 'TransactionLogValue');
  const v = decodeBody(value, valueVersion, 'TransactionLogValue', readTransactionLogValue);
  if (!isStatus(v.transactionStatus)) {
    throw new InternalRecordError(`TransactionLogValue: unknown transaction status ${v.transactionStatus}`);
  }
  if (v.transactionStatus === TransactionStatus.EMPTY && v.transactionPartitions !== null) {
    if (v.transactionPartitions.length > 0) {
      throw new InternalRecordError('TransactionLogValue: Empty transaction with partitions');
    }
  }
  return { type: 'transaction', keyVersion, key: k, valueVersion, value: v };
}
