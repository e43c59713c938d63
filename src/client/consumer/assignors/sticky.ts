// "sticky" (eager, KIP-54) and "cooperative-sticky" (KIP-429) assignors over stickyAssign().
//
// Eager sticky members revoke everything before they rejoin, so their previous assignment travels
// in the subscription's user data (Kafka's StickyAssignorUserData). Cooperative members keep their
// partitions during the rebalance and list them in OwnedPartitions; a partition that has to move
// to another member is left out of this round (its owner revokes it and rejoins at once), so no
// partition is ever owned by two members, and partitions that stay are never revoked.
import { DecodeError } from '../../../protocol/primitives/errors.js';
import { type TopicPartition, tpKey } from '../types.js';
import {
  type ClusterView,
  compareMembers,
  type GroupMemberInfo,
  type MemberAssignment,
  type PartitionAssignor,
  type RebalanceProtocol,
} from './assignor.js';
import {
  decodeGenerationUserData,
  decodeStickyUserData,
  encodeGenerationUserData,
  encodeStickyUserData,
} from './consumer-protocol.js';
import { type StickyMember, stickyAssign } from './sticky-core.js';

function partitionCounts(cluster: ClusterView, members: readonly GroupMemberInfo[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const m of members) {
    for (const t of m.subscription.topics) {
      const n = cluster.partitionCount(t);
      if (n !== undefined && n > 0) out.set(t, n);
    }
  }
  return out;
}

function stickyMembers(
  members: readonly GroupMemberInfo[],
  previous: (m: GroupMemberInfo) => { owned: TopicPartition[]; generation: number },
): StickyMember[] {
  return [...members]
    .sort(compareMembers)
    .map((m) => ({ id: m.memberId, topics: new Set(m.subscription.topics), ...previous(m) }));
}

export function stickyAssignor(): PartitionAssignor {
  let last: TopicPartition[] | null = null;
  let generation = -1;
  return {
    name: 'sticky',
    protocols: ['EAGER'],
    subscriptionUserData(): Buffer | null {
      return last === null ? null : encodeStickyUserData(last, generation);
    },
    assign(cluster, members): Map<string, MemberAssignment> {
      const sm = stickyMembers(members, (m) => {
        const s = m.subscription;
        if (s.ownedPartitions.length > 0) return { owned: s.ownedPartitions, generation: s.generationId };
        if (s.userData === null || s.userData.length === 0) return { owned: [], generation: -1 };
        try {
          const u = decodeStickyUserData(s.userData);
          return { owned: u.partitions, generation: u.generation };
        } catch (err) {
          // Foreign or damaged user data only costs stickiness, never the rebalance.
          if (err instanceof DecodeError) return { owned: [], generation: -1 };
          throw err;
        }
      });
      const { assignment } = stickyAssign(partitionCounts(cluster, members), sm);
      const out = new Map<string, MemberAssignment>();
      for (const [id, partitions] of assignment) out.set(id, { partitions, userData: null });
      return out;
    },
    onAssignment(a, gen): void {
      last = a.partitions;
      generation = gen;
    },
  };
}

export function cooperativeStickyAssignor(): PartitionAssignor {
  let generation = -1;
  return {
    name: 'cooperative-sticky',
    protocols: ['COOPERATIVE', 'EAGER'],
    subscriptionUserData(): Buffer | null {
      return encodeGenerationUserData(generation);
    },
    assign(cluster, members, protocol: RebalanceProtocol): Map<string, MemberAssignment> {
      const sm = stickyMembers(members, (m) => {
        const s = m.subscription;
        const gen = s.generationId >= 0 ? s.generationId : decodeGenerationUserData(s.userData);
        return { owned: s.ownedPartitions, generation: gen };
      });
      const { assignment } = stickyAssign(partitionCounts(cluster, members), sm);
      if (protocol === 'COOPERATIVE') {
        // A partition that another member still claims (even with a losing generation) must be
        // revoked by it before its new owner may take it: withhold it from the new owner this round.
        const claimants = new Map<string, Set<string>>();
        for (const m of members) {
          for (const tp of m.subscription.ownedPartitions) {
            const k = tpKey(tp.topic, tp.partition);
            let s = claimants.get(k);
            if (s === undefined) {
              s = new Set();
              claimants.set(k, s);
            }
            s.add(m.memberId);
          }
        }
        for (const [id, parts] of assignment) {
          assignment.set(
            id,
            parts.filter((tp) => {
              const c = claimants.get(tpKey(tp.topic, tp.partition));
              return c === undefined || c.has(id);
            }),
          );
        }
      }
      const out = new Map<string, MemberAssignment>();
      for (const [id, partitions] of assignment) out.set(id, { partitions, userData: null });
      return out;
    },
    onAssignment(_a, gen): void {
      generation = gen;
    },
  };
}
