// A member of a KIP-848 consumer group, as Kafka's ConsumerGroupMember: its subscription
// (persisted as ConsumerGroupMemberMetadata) and its current assignment (persisted as
// ConsumerGroupCurrentMemberAssignment). Values are treated as immutable: an operation builds
// a changed copy, compares it with the old one and writes a record only when they differ.
// A member that joined with JoinGroup (a classic consumer in a consumer group, KIP-848's online
// migration) carries its JoinGroup session timeout and protocols in `classicMemberMetadata`.
import type { ClassicMemberMetadata } from '../../../protocol/internal-topics/consumer-group-records.js';

export type { ClassicMemberMetadata };

/** Partitions by topic id. */
export type Assignment = ReadonlyMap<string, ReadonlySet<number>>;

export const MemberState = {
  STABLE: 0,
  UNREVOKED_PARTITIONS: 1,
  UNRELEASED_PARTITIONS: 2,
  UNKNOWN: 127,
} as const;
export type MemberStateCode = (typeof MemberState)[keyof typeof MemberState];

export const MEMBER_STATE_NAMES: Record<number, string> = {
  0: 'stable',
  1: 'unrevoked_partitions',
  2: 'unreleased_partitions',
  127: 'unknown',
};

/** A member that has left (or is being removed): its epoch in Kafka's records. */
export const LEAVE_GROUP_MEMBER_EPOCH = -1;
/** A static member that left temporarily and may come back with its instance id. */
export const LEAVE_GROUP_STATIC_MEMBER_EPOCH = -2;

export interface ConsumerGroupMember {
  readonly memberId: string;
  readonly instanceId: string | null;
  readonly rackId: string | null;
  readonly clientId: string;
  readonly clientHost: string;
  readonly subscribedTopicNames: readonly string[];
  readonly subscribedTopicRegex: string | null;
  readonly rebalanceTimeoutMs: number;
  readonly serverAssignor: string | null;
  readonly memberEpoch: number;
  readonly previousMemberEpoch: number;
  readonly state: MemberStateCode;
  readonly assignedPartitions: Assignment;
  readonly partitionsPendingRevocation: Assignment;
  /** Null for a member that uses ConsumerGroupHeartbeat. */
  readonly classicMemberMetadata: ClassicMemberMetadata | null;
}

export const EMPTY_ASSIGNMENT: Assignment = new Map();

export function newMember(memberId: string): ConsumerGroupMember {
  return {
    memberId,
    instanceId: null,
    rackId: null,
    clientId: '',
    clientHost: '',
    subscribedTopicNames: [],
    subscribedTopicRegex: null,
    rebalanceTimeoutMs: -1,
    serverAssignor: null,
    memberEpoch: 0,
    previousMemberEpoch: 0,
    state: MemberState.STABLE,
    assignedPartitions: EMPTY_ASSIGNMENT,
    partitionsPendingRevocation: EMPTY_ASSIGNMENT,
    classicMemberMetadata: null,
  };
}

export function usesClassicProtocol(m: ConsumerGroupMember): boolean {
  return m.classicMemberMetadata !== null;
}

function sameClassicMetadata(a: ClassicMemberMetadata | null, b: ClassicMemberMetadata | null): boolean {
  if (a === null || b === null) return a === b;
  return (
    a.sessionTimeoutMs === b.sessionTimeoutMs &&
    a.supportedProtocols.length === b.supportedProtocols.length &&
    a.supportedProtocols.every(
      (p, i) =>
        p.name === b.supportedProtocols[i]!.name && p.metadata.equals(b.supportedProtocols[i]!.metadata),
    )
  );
}

export function assignmentEquals(a: Assignment, b: Assignment): boolean {
  if (a.size !== b.size) return false;
  for (const [t, ps] of a) {
    const other = b.get(t);
    if (other === undefined || other.size !== ps.size) return false;
    for (const p of ps) if (!other.has(p)) return false;
  }
  return true;
}

function sameStrings(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((s, i) => s === b[i]);
}

/** The fields ConsumerGroupMemberMetadata persists. */
export function subscriptionEquals(a: ConsumerGroupMember, b: ConsumerGroupMember): boolean {
  return (
    a.instanceId === b.instanceId &&
    a.rackId === b.rackId &&
    a.clientId === b.clientId &&
    a.clientHost === b.clientHost &&
    sameStrings(a.subscribedTopicNames, b.subscribedTopicNames) &&
    a.subscribedTopicRegex === b.subscribedTopicRegex &&
    a.rebalanceTimeoutMs === b.rebalanceTimeoutMs &&
    a.serverAssignor === b.serverAssignor &&
    sameClassicMetadata(a.classicMemberMetadata, b.classicMemberMetadata)
  );
}

/** The fields ConsumerGroupCurrentMemberAssignment persists. */
export function currentAssignmentEquals(a: ConsumerGroupMember, b: ConsumerGroupMember): boolean {
  return (
    a.memberEpoch === b.memberEpoch &&
    a.previousMemberEpoch === b.previousMemberEpoch &&
    a.state === b.state &&
    assignmentEquals(a.assignedPartitions, b.assignedPartitions) &&
    assignmentEquals(a.partitionsPendingRevocation, b.partitionsPendingRevocation)
  );
}

/** Kafka's Builder.updateMemberEpoch: the old epoch becomes the previous one. */
export function withEpoch(m: ConsumerGroupMember, epoch: number): ConsumerGroupMember {
  return { ...m, previousMemberEpoch: m.memberEpoch, memberEpoch: epoch };
}

export function toEntries(a: Assignment): Array<{ topicId: string; partitions: number[] }> {
  return [...a]
    .filter(([, ps]) => ps.size > 0)
    .map(([topicId, ps]) => ({ topicId, partitions: [...ps].sort((x, y) => x - y) }));
}

export function fromEntries(
  entries: ReadonlyArray<{ topicId: string; partitions: readonly number[] }>,
): Assignment {
  const out = new Map<string, Set<number>>();
  for (const e of entries) {
    if (e.partitions.length === 0) continue;
    const set = out.get(e.topicId) ?? new Set<number>();
    for (const p of e.partitions) set.add(p);
    out.set(e.topicId, set);
  }
  return out;
}
