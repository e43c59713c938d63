import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ErrorCode, KafkaError } from '../../../src/protocol/errors.js';
import {
  decodeConsumerOffsetsRecord,
  encodeGroupMetadataKey,
  encodeGroupMetadataValue,
  encodeOffsetCommitKey,
  encodeOffsetCommitValue,
  type GroupMetadataValue,
  InternalRecordError,
} from '../../../src/protocol/internal-topics/index.js';
import { bytes, cat, cstr, i8, i16, i32, i64, str } from './bytes.js';

const isCorrupt = (e: unknown): boolean =>
  e instanceof InternalRecordError && e instanceof KafkaError && e.code === ErrorCode.CORRUPT_MESSAGE;

test('OffsetCommitKey is written as version 1 with the schema layout', () => {
  const key = encodeOffsetCommitKey({ group: 'my-group', topic: 'orders', partition: 7 });
  assert.deepEqual(key, cat(i16(1), str('my-group'), str('orders'), i32(7)));
});

test('OffsetCommitValue: v3 normally, v1 when an expire timestamp exists', () => {
  const v3 = encodeOffsetCommitValue({ offset: 42n, leaderEpoch: 5, metadata: 'm', commitTimestamp: 1000n });
  assert.deepEqual(v3, cat(i16(3), i64(42n), i32(5), str('m'), i64(1000n)));
  const v1 = encodeOffsetCommitValue({
    offset: 42n,
    leaderEpoch: 5,
    metadata: '',
    commitTimestamp: 1000n,
    expireTimestamp: 2000n,
  });
  assert.deepEqual(v1, cat(i16(1), i64(42n), str(''), i64(1000n), i64(2000n)));
});

test('offset records round-trip and decode every value version', () => {
  const key = encodeOffsetCommitKey({ group: 'g', topic: 't', partition: 0 });
  const value = encodeOffsetCommitValue({ offset: 9n, leaderEpoch: 2, metadata: 'x', commitTimestamp: 5n });
  assert.deepEqual(decodeConsumerOffsetsRecord(key, value), {
    type: 'offset',
    keyVersion: 1,
    key: { group: 'g', topic: 't', partition: 0 },
    valueVersion: 3,
    value: { offset: 9n, leaderEpoch: 2, metadata: 'x', commitTimestamp: 5n, expireTimestamp: -1n },
  });
  // Key v0 has the same layout as v1.
  const key0 = cat(i16(0), str('g'), str('t'), i32(0));
  const base = cat(i64(9n), str('x'), i64(5n));
  const values: Array<[Buffer, number, bigint]> = [
    [cat(i16(0), base), -1, -1n],
    [cat(i16(1), base, i64(77n)), -1, 77n],
    [cat(i16(2), base), -1, -1n],
    [cat(i16(4), i64(9n), i32(2), cstr('x'), i64(5n), i8(0)), 2, -1n],
  ];
  for (const [buf, epoch, expire] of values) {
    const rec = decodeConsumerOffsetsRecord(key0, buf);
    assert.equal(rec.type, 'offset');
    if (rec.type !== 'offset') continue;
    assert.deepEqual(rec.key, { group: 'g', topic: 't', partition: 0 });
    assert.equal(rec.valueVersion, buf.readInt16BE(0));
    assert.deepEqual(rec.value, {
      offset: 9n,
      leaderEpoch: epoch,
      metadata: 'x',
      commitTimestamp: 5n,
      expireTimestamp: expire,
    });
  }
});

test('a null value is a tombstone', () => {
  const rec = decodeConsumerOffsetsRecord(
    encodeOffsetCommitKey({ group: 'g', topic: 't', partition: 1 }),
    null,
  );
  assert.deepEqual(rec, {
    type: 'offset',
    keyVersion: 1,
    key: { group: 'g', topic: 't', partition: 1 },
    valueVersion: null,
    value: null,
  });
  const group = decodeConsumerOffsetsRecord(encodeGroupMetadataKey({ group: 'g' }), null);
  assert.deepEqual(group, {
    type: 'group',
    keyVersion: 2,
    key: { group: 'g' },
    valueVersion: null,
    value: null,
  });
});

const SAMPLE_GROUP: GroupMetadataValue = {
  protocolType: 'consumer',
  generation: 3,
  protocol: 'range',
  leader: 'm-1',
  currentStateTimestamp: 1700000000000n,
  members: [
    {
      memberId: 'm-1',
      groupInstanceId: null,
      clientId: 'c',
      clientHost: '/127.0.0.1',
      rebalanceTimeout: 300000,
      sessionTimeout: 45000,
      subscription: Buffer.from([0, 1, 2]),
      assignment: Buffer.from([3, 4]),
    },
  ],
};

test('GroupMetadataKey v2 and GroupMetadataValue v3 layout', () => {
  assert.deepEqual(encodeGroupMetadataKey({ group: 'grp' }), cat(i16(2), str('grp')));
  const expected = cat(
    i16(3),
    str('consumer'),
    i32(3),
    str('range'),
    str('m-1'),
    i64(1700000000000n),
    i32(1),
    str('m-1'),
    str(null),
    str('c'),
    str('/127.0.0.1'),
    i32(300000),
    i32(45000),
    bytes(Buffer.from([0, 1, 2])),
    bytes(Buffer.from([3, 4])),
  );
  const value = encodeGroupMetadataValue(SAMPLE_GROUP);
  assert.deepEqual(value, expected);
  const rec = decodeConsumerOffsetsRecord(encodeGroupMetadataKey({ group: 'grp' }), value);
  assert.deepEqual(rec, {
    type: 'group',
    keyVersion: 2,
    key: { group: 'grp' },
    valueVersion: 3,
    value: SAMPLE_GROUP,
  });
});

test('GroupMetadataValue v0 (empty group) decodes with defaults for later fields', () => {
  const v0 = cat(i16(0), str(''), i32(0), str(null), str(null), i32(0));
  const rec = decodeConsumerOffsetsRecord(encodeGroupMetadataKey({ group: 'grp' }), v0);
  assert.equal(rec.type, 'group');
  if (rec.type !== 'group') return;
  assert.deepEqual(rec.value, {
    protocolType: '',
    generation: 0,
    protocol: null,
    leader: null,
    currentStateTimestamp: -1n,
    members: [],
  });
});

test('unknown key versions (KIP-848/932 record types, garbage) decode as unknown', () => {
  for (const v of [3, 4, 8, 9, 15, 99, -1]) {
    const rec = decodeConsumerOffsetsRecord(cat(i16(v), str('whatever')), Buffer.from([0, 0, 1]));
    assert.deepEqual(rec, { type: 'unknown', keyVersion: v });
  }
});

test('damaged records throw InternalRecordError (CORRUPT_MESSAGE)', () => {
  const goodKey = encodeOffsetCommitKey({ group: 'g', topic: 't', partition: 0 });
  const goodValue = encodeOffsetCommitValue({
    offset: 1n,
    leaderEpoch: -1,
    metadata: '',
    commitTimestamp: 0n,
  });
  const cases: Array<[Buffer, Buffer | null]> = [
    [Buffer.alloc(0), null], // no version prefix
    [Buffer.from([0]), null],
    [goodKey.subarray(0, goodKey.length - 1), null], // truncated key
    [cat(i16(1), i16(200), Buffer.from('g')), null], // string length beyond the end
    [goodKey, goodValue.subarray(0, goodValue.length - 2)], // truncated value
    [goodKey, Buffer.from([0])], // value without a full version prefix
    [goodKey, cat(i16(9), goodValue.subarray(2))], // unknown value version
    // Hostile member count: must fail on the bytes left, not allocate 2^31 entries.
    [
      encodeGroupMetadataKey({ group: 'g' }),
      cat(i16(3), str('c'), i32(1), str(null), str(null), i64(0n), i32(0x7fffffff)),
    ],
  ];
  for (const [k, v] of cases) assert.throws(() => decodeConsumerOffsetsRecord(k, v), isCorrupt);
});
