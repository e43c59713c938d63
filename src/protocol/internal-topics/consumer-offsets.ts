// `__consumer_offsets` records (CLIENTS.md §6.1). The key's version selects the record type:
// 0/1 committed offset, 2 classic-group metadata, 3+ newer record types (KIP-848 consumer
// groups, KIP-932 share groups) that this broker does not use; those decode as `unknown` so a
// replay can skip them, as Kafka's coordinator loader skips unknown record types. A null value
// is a tombstone (offset deleted / group removed).

import {
  type GroupMetadataKey,
  readGroupMetadataKey,
  writeGroupMetadataKey,
} from '../messages/generated/data/group-metadata-key.js';
import {
  type GroupMetadataValue,
  readGroupMetadataValue,
  writeGroupMetadataValue,
} from '../messages/generated/data/group-metadata-value.js';
import {
  type OffsetCommitKey,
  readOffsetCommitKey,
  writeOffsetCommitKey,
} from '../messages/generated/data/offset-commit-key.js';
import {
  type OffsetCommitValue,
  readOffsetCommitValue,
  writeOffsetCommitValue,
} from '../messages/generated/data/offset-commit-value.js';
import { decodeBody, encodeVersioned, readVersion } from './versioned.js';

export type { GroupMetadataValueMemberMetadata } from '../messages/generated/data/group-metadata-value.js';
export type { GroupMetadataKey, GroupMetadataValue, OffsetCommitKey, OffsetCommitValue };

/** Key versions Kafka writes: offset keys as 1 (0 is the same layout), group keys as 2. */
export const OFFSET_COMMIT_KEY_VERSION = 1;
export const GROUP_METADATA_KEY_VERSION = 2;
/** Group metadata value version Kafka writes. */
export const GROUP_METADATA_VALUE_VERSION = 3;

export interface OffsetCommitInput {
  offset: bigint;
  /** -1 when unknown. Not stored when an expire timestamp forces value v1. */
  leaderEpoch: number;
  metadata: string;
  commitTimestamp: bigint;
  /** Only old OffsetCommit requests (v1 with explicit timestamps) carry one. */
  expireTimestamp?: bigint;
}

export type ConsumerOffsetsRecord =
  | {
      type: 'offset';
      keyVersion: number;
      key: OffsetCommitKey;
      valueVersion: number | null;
      value: OffsetCommitValue | null;
    }
  | {
      type: 'group';
      keyVersion: number;
      key: GroupMetadataKey;
      valueVersion: number | null;
      value: GroupMetadataValue | null;
    }
  | { type: 'unknown'; keyVersion: number };

export function encodeOffsetCommitKey(key: OffsetCommitKey): Buffer {
  return encodeVersioned(OFFSET_COMMIT_KEY_VERSION, key, writeOffsetCommitKey);
}

/** Kafka writes value v1 only when an expire timestamp exists (v1 is the only version with one), else v3. */
export function encodeOffsetCommitValue(v: OffsetCommitInput): Buffer {
  const hasExpire = v.expireTimestamp !== undefined;
  const value: OffsetCommitValue = {
    offset: v.offset,
    leaderEpoch: v.leaderEpoch,
    metadata: v.metadata,
    commitTimestamp: v.commitTimestamp,
    expireTimestamp: v.expireTimestamp ?? -1n,
  };
  return encodeVersioned(hasExpire ? 1 : 3, value, writeOffsetCommitValue);
}

export function encodeGroupMetadataKey(key: GroupMetadataKey): Buffer {
  return encodeVersioned(GROUP_METADATA_KEY_VERSION, key, writeGroupMetadataKey);
}

export function encodeGroupMetadataValue(value: GroupMetadataValue): Buffer {
  return encodeVersioned(GROUP_METADATA_VALUE_VERSION, value, writeGroupMetadataValue);
}

/** Decodes one `__consumer_offsets` record. Throws InternalRecordError (CORRUPT_MESSAGE) on damage. */
export function decodeConsumerOffsetsRecord(key: Buffer, value: Buffer | null): ConsumerOffsetsRecord {
  const keyVersion = readVersion(key, '__consumer_offsets key');
  if (keyVersion === 0 || keyVersion === 1) {
    const k = decodeBody(key, keyVersion, 'OffsetCommitKey', readOffsetCommitKey);
    if (value === null) return { type: 'offset', keyVersion, key: k, valueVersion: null, value: null };
    const valueVersion = readVersion(value, 'OffsetCommitValue');
    const v = decodeBody(value, valueVersion, 'OffsetCommitValue', readOffsetCommitValue);
    return { type: 'offset', keyVersion, key: k, valueVersion, value: v };
  }
  if (keyVersion === GROUP_METADATA_KEY_VERSION) {
    const k = decodeBody(key, keyVersion, 'GroupMetadataKey', readGroupMetadataKey);
    if (value === null) return { type: 'group', keyVersion, key: k, valueVersion: null, value: null };
    const valueVersion = readVersion(value, 'GroupMetadataValue');
    const v = decodeBody(value, valueVersion, 'GroupMetadataValue', readGroupMetadataValue);
    return { type: 'group', keyVersion, key: k, valueVersion, value: v };
  }
  return { type: 'unknown', keyVersion };
}
