// KIP-848 consumer-group records of `__consumer_offsets` (key versions 3–8), in Kafka 3.9's
// layouts: keys are non-flexible (int16 strings), values are flexible v0 (compact types, tagged
// fields). Our schema copy has no JSON for these, so they are written by hand here from Kafka's
// `ConsumerGroup*Key/Value.json`; unknown tagged fields (e.g. 4.1's MetadataHash) are skipped on
// read, as Kafka's generated readers do. ConsumerGroupMemberMetadataValue's tagged field 0
// (ClassicMemberMetadata: a member that joined with JoinGroup, KIP-848's online migration) is
// read and written.
//
//   3 ConsumerGroupMetadata            group → epoch
//   4 ConsumerGroupPartitionMetadata   group → subscribed topics (id, name, partition count)
//   5 ConsumerGroupMemberMetadata      (group, member) → subscription, client, timeouts
//   6 ConsumerGroupTargetAssignmentMetadata  group → assignment epoch
//   7 ConsumerGroupTargetAssignmentMember    (group, member) → target partitions
//   8 ConsumerGroupCurrentMemberAssignment   (group, member) → epochs, state, owned/revoking

import type { Reader } from '../primitives/reader.js';
import { Writer } from '../primitives/writer.js';
import { decodeBody, encodeVersioned, InternalRecordError, readVersion } from './versioned.js';

export interface TopicPartitionsEntry {
  topicId: string;
  partitions: number[];
}

export interface PartitionMetadataTopic {
  topicId: string;
  topicName: string;
  numPartitions: number;
}

/** A member that uses the classic protocol in a consumer group: what its JoinGroup carried. */
export interface ClassicMemberMetadata {
  sessionTimeoutMs: number;
  /** JoinGroup's protocols (name, ConsumerProtocolSubscription bytes), in the member's order. */
  supportedProtocols: Array<{ name: string; metadata: Buffer }>;
}

export interface MemberMetadataValue {
  instanceId: string | null;
  rackId: string | null;
  clientId: string;
  clientHost: string;
  subscribedTopicNames: string[];
  subscribedTopicRegex: string | null;
  rebalanceTimeoutMs: number;
  serverAssignor: string | null;
  /** Null for a member that uses ConsumerGroupHeartbeat. */
  classicMemberMetadata: ClassicMemberMetadata | null;
}

export interface CurrentAssignmentValue {
  memberEpoch: number;
  previousMemberEpoch: number;
  /** MemberState: 0 STABLE, 1 UNREVOKED_PARTITIONS, 2 UNRELEASED_PARTITIONS, 127 UNKNOWN. */
  state: number;
  assignedPartitions: TopicPartitionsEntry[];
  partitionsPendingRevocation: TopicPartitionsEntry[];
}

export type ConsumerGroupRecord =
  | { type: 'group-epoch'; groupId: string; value: { epoch: number } | null }
  | { type: 'subscription-metadata'; groupId: string; value: { topics: PartitionMetadataTopic[] } | null }
  | { type: 'member-metadata'; groupId: string; memberId: string; value: MemberMetadataValue | null }
  | { type: 'target-epoch'; groupId: string; value: { assignmentEpoch: number } | null }
  | {
      type: 'target-member';
      groupId: string;
      memberId: string;
      value: { partitions: TopicPartitionsEntry[] } | null;
    }
  | { type: 'current-assignment'; groupId: string; memberId: string; value: CurrentAssignmentValue | null };

const KEY_VERSION: Record<ConsumerGroupRecord['type'], number> = {
  'group-epoch': 3,
  'subscription-metadata': 4,
  'member-metadata': 5,
  'target-epoch': 6,
  'target-member': 7,
  'current-assignment': 8,
};

export function isConsumerGroupKeyVersion(v: number): boolean {
  return v >= 3 && v <= 8;
}

function writeCompactStrings(w: Writer, a: readonly string[]): void {
  w.compactArrayLength(a.length);
  for (const s of a) w.compactString(s);
}

function readCompactStrings(r: Reader): string[] {
  const n = r.compactArrayLength(1);
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(r.compactString());
  return out;
}

function writeTopicPartitions(w: Writer, a: readonly TopicPartitionsEntry[]): void {
  w.compactArrayLength(a.length);
  for (const t of a) {
    w.uuid(t.topicId);
    w.compactArrayLength(t.partitions.length);
    for (const p of t.partitions) w.int32(p);
    w.int8(0);
  }
}

function readTopicPartitions(r: Reader): TopicPartitionsEntry[] {
  const n = r.compactArrayLength(18);
  const out: TopicPartitionsEntry[] = [];
  for (let i = 0; i < n; i++) {
    const topicId = r.uuid();
    const m = r.compactArrayLength(4);
    const partitions: number[] = [];
    for (let j = 0; j < m; j++) partitions.push(r.int32());
    r.skipTaggedFields();
    out.push({ topicId, partitions });
  }
  return out;
}

/**
 * The value's tagged-field section with ClassicMemberMetadata as tag 0 when present. A nullable
 * struct in a tagged field is written as Kafka's generator does: its size counts a leading
 * presence varint (1), and a reader takes a presence of 0 for null.
 */
function writeClassicMemberTag(w: Writer, c: ClassicMemberMetadata | null): void {
  if (c === null) {
    w.int8(0);
    return;
  }
  const t = new Writer(64);
  t.uvarint(1);
  t.int32(c.sessionTimeoutMs);
  t.compactArrayLength(c.supportedProtocols.length);
  for (const p of c.supportedProtocols) {
    t.compactString(p.name);
    t.compactBytes(p.metadata);
    t.int8(0);
  }
  t.int8(0);
  w.uvarint(1);
  w.taggedField(0, t);
}

/** Reads a value's tagged-field section, keeping tag 0 (ClassicMemberMetadata) and skipping the rest. */
function readClassicMemberTag(r: Reader): ClassicMemberMetadata | null {
  let out: ClassicMemberMetadata | null = null;
  const count = r.uvarint();
  for (let i = 0; i < count; i++) {
    const tag = r.uvarint();
    const size = r.uvarint();
    if (tag !== 0) {
      r.slice(size);
      continue;
    }
    const end = r.pos + size;
    if (r.uvarint() === 0) out = null;
    else {
      const sessionTimeoutMs = r.int32();
      const n = r.compactArrayLength(3);
      const supportedProtocols: ClassicMemberMetadata['supportedProtocols'] = [];
      for (let j = 0; j < n; j++) {
        const name = r.compactString();
        // Copied: the record's buffer is not kept by the coordinator.
        const metadata = Buffer.from(r.compactBytes());
        r.skipTaggedFields();
        supportedProtocols.push({ name, metadata });
      }
      r.skipTaggedFields();
      out = { sessionTimeoutMs, supportedProtocols };
    }
    if (r.pos !== end)
      throw new InternalRecordError(
        `ClassicMemberMetadata: ${size} bytes declared, ${r.pos - (end - size)} read`,
      );
  }
  return out;
}

function encodeKey(rec: ConsumerGroupRecord): Buffer {
  const w = new Writer(64);
  w.int16(KEY_VERSION[rec.type]);
  w.string(rec.groupId);
  if ('memberId' in rec) w.string(rec.memberId);
  return Buffer.from(w.toBuffer());
}

function encodeValue(rec: ConsumerGroupRecord): Buffer | null {
  if (rec.value === null) return null;
  return encodeVersioned(0, rec, (w, _v, r) => {
    switch (r.type) {
      case 'group-epoch':
        w.int32(r.value!.epoch);
        break;
      case 'subscription-metadata':
        w.compactArrayLength(r.value!.topics.length);
        for (const t of r.value!.topics) {
          w.uuid(t.topicId);
          w.compactString(t.topicName);
          w.int32(t.numPartitions);
          w.compactArrayLength(0); // PartitionMetadata (racks): unused, as in Kafka 4.0
          w.int8(0);
        }
        break;
      case 'member-metadata': {
        const v = r.value!;
        w.compactNullableString(v.instanceId);
        w.compactNullableString(v.rackId);
        w.compactString(v.clientId);
        w.compactString(v.clientHost);
        writeCompactStrings(w, v.subscribedTopicNames);
        w.compactNullableString(v.subscribedTopicRegex);
        w.int32(v.rebalanceTimeoutMs);
        w.compactNullableString(v.serverAssignor);
        writeClassicMemberTag(w, v.classicMemberMetadata);
        return;
      }
      case 'target-epoch':
        w.int32(r.value!.assignmentEpoch);
        break;
      case 'target-member':
        writeTopicPartitions(w, r.value!.partitions);
        break;
      case 'current-assignment': {
        const v = r.value!;
        w.int32(v.memberEpoch);
        w.int32(v.previousMemberEpoch);
        w.int8(v.state);
        writeTopicPartitions(w, v.assignedPartitions);
        writeTopicPartitions(w, v.partitionsPendingRevocation);
        break;
      }
    }
    w.int8(0); // no tagged fields
  });
}

export function encodeConsumerGroupRecord(rec: ConsumerGroupRecord): { key: Buffer; value: Buffer | null } {
  return { key: encodeKey(rec), value: encodeValue(rec) };
}

function memberMetadataBody(value: Buffer | null): MemberMetadataValue | null {
  const what = 'ConsumerGroupMemberMetadataValue';
  if (value === null) return null;
  const v = readVersion(value, what);
  if (v !== 0) throw new InternalRecordError(`${what}: unknown version ${v}`);
  return decodeBody(value, v, what, (r) => ({
    instanceId: r.compactNullableString(),
    rackId: r.compactNullableString(),
    clientId: r.compactString(),
    clientHost: r.compactString(),
    subscribedTopicNames: readCompactStrings(r),
    subscribedTopicRegex: r.compactNullableString(),
    rebalanceTimeoutMs: r.int32(),
    serverAssignor: r.compactNullableString(),
    classicMemberMetadata: readClassicMemberTag(r),
  }));
}

/** Decodes a record whose key version is 3–8. Throws InternalRecordError on damage. */
export function decodeConsumerGroupRecord(key: Buffer, value: Buffer | null): ConsumerGroupRecord {
  const keyVersion = readVersion(key, '__consumer_offsets key');
  const k = decodeBody(key, keyVersion, `ConsumerGroup key v${keyVersion}`, (r) => {
    const groupId = r.string();
    const memberId = keyVersion === 5 || keyVersion === 7 || keyVersion === 8 ? r.string() : '';
    return { groupId, memberId };
  });
  const { groupId, memberId } = k;
  const body = <T>(what: string, read: (r: Reader) => T): T | null => {
    if (value === null) return null;
    const v = readVersion(value, what);
    if (v !== 0) throw new InternalRecordError(`${what}: unknown version ${v}`);
    return decodeBody(value, v, what, (r) => {
      const out = read(r);
      r.skipTaggedFields();
      return out;
    });
  };
  switch (keyVersion) {
    case 3:
      return {
        type: 'group-epoch',
        groupId,
        value: body('ConsumerGroupMetadataValue', (r) => ({ epoch: r.int32() })),
      };
    case 4:
      return {
        type: 'subscription-metadata',
        groupId,
        value: body('ConsumerGroupPartitionMetadataValue', (r) => {
          const n = r.compactArrayLength(21);
          const topics: PartitionMetadataTopic[] = [];
          for (let i = 0; i < n; i++) {
            const topicId = r.uuid();
            const topicName = r.compactString();
            const numPartitions = r.int32();
            const racks = r.compactArrayLength(6);
            for (let j = 0; j < racks; j++) {
              r.int32();
              readCompactStrings(r);
              r.skipTaggedFields();
            }
            r.skipTaggedFields();
            topics.push({ topicId, topicName, numPartitions });
          }
          return { topics };
        }),
      };
    case 5:
      return {
        type: 'member-metadata',
        groupId,
        memberId,
        value: memberMetadataBody(value),
      };
    case 6:
      return {
        type: 'target-epoch',
        groupId,
        value: body('ConsumerGroupTargetAssignmentMetadataValue', (r) => ({ assignmentEpoch: r.int32() })),
      };
    case 7:
      return {
        type: 'target-member',
        groupId,
        memberId,
        value: body('ConsumerGroupTargetAssignmentMemberValue', (r) => ({
          partitions: readTopicPartitions(r),
        })),
      };
    case 8:
      return {
        type: 'current-assignment',
        groupId,
        memberId,
        value: body('ConsumerGroupCurrentMemberAssignmentValue', (r) => ({
          memberEpoch: r.int32(),
          previousMemberEpoch: r.int32(),
          state: r.int8(),
          assignedPartitions: readTopicPartitions(r),
          partitionsPendingRevocation: readTopicPartitions(r),
        })),
      };
    default:
      throw new InternalRecordError(`key version ${keyVersion} is not a consumer-group record`);
  }
}
