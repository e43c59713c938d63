// KIP-848 records of __consumer_offsets: ConsumerGroupMemberMetadataValue with and without its
// tagged ClassicMemberMetadata (tag 0: a nullable struct, written with Kafka's generator's
// presence varint), byte for byte against the schema layout; unknown tags skipped; a tag whose
// declared size does not match its content is a damaged record.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  type ClassicMemberMetadata,
  type ConsumerGroupRecord,
  decodeConsumerGroupRecord,
  encodeConsumerGroupRecord,
} from '../../../src/protocol/internal-topics/consumer-group-records.js';
import { InternalRecordError } from '../../../src/protocol/internal-topics/index.js';
import { cat, cstr, i8, i16, i32, str } from './bytes.js';

const base = {
  instanceId: null,
  rackId: null,
  clientId: 'c',
  clientHost: '/h',
  subscribedTopicNames: ['t'],
  subscribedTopicRegex: null,
  rebalanceTimeoutMs: 30_000,
  serverAssignor: null,
};
const body = cat(i16(0), i8(0), i8(0), cstr('c'), cstr('/h'), i8(2), cstr('t'), i8(0), i32(30_000), i8(0));

const record = (classicMemberMetadata: ClassicMemberMetadata | null): ConsumerGroupRecord => ({
  type: 'member-metadata',
  groupId: 'g',
  memberId: 'm',
  value: { ...base, classicMemberMetadata },
});

test('member metadata of a consumer-protocol member: no tagged field', () => {
  const { key, value } = encodeConsumerGroupRecord(record(null));
  assert.deepEqual(key, cat(i16(5), str('g'), str('m')));
  assert.deepEqual(value, cat(body, i8(0)));
  assert.deepEqual(decodeConsumerGroupRecord(key, value), record(null));
});

test('member metadata of a classic member: ClassicMemberMetadata as tag 0, nullable-struct framing', () => {
  const classic = {
    sessionTimeoutMs: 10_000,
    supportedProtocols: [{ name: 'range', metadata: Buffer.from([0xaa, 0xbb]) }],
  };
  const struct = cat(i32(10_000), i8(2), cstr('range'), i8(3), Buffer.from([0xaa, 0xbb]), i8(0), i8(0));
  const expected = cat(body, i8(1), i8(0), i8(struct.length + 1), i8(1), struct);
  const { key, value } = encodeConsumerGroupRecord(record(classic));
  assert.deepEqual(value, expected);
  assert.deepEqual(decodeConsumerGroupRecord(key, value), record(classic));
  // An unknown tag before it (a later Kafka's field) is skipped; a null struct (presence 0) is null.
  const withUnknown = cat(
    body,
    i8(2),
    i8(0),
    i8(struct.length + 1),
    i8(1),
    struct,
    i8(5),
    i8(2),
    i8(9),
    i8(9),
  );
  assert.deepEqual(decodeConsumerGroupRecord(key, withUnknown), record(classic));
  assert.deepEqual(decodeConsumerGroupRecord(key, cat(body, i8(1), i8(0), i8(1), i8(0))), record(null));
  // The tag says it is longer than its content: damaged.
  const bad = cat(body, i8(1), i8(0), i8(struct.length + 3), i8(1), struct, i8(0), i8(0));
  assert.throws(() => decodeConsumerGroupRecord(key, bad), InternalRecordError);
  assert.throws(
    () => decodeConsumerGroupRecord(key, expected.subarray(0, expected.length - 3)),
    InternalRecordError,
  );
});
