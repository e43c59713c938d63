// The assignor contract (Kafka's ConsumerPartitionAssignor): the group leader receives every
// member's subscription and returns each member's partitions. Assignors are plain objects so
// that applications can plug in their own; `name` is what goes on the wire in JoinGroup and must
// match the name other clients in the same group use for the same strategy.
import type { TopicPartition } from '../types.js';

/** EAGER revokes everything before each rebalance; COOPERATIVE only what moves (KIP-429). */
export type RebalanceProtocol = 'EAGER' | 'COOPERATIVE';

export interface MemberSubscription {
  topics: string[];
  userData: Buffer | null;
  /** What the member owns now (ConsumerProtocolSubscription v1+); empty for v0 senders. */
  ownedPartitions: TopicPartition[];
  /** Generation in which `ownedPartitions` were assigned (v2+), −1 if unknown. */
  generationId: number;
  rackId: string | null;
}

export interface GroupMemberInfo {
  memberId: string;
  groupInstanceId: string | null;
  subscription: MemberSubscription;
}

export interface MemberAssignment {
  partitions: TopicPartition[];
  userData: Buffer | null;
}

/** Partition counts of the topics the group subscribes to (from the leader's metadata). */
export interface ClusterView {
  /** Number of partitions, or undefined if the topic does not exist (it is then skipped). */
  partitionCount(topic: string): number | undefined;
}

export interface PartitionAssignor {
  readonly name: string;
  /** Protocols this assignor can serve; the consumer uses COOPERATIVE only if all its assignors can. */
  readonly protocols: readonly RebalanceProtocol[];
  /** User data to put in this member's subscription (sticky: its previous assignment). */
  subscriptionUserData?(topics: readonly string[]): Buffer | null;
  /** Computes every member's assignment; the result must have an entry for each member. */
  assign(
    cluster: ClusterView,
    members: readonly GroupMemberInfo[],
    protocol: RebalanceProtocol,
  ): Map<string, MemberAssignment>;
  /** Called on every member (not only the leader) with its own assignment. */
  onAssignment?(assignment: MemberAssignment, generationId: number): void;
}

/**
 * Kafka's member order (ConsumerPartitionAssignor.MemberInfo): static members first, ordered by
 * group.instance.id, then dynamic members by member id. Range and round robin depend on it, so
 * it must be the same as in other clients for mixed groups to agree.
 */
export function compareMembers(a: GroupMemberInfo, b: GroupMemberInfo): number {
  const ai = a.groupInstanceId;
  const bi = b.groupInstanceId;
  if (ai !== null && bi !== null) return ai < bi ? -1 : ai > bi ? 1 : 0;
  if (ai !== null) return -1;
  if (bi !== null) return 1;
  return a.memberId < b.memberId ? -1 : a.memberId > b.memberId ? 1 : 0;
}

/** An empty assignment for every member (the starting point of every assignor). */
export function emptyAssignments(members: readonly GroupMemberInfo[]): Map<string, TopicPartition[]> {
  const out = new Map<string, TopicPartition[]>();
  for (const m of members) out.set(m.memberId, []);
  return out;
}

export function withoutUserData(parts: Map<string, TopicPartition[]>): Map<string, MemberAssignment> {
  const out = new Map<string, MemberAssignment>();
  for (const [id, partitions] of parts) out.set(id, { partitions, userData: null });
  return out;
}
