// Server-side partition assignors of KIP-848 consumer groups (`group.consumer.assignors`).
// The coordinator hands an assignor the members' subscriptions (as topic ids) and the target
// assignment they had; it returns the new target assignment of every member. Assignors are
// pure functions: the coordinator persists their result as ConsumerGroupTargetAssignment*.
import type { Assignment } from '../consumer-group-member.js';

export interface AssignmentMemberSpec {
  readonly subscribedTopicIds: ReadonlySet<string>;
  /** The member's current target assignment (for stickiness). */
  readonly assignment: Assignment;
}

export interface AssignmentSpec {
  /** Member id → subscription; iteration order is not significant. */
  readonly members: ReadonlyMap<string, AssignmentMemberSpec>;
  /** Topic id → partition count, for every topic someone subscribes to that exists. */
  readonly topics: ReadonlyMap<string, { readonly name: string; readonly numPartitions: number }>;
}

export interface ServerAssignor {
  readonly name: string;
  assign(spec: AssignmentSpec): Map<string, Assignment>;
}

/** Member ids in a stable order, so that equal inputs give equal assignments. */
export function sortedMemberIds(spec: AssignmentSpec): string[] {
  return [...spec.members.keys()].sort();
}

/** Topic ids ordered by topic name, then id. */
export function sortedTopicIds(spec: AssignmentSpec): string[] {
  return [...spec.topics.keys()].sort((a, b) => {
    const na = spec.topics.get(a)!.name;
    const nb = spec.topics.get(b)!.name;
    return na < nb ? -1 : na > nb ? 1 : a < b ? -1 : a > b ? 1 : 0;
  });
}
