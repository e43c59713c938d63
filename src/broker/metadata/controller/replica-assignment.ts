// One partition's full replica assignment during a reassignment (KIP-455, Kafka's
// ReplicaAssignment): the replica set RS plus the replicas being added (AR) and removed (RR).
// The original set is RS − AR, the target set RS − RR. While a reassignment runs, RS is the union
// with the target replicas first, so the target's first replica is the preferred leader already.
// Pure functions: the controller reads and writes these through the topic's assignment record.

import type { TopicAssignment } from '../store/records.js';

export interface PartitionAssignment {
  readonly replicas: readonly number[];
  readonly adding: readonly number[];
  readonly removing: readonly number[];
}

export function isBeingReassigned(a: PartitionAssignment): boolean {
  return a.adding.length > 0 || a.removing.length > 0;
}

export function originReplicas(a: PartitionAssignment): number[] {
  return a.replicas.filter((r) => !a.adding.includes(r));
}

export function targetReplicas(a: PartitionAssignment): number[] {
  return a.replicas.filter((r) => !a.removing.includes(r));
}

/** The assignment that moves `a` (from its original replicas) to `target`. */
export function reassignTo(a: PartitionAssignment, target: readonly number[]): PartitionAssignment {
  const origin = originReplicas(a);
  const replicas = [...new Set([...target, ...origin])];
  return {
    replicas,
    adding: replicas.filter((r) => !origin.includes(r)),
    removing: replicas.filter((r) => !target.includes(r)),
  };
}

/** A finished reassignment: the target alone. */
export function completed(a: PartitionAssignment): PartitionAssignment {
  return { replicas: targetReplicas(a), adding: [], removing: [] };
}

export function sameAssignment(a: PartitionAssignment, b: PartitionAssignment): boolean {
  const eq = (x: readonly number[], y: readonly number[]) =>
    x.length === y.length && x.every((v, i) => v === y[i]);
  return eq(a.replicas, b.replicas) && eq(a.adding, b.adding) && eq(a.removing, b.removing);
}

export function partitionAssignment(t: TopicAssignment, partition: number): PartitionAssignment {
  return {
    replicas: t.partitions[partition] ?? [],
    adding: t.addingReplicas?.[partition] ?? [],
    removing: t.removingReplicas?.[partition] ?? [],
  };
}

/** The topic's record with some partitions' assignments replaced (adding/removing kept only when non-empty). */
export function withPartitionAssignments(
  t: TopicAssignment,
  changes: ReadonlyMap<number, PartitionAssignment>,
): TopicAssignment {
  const partitions = t.partitions.map((r, p) => changes.get(p)?.replicas ?? r);
  const adding: Record<number, readonly number[]> = {};
  const removing: Record<number, readonly number[]> = {};
  for (let p = 0; p < partitions.length; p++) {
    const a = changes.get(p) ?? partitionAssignment(t, p);
    if (a.adding.length > 0) adding[p] = [...a.adding];
    if (a.removing.length > 0) removing[p] = [...a.removing];
  }
  const reassigning = Object.keys(adding).length + Object.keys(removing).length > 0;
  return {
    name: t.name,
    topicId: t.topicId,
    partitions,
    ...(reassigning ? { addingReplicas: adding, removingReplicas: removing } : {}),
  };
}

/**
 * Kafka's validateReplicas for a requested target: INVALID_REPLICA_ASSIGNMENT for an empty list,
 * duplicates, negative ids, or replicas to add that are not live brokers. Null when valid.
 */
export function invalidTarget(
  current: PartitionAssignment,
  target: readonly number[],
  isLive: (id: number) => boolean,
): string | null {
  if (target.length === 0) return 'Empty replica list specified in partition reassignment.';
  if (new Set(target).size !== target.length)
    return `Duplicate replica ids in partition reassignment replica list: ${target.join(',')}`;
  if (target.some((r) => !Number.isInteger(r) || r < 0))
    return `Invalid broker id in replica list: ${target.join(',')}`;
  const adding = reassignTo(current, target).adding;
  const dead = adding.filter((r) => !isLive(r));
  if (dead.length > 0)
    return `Replica assignment has brokers that are not alive. Replica list: ${adding.join(',')}, not alive: ${dead.join(',')}`;
  return null;
}
