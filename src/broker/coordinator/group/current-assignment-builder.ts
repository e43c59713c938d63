// Incremental reconciliation of one member towards the target assignment (Kafka's
// CurrentAssignmentBuilder). The invariant it keeps: a partition is handed to a member only
// when no other member holds it, neither as assigned nor as pending revocation. So a member
// that must give partitions up first keeps its epoch and is asked to revoke them
// (UNREVOKED_PARTITIONS); only after a heartbeat that no longer lists them as owned does it
// move on, and the partitions become free for their new owner, which meanwhile waits in
// UNRELEASED_PARTITIONS. Members not involved in a move are never disturbed.
import {
  type Assignment,
  type ConsumerGroupMember,
  MemberState,
  withEpoch,
} from './consumer-group-member.js';

/** Who currently holds a partition: the holder's epoch, or -1 when it is free. */
export type PartitionEpochLookup = (topicId: string, partition: number) => number;

/** Partitions reported by the member in its heartbeat; null = not sent (unchanged). */
export type OwnedPartitions = ReadonlyArray<{ topicId: string; partitions: readonly number[] }> | null;

/** Raised when the member must drop everything and rejoin (FENCED_MEMBER_EPOCH). */
export class FencedMemberError extends Error {}

export interface ReconcileInput {
  member: ConsumerGroupMember;
  targetEpoch: number;
  target: Assignment;
  partitionEpoch: PartitionEpochLookup;
  owned: OwnedPartitions;
}

/** True when `owned` still lists any partition of `revoking` (unknown owned = assume yes). */
function stillOwnsAny(owned: OwnedPartitions, revoking: Assignment): boolean {
  if (owned === null) return true;
  for (const t of owned) {
    const set = revoking.get(t.topicId);
    if (set === undefined) continue;
    for (const p of t.partitions) if (set.has(p)) return true;
  }
  return false;
}

export function reconcile(input: ReconcileInput): ConsumerGroupMember {
  const { member, targetEpoch } = input;
  switch (member.state) {
    case MemberState.STABLE:
      return member.memberEpoch === targetEpoch ? member : next(input, member.memberEpoch);
    case MemberState.UNREVOKED_PARTITIONS:
      // Blocked until the member confirms it let go of what it was asked to revoke.
      if (stillOwnsAny(input.owned, member.partitionsPendingRevocation)) return member;
      return next(input, member.memberEpoch + 1);
    case MemberState.UNRELEASED_PARTITIONS:
      return next(input, member.memberEpoch);
    default:
      // A state written by a newer coordinator: start the member over from nothing.
      if (input.owned === null || input.owned.length > 0)
        throw new FencedMemberError('the member is in an unknown state and must rejoin');
      return next(input, targetEpoch);
  }
}

function next(input: ReconcileInput, epoch: number): ConsumerGroupMember {
  const { member, target, partitionEpoch, targetEpoch } = input;
  const current = member.assignedPartitions;
  let unreleased = false;
  const keep = new Map<string, Set<number>>();
  const revoke = new Map<string, Set<number>>();
  const add = new Map<string, Set<number>>();
  for (const topicId of new Set([...target.keys(), ...current.keys()])) {
    const want = target.get(topicId) ?? new Set<number>();
    const have = current.get(topicId) ?? new Set<number>();
    const kept = new Set([...have].filter((p) => want.has(p)));
    const revoked = new Set([...have].filter((p) => !kept.has(p)));
    const adds = new Set<number>();
    for (const p of want) {
      if (kept.has(p)) continue;
      // Someone else still holds it: wait for them to release it.
      if (partitionEpoch(topicId, p) !== -1) unreleased = true;
      else adds.add(p);
    }
    if (kept.size > 0) keep.set(topicId, kept);
    if (revoked.size > 0) revoke.set(topicId, revoked);
    if (adds.size > 0) add.set(topicId, adds);
  }
  if (revoke.size > 0 && stillOwnsAny(input.owned, revoke)) {
    // Revoke first, at the current epoch; assignments wait for the acknowledgement.
    return {
      ...withEpoch(member, epoch),
      state: MemberState.UNREVOKED_PARTITIONS,
      assignedPartitions: keep,
      partitionsPendingRevocation: revoke,
    };
  }
  for (const [topicId, ps] of add) {
    const set = keep.get(topicId) ?? new Set<number>();
    for (const p of ps) set.add(p);
    keep.set(topicId, set);
  }
  return {
    ...withEpoch(member, targetEpoch),
    state: unreleased ? MemberState.UNRELEASED_PARTITIONS : MemberState.STABLE,
    assignedPartitions: keep,
    partitionsPendingRevocation: new Map(),
  };
}
