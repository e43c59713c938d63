// Shared helpers for assignor property tests: a seeded PRNG, random memberships and checks.
import type {
  ClusterView,
  GroupMemberInfo,
  MemberAssignment,
} from '../../../../src/client/consumer/assignors/index.js';
import { type TopicPartition, tpKey } from '../../../../src/client/consumer/types.js';

/** mulberry32: tiny, seedable, good enough to explore memberships reproducibly. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function int(r: () => number, min: number, max: number): number {
  return min + Math.floor(r() * (max - min + 1));
}

export function cluster(counts: Record<string, number>): ClusterView {
  return { partitionCount: (t) => counts[t] };
}

export function member(
  id: string,
  topics: string[],
  owned: TopicPartition[] = [],
  generationId = -1,
  userData: Buffer | null = null,
): GroupMemberInfo {
  return {
    memberId: id,
    groupInstanceId: null,
    subscription: { topics, userData, ownedPartitions: owned, generationId, rackId: null },
  };
}

export function allPartitions(counts: Record<string, number>, topics?: Iterable<string>): string[] {
  const out: string[] = [];
  for (const t of topics ?? Object.keys(counts))
    for (let p = 0; p < (counts[t] ?? 0); p++) out.push(tpKey(t, p));
  return out;
}

/** Every partition at most once; only to members subscribed to its topic. Returns key → member. */
export function ownership(
  members: readonly GroupMemberInfo[],
  result: Map<string, MemberAssignment>,
): Map<string, string> {
  const owner = new Map<string, string>();
  for (const m of members) {
    const a = result.get(m.memberId);
    if (a === undefined) throw new Error(`no assignment for ${m.memberId}`);
    for (const tp of a.partitions) {
      const k = tpKey(tp.topic, tp.partition);
      if (owner.has(k)) throw new Error(`${k} assigned twice`);
      if (!m.subscription.topics.includes(tp.topic))
        throw new Error(`${m.memberId} got ${k} without subscribing`);
      owner.set(k, m.memberId);
    }
  }
  return owner;
}

export function counts(result: Map<string, MemberAssignment>): number[] {
  return [...result.values()].map((a) => a.partitions.length);
}

export function spread(result: Map<string, MemberAssignment>): number {
  const c = counts(result);
  return Math.max(...c) - Math.min(...c);
}
