// The `uniform` assignor (Kafka's default server assignor): every member gets as many
// partitions as any other member that could take them (within one), and a member keeps the
// partitions it already has whenever that balance allows, so that a rebalance moves as few
// partitions as possible. Works for members with different subscriptions: a partition only
// ever goes to a member subscribed to its topic.
import type { Assignment } from '../consumer-group-member.js';
import { type AssignmentSpec, type ServerAssignor, sortedMemberIds, sortedTopicIds } from './assignor.js';

type Owner = { topicId: string; partition: number };

export const uniformAssignor: ServerAssignor = {
  name: 'uniform',
  assign(spec: AssignmentSpec): Map<string, Assignment> {
    const memberIds = sortedMemberIds(spec);
    const owned = new Map<string, Owner[]>(memberIds.map((m) => [m, []]));
    const eligible = (topicId: string): string[] =>
      memberIds.filter((m) => spec.members.get(m)!.subscribedTopicIds.has(topicId));

    // Upper bound per member: what a perfectly even split among its peers would give.
    const partitionsFor = (m: string): number => {
      let total = 0;
      for (const t of spec.members.get(m)!.subscribedTopicIds)
        total += spec.topics.get(t)?.numPartitions ?? 0;
      return total;
    };
    const quota = new Map(
      memberIds.map((m) => {
        const subs = spec.members.get(m)!.subscribedTopicIds;
        const peers = memberIds.filter((o) =>
          [...subs].some((t) => spec.members.get(o)!.subscribedTopicIds.has(t)),
        ).length;
        return [m, Math.ceil(partitionsFor(m) / Math.max(1, peers))];
      }),
    );

    // 1. Stickiness: keep current partitions that are still valid, up to the quota.
    const taken = new Set<string>();
    const key = (t: string, p: number) => `${t}:${p}`;
    for (const m of memberIds) {
      const spec_ = spec.members.get(m)!;
      const mine = owned.get(m)!;
      const q = quota.get(m)!;
      for (const [topicId, ps] of spec_.assignment) {
        const topic = spec.topics.get(topicId);
        if (topic === undefined || !spec_.subscribedTopicIds.has(topicId)) continue;
        for (const p of [...ps].sort((a, b) => a - b)) {
          if (p >= topic.numPartitions || taken.has(key(topicId, p)) || mine.length >= q) continue;
          taken.add(key(topicId, p));
          mine.push({ topicId, partition: p });
        }
      }
    }

    // 2. Every free partition goes to the least loaded member that may take it.
    for (const topicId of sortedTopicIds(spec)) {
      const candidates = eligible(topicId);
      if (candidates.length === 0) continue;
      const n = spec.topics.get(topicId)!.numPartitions;
      for (let p = 0; p < n; p++) {
        if (taken.has(key(topicId, p))) continue;
        let best = candidates[0]!;
        for (const c of candidates) if (owned.get(c)!.length < owned.get(best)!.length) best = c;
        owned.get(best)!.push({ topicId, partition: p });
        taken.add(key(topicId, p));
      }
    }

    // 3. Balance: move a partition from a member with two more than an eligible peer.
    for (let moved = true, rounds = 0; moved && rounds < 10_000; rounds++) {
      moved = false;
      for (const from of memberIds) {
        const fromList = owned.get(from)!;
        for (let i = fromList.length - 1; i >= 0 && !moved; i--) {
          const o = fromList[i]!;
          for (const to of eligible(o.topicId)) {
            if (owned.get(to)!.length + 1 < fromList.length) {
              fromList.splice(i, 1);
              owned.get(to)!.push(o);
              moved = true;
              break;
            }
          }
        }
      }
    }

    const out = new Map<string, Assignment>();
    for (const m of memberIds) {
      const a = new Map<string, Set<number>>();
      for (const o of owned.get(m)!) {
        const set = a.get(o.topicId) ?? new Set<number>();
        set.add(o.partition);
        a.set(o.topicId, set);
      }
      out.set(m, a);
    }
    return out;
  },
};
