// The sticky assignment algorithm shared by "sticky" and "cooperative-sticky" (KIP-54, KIP-429):
// 1. every member keeps the partitions it validly owned (still subscribed, partition still
//    exists; when two members claim one partition the higher generation wins, a tie voids both
//    claims, as in Kafka's AbstractStickyAssignor);
// 2. unowned partitions go, most constrained first, to the eligible member with the fewest;
// 3. while some partition could move from a member to an eligible member with at least two
//    fewer partitions, move one — partitions the donor did not own before go first.
// With identical subscriptions the result is balanced within one and moves no more previously
// owned partitions than balance requires; with different subscriptions no single move can
// improve the balance. Partitions are numbered internally so the loops compare integers.
import { type TopicPartition, tpKey } from '../types.js';

export interface StickyMember {
  id: string;
  topics: ReadonlySet<string>;
  owned: readonly TopicPartition[];
  generation: number;
}

export interface StickyResult {
  assignment: Map<string, TopicPartition[]>;
  /** Partition key → member that validly owned it before this assignment. */
  previousOwner: Map<string, string>;
}

/** `members` must be in a deterministic order (Kafka's member order); ties go to earlier members. */
export function stickyAssign(
  partitionCounts: ReadonlyMap<string, number>,
  members: readonly StickyMember[],
): StickyResult {
  const topics = [...partitionCounts.keys()].sort();
  const parts: TopicPartition[] = [];
  const pidOf = new Map<string, number>();
  const eligible: number[][] = [];
  for (const topic of topics) {
    const subs: number[] = [];
    members.forEach((m, i) => {
      if (m.topics.has(topic)) subs.push(i);
    });
    if (subs.length === 0) continue;
    const n = partitionCounts.get(topic)!;
    for (let p = 0; p < n; p++) {
      pidOf.set(tpKey(topic, p), parts.length);
      parts.push({ topic, partition: p });
      eligible.push(subs);
    }
  }

  // 1. Claims, resolved by generation.
  const claim = new Map<number, { member: number; generation: number; tie: boolean }>();
  members.forEach((m, i) => {
    for (const tp of m.owned) {
      const pid = pidOf.get(tpKey(tp.topic, tp.partition));
      if (pid === undefined || !m.topics.has(tp.topic)) continue;
      const c = claim.get(pid);
      if (c === undefined || m.generation > c.generation)
        claim.set(pid, { member: i, generation: m.generation, tie: false });
      else if (m.generation === c.generation && c.member !== i) c.tie = true;
    }
  });
  const owner = new Int32Array(parts.length).fill(-1);
  const prev = new Int32Array(parts.length).fill(-1);
  const held: Set<number>[] = members.map(() => new Set<number>());
  for (const [pid, c] of claim) {
    if (c.tie) continue;
    owner[pid] = c.member;
    prev[pid] = c.member;
    held[c.member]!.add(pid);
  }

  // 2. Unowned partitions, most constrained first, to the least loaded eligible member.
  const free: number[] = [];
  for (let pid = 0; pid < parts.length; pid++) if (owner[pid] === -1) free.push(pid);
  free.sort((a, b) => eligible[a]!.length - eligible[b]!.length || a - b);
  for (const pid of free) {
    const m = leastLoaded(eligible[pid]!, held, -1);
    owner[pid] = m;
    held[m]!.add(pid);
  }

  // 3. Balance by single moves from the most loaded members.
  const order = members.map((_, i) => i);
  for (let moved = true; moved; ) {
    moved = false;
    order.sort((a, b) => held[b]!.size - held[a]!.size || a - b);
    for (const a of order) {
      const size = held[a]!.size;
      if (size === 0) break;
      const fresh: number[] = [];
      const kept: number[] = [];
      for (const pid of held[a]!) (prev[pid] === a ? kept : fresh).push(pid);
      fresh.sort((x, y) => y - x);
      kept.sort((x, y) => y - x);
      for (const pid of [...fresh, ...kept]) {
        const b = leastLoaded(eligible[pid]!, held, a);
        if (b >= 0 && held[b]!.size < size - 1) {
          held[a]!.delete(pid);
          held[b]!.add(pid);
          owner[pid] = b;
          moved = true;
          break;
        }
      }
      if (moved) break;
    }
  }

  const assignment = new Map<string, TopicPartition[]>();
  members.forEach((m, i) => {
    assignment.set(
      m.id,
      [...held[i]!].sort((a, b) => a - b).map((pid) => parts[pid]!),
    );
  });
  const previousOwner = new Map<string, string>();
  for (let pid = 0; pid < parts.length; pid++) {
    if (prev[pid]! >= 0)
      previousOwner.set(tpKey(parts[pid]!.topic, parts[pid]!.partition), members[prev[pid]!]!.id);
  }
  return { assignment, previousOwner };
}

function leastLoaded(candidates: readonly number[], held: readonly Set<number>[], exclude: number): number {
  let best = -1;
  for (const m of candidates) {
    if (m === exclude) continue;
    if (best < 0 || held[m]!.size < held[best]!.size) best = m;
  }
  return best;
}
