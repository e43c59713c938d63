// __transaction_state records in Kafka's byte format: round trip, the v0 layout, Empty with a
// null partition list, tombstones, unknown key versions skipped, damage rejected.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TxnMetadata } from '../../../src/broker/coordinator/txn/txn-metadata.js';
import { txnRecordSerde } from '../../../src/broker/coordinator/txn/txn-serde.js';

const ongoing: TxnMetadata = {
  producerId: 4242n,
  previousProducerId: -1n,
  producerEpoch: 3,
  lastProducerEpoch: -1,
  timeoutMs: 60_000,
  state: 'Ongoing',
  partitions: [
    { topic: '__consumer_offsets', partitions: [7] },
    { topic: 'out', partitions: [0, 2] },
  ],
  startTimestamp: 1_700_000_000_000,
  lastUpdateTimestamp: 1_700_000_000_500,
};

test('a transaction record round-trips and is written as TransactionLogValue v0', () => {
  const bytes = txnRecordSerde.serialize({ transactionalId: 'my-transactional-id', value: ongoing });
  // Key: int16 version 0 + string.
  assert.equal(bytes.key.readInt16BE(0), 0);
  assert.equal(bytes.key.readInt16BE(2), 'my-transactional-id'.length);
  const v = bytes.value!;
  assert.equal(v.readInt16BE(0), 0, 'value version 0');
  assert.equal(v.readBigInt64BE(2), 4242n);
  assert.equal(v.readInt16BE(10), 3);
  assert.equal(v.readInt32BE(12), 60_000);
  assert.equal(v.readInt8(16), 1, 'Ongoing');
  assert.equal(v.readInt32BE(17), 2, 'two topics');
  const back = txnRecordSerde.deserialize(bytes);
  assert.deepEqual(back, { transactionalId: 'my-transactional-id', value: ongoing });
});

test('Empty stores a null partition list; a tombstone has a null value', () => {
  const empty: TxnMetadata = { ...ongoing, state: 'Empty', partitions: [], startTimestamp: -1 };
  const bytes = txnRecordSerde.serialize({ transactionalId: 't', value: empty });
  assert.equal(bytes.value!.readInt32BE(17), -1, 'null array');
  assert.deepEqual(txnRecordSerde.deserialize(bytes), { transactionalId: 't', value: empty });
  const tomb = txnRecordSerde.serialize({ transactionalId: 't', value: null });
  assert.equal(tomb.value, null);
  assert.deepEqual(txnRecordSerde.deserialize(tomb), { transactionalId: 't', value: null });
});

test('unknown key versions are skipped; damaged values are rejected', () => {
  const bytes = txnRecordSerde.serialize({ transactionalId: 't', value: ongoing });
  const key = Buffer.from(bytes.key);
  key.writeInt16BE(5, 0);
  assert.equal(txnRecordSerde.deserialize({ key, value: bytes.value }), null);
  assert.throws(() => txnRecordSerde.deserialize({ key: bytes.key, value: bytes.value!.subarray(0, 12) }));
  const badStatus = Buffer.from(bytes.value!);
  badStatus.writeInt8(9, 16);
  assert.throws(() => txnRecordSerde.deserialize({ key: bytes.key, value: badStatus }));
});
