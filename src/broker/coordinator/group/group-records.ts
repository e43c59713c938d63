// The records the group coordinator writes to __consumer_offsets, as typed values. Their
// byte form (Kafka's OffsetCommitKey/Value and GroupMetadataKey/Value) is in group-serde.ts.
import type { ConsumerGroupRecord } from '../../../protocol/internal-topics/consumer-group-records.js';

export interface OffsetValue {
  offset: bigint;
  /** -1 when unknown. */
  leaderEpoch: number;
  metadata: string;
  commitTimestamp: number;
  /** Explicit expiry (OffsetCommit v2–v4 retention time), or -1. */
  expireTimestamp: number;
}

export interface GroupMemberValue {
  memberId: string;
  groupInstanceId: string | null;
  clientId: string;
  clientHost: string;
  rebalanceTimeoutMs: number;
  sessionTimeoutMs: number;
  subscription: Buffer;
  assignment: Buffer;
}

export interface GroupMetadataValue {
  protocolType: string;
  generation: number;
  protocol: string | null;
  leader: string | null;
  currentStateTimestamp: number;
  members: GroupMemberValue[];
}

export type GroupRecord =
  | { kind: 'offset'; group: string; topic: string; partition: number; value: OffsetValue | null }
  | { kind: 'group'; group: string; value: GroupMetadataValue | null }
  // KIP-848 consumer groups (key versions 3–8), see consumer-group-records.ts.
  | { kind: 'consumer'; record: ConsumerGroupRecord };

export function offsetRecord(
  group: string,
  topic: string,
  partition: number,
  value: OffsetValue | null,
): GroupRecord {
  return { kind: 'offset', group, topic, partition, value };
}

export function groupRecord(group: string, value: GroupMetadataValue | null): GroupRecord {
  return { kind: 'group', group, value };
}
