// The group coordinator writes committed offsets with its own encoder (one allocation per
// record); its bytes must be exactly the generated codecs' (what Kafka writes and reads).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { OffsetValue } from '../../../src/broker/coordinator/group/group-records.js';
import { groupRecordSerde } from '../../../src/broker/coordinator/group/group-serde.js';
import { encodeOffsetRecord } from '../../../src/broker/coordinator/group/offset-record-encoder.js';
import {
  decodeConsumerOffsetsRecord,
  encodeOffsetCommitKey,
  encodeOffsetCommitValue,
} from '../../../src/protocol/internal-topics/index.js';
import { EncodeError } from '../../../src/protocol/primitives/errors.js';

const value = (extra: Partial<OffsetValue> = {}): OffsetValue => ({
  offset: 42n,
  leaderEpoch: 7,
  metadata: 'meta',
  commitTimestamp: 1_700_000_000_123,
  expireTimestamp: -1,
  ...extra,
});

const cases: Array<[string, string, number, OffsetValue | null]> = [
  ['g', 't', 0, value()],
  ['group-é-🙂', 'tópic', 2_147_483_647, value({ metadata: 'ünïcødé 🙂', leaderEpoch: -1 })],
  ['', '', 0, value({ metadata: '', offset: -1n })],
  ['g', 't', 5, value({ offset: 9_007_199_254_740_993n, commitTimestamp: 0 })],
  ['g', 't', 6, value({ offset: -5n, commitTimestamp: -2, leaderEpoch: 2_147_483_647 })],
  ['g', 't', 7, value({ commitTimestamp: 2 ** 53 - 1, expireTimestamp: 2 ** 40 + 3 })],
  ['ascii-then-é'.repeat(20), 'long-topic'.repeat(40), 8, value({ metadata: 'ü'.repeat(300) })],
  ['old-client', 't', 1, value({ expireTimestamp: 1_700_000_600_000 })],
  ['g', 't', 3, null],
  ['x'.repeat(32_767), 't', 0, value({ metadata: 'm'.repeat(4096) })],
];

test('offset records are byte for byte what the generated codecs write, and decode back', () => {
  for (const [group, topic, partition, v] of cases) {
    const got = encodeOffsetRecord(group, topic, partition, v);
    assert.deepEqual(got.key, encodeOffsetCommitKey({ group, topic, partition }));
    const want =
      v === null
        ? null
        : encodeOffsetCommitValue({
            offset: v.offset,
            leaderEpoch: v.leaderEpoch,
            metadata: v.metadata,
            commitTimestamp: BigInt(v.commitTimestamp),
            ...(v.expireTimestamp >= 0 ? { expireTimestamp: BigInt(v.expireTimestamp) } : {}),
          });
    assert.deepEqual(got.value, want);
    const back = groupRecordSerde.deserialize(got);
    assert.deepEqual(back, {
      kind: 'offset',
      group,
      topic,
      partition,
      value:
        v === null
          ? null
          : {
              ...v,
              leaderEpoch: v.expireTimestamp >= 0 ? -1 : v.leaderEpoch,
              expireTimestamp: v.expireTimestamp,
            },
    });
    assert.equal(decodeConsumerOffsetsRecord(got.key, got.value).type, 'offset');
  }
});

test('a string over 32767 bytes fails to encode, as with the generated codecs', () => {
  assert.throws(
    () => encodeOffsetRecord('g'.repeat(32_768), 't', 0, value()),
    (e) => e instanceof EncodeError && e.code === 'STRING_TOO_LONG',
  );
  assert.throws(
    () => encodeOffsetRecord('g', 't', 0, value({ metadata: 'é'.repeat(16_384) })),
    (e) => e instanceof EncodeError && e.code === 'STRING_TOO_LONG',
  );
});
