import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ErrorCode, KafkaError } from '../../../src/protocol/errors.js';
import {
  decodeTransactionLogRecord,
  encodeTransactionLogKey,
  encodeTransactionLogValue,
  InternalRecordError,
  type TransactionLogValue,
  TransactionStatus,
} from '../../../src/protocol/internal-topics/index.js';
import { cat, i8, i16, i32, i64, str } from './bytes.js';

const ONGOING: TransactionLogValue = {
  producerId: 1000n,
  previousProducerId: -1n,
  nextProducerId: -1n,
  producerEpoch: 2,
  transactionTimeoutMs: 60000,
  transactionStatus: TransactionStatus.ONGOING,
  transactionPartitions: [
    { topic: 'a', partitionIds: [0, 2] },
    { topic: 'b', partitionIds: [1] },
  ],
  transactionLastUpdateTimestampMs: 1700000000500n,
  transactionStartTimestampMs: 1700000000000n,
  clientTransactionVersion: 0,
};

test('status ids match Kafka TransactionState', () => {
  assert.deepEqual(Object.values(TransactionStatus), [0, 1, 2, 3, 4, 5, 6, 7]);
  assert.equal(TransactionStatus.PREPARE_EPOCH_FENCE, 7);
});

test('key v0 and value v0 layout', () => {
  assert.deepEqual(encodeTransactionLogKey({ transactionalId: 'tx-1' }), cat(i16(0), str('tx-1')));
  const expected = cat(
    i16(0),
    i64(1000n),
    i16(2),
    i32(60000),
    i8(1),
    i32(2),
    str('a'),
    i32(2),
    i32(0),
    i32(2),
    str('b'),
    i32(1),
    i32(1),
    i64(1700000000500n),
    i64(1700000000000n),
  );
  const value = encodeTransactionLogValue(ONGOING);
  assert.deepEqual(value, expected);
  const rec = decodeTransactionLogRecord(encodeTransactionLogKey({ transactionalId: 'tx-1' }), value);
  assert.deepEqual(rec, {
    type: 'transaction',
    keyVersion: 0,
    key: { transactionalId: 'tx-1' },
    valueVersion: 0,
    value: ONGOING,
  });
});

test('Empty stores a null partition list; Empty with partitions is refused', () => {
  const empty = { ...ONGOING, transactionStatus: TransactionStatus.EMPTY, transactionPartitions: [] };
  const value = encodeTransactionLogValue(empty);
  // ...producerId, epoch, timeout, status 0, then a null array (-1).
  assert.deepEqual(value.subarray(2 + 8 + 2 + 4, 2 + 8 + 2 + 4 + 5), cat(i8(0), i32(-1)));
  const rec = decodeTransactionLogRecord(encodeTransactionLogKey({ transactionalId: 't' }), value);
  assert.equal(rec.type === 'transaction' && rec.value?.transactionPartitions, null);
  assert.throws(
    () => encodeTransactionLogValue({ ...ONGOING, transactionStatus: TransactionStatus.EMPTY }),
    (e: unknown) => e instanceof KafkaError && e.code === ErrorCode.INVALID_TXN_STATE,
  );
  assert.throws(
    () => encodeTransactionLogValue({ ...ONGOING, transactionStatus: 8 }),
    (e: unknown) => e instanceof KafkaError && e.code === ErrorCode.INVALID_TXN_STATE,
  );
});

test('value v1 (flexible, tagged producer ids) round-trips', () => {
  const v: TransactionLogValue = {
    ...ONGOING,
    previousProducerId: 999n,
    nextProducerId: 1001n,
    clientTransactionVersion: 2,
  };
  const buf = encodeTransactionLogValue(v, 1);
  assert.equal(buf.readInt16BE(0), 1);
  const rec = decodeTransactionLogRecord(encodeTransactionLogKey({ transactionalId: 'x' }), buf);
  assert.deepEqual(rec.type === 'transaction' ? rec.value : undefined, v);
  // Hand-built v1 with no tagged fields: defaults apply.
  // Compact array length 0 = null partitions.
  const bare = cat(i16(1), i64(5n), i16(0), i32(100), i8(4), i8(0), i64(1n), i64(0n), i8(0));
  const r2 = decodeTransactionLogRecord(encodeTransactionLogKey({ transactionalId: 'x' }), bare);
  assert.deepEqual(r2.type === 'transaction' ? r2.value : undefined, {
    producerId: 5n,
    previousProducerId: -1n,
    nextProducerId: -1n,
    producerEpoch: 0,
    transactionTimeoutMs: 100,
    transactionStatus: TransactionStatus.COMPLETE_COMMIT,
    transactionPartitions: null,
    transactionLastUpdateTimestampMs: 1n,
    transactionStartTimestampMs: 0n,
    clientTransactionVersion: 0,
  });
});

test('tombstones, unknown key versions and damage', () => {
  const key = encodeTransactionLogKey({ transactionalId: 'gone' });
  assert.deepEqual(decodeTransactionLogRecord(key, null), {
    type: 'transaction',
    keyVersion: 0,
    key: { transactionalId: 'gone' },
    valueVersion: null,
    value: null,
  });
  assert.deepEqual(decodeTransactionLogRecord(cat(i16(1), str('x')), null), {
    type: 'unknown',
    keyVersion: 1,
  });
  const good = encodeTransactionLogValue(ONGOING);
  const badStatus = Buffer.from(good);
  badStatus[2 + 8 + 2 + 4] = 9;
  const cases: Array<[Buffer, Buffer | null]> = [
    [Buffer.from([0]), null],
    [cat(i16(0), i16(10), Buffer.from('abc')), null],
    [key, good.subarray(0, good.length - 1)],
    [key, badStatus],
    [key, cat(i16(5), good.subarray(2))],
    [key, cat(i16(0), i64(1n), i16(0), i32(1), i8(1), i32(0x7fffffff))],
  ];
  for (const [k, v] of cases) {
    assert.throws(
      () => decodeTransactionLogRecord(k, v),
      (e: unknown) => e instanceof InternalRecordError && e.code === ErrorCode.CORRUPT_MESSAGE,
    );
  }
});
