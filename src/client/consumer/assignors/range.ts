// Range assignor (Kafka's "range"): per topic, the members subscribed to it in Kafka's member
// order get consecutive partition ranges, the first `count % members` one partition more. It is
// balanced per topic, not across topics, and it is what librdkafka and Java pick by default, so
// it matters for mixed groups that the order and arithmetic are exactly Kafka's.
import type { TopicPartition } from '../types.js';
import {
  type ClusterView,
  compareMembers,
  emptyAssignments,
  type GroupMemberInfo,
  type MemberAssignment,
  type PartitionAssignor,
  withoutUserData,
} from './assignor.js';

export function rangeAssignor(): PartitionAssignor {
  return {
    name: 'range',
    protocols: ['EAGER'],
    assign(cluster: ClusterView, members: readonly GroupMemberInfo[]): Map<string, MemberAssignment> {
      const out = emptyAssignments(members);
      const byTopic = new Map<string, GroupMemberInfo[]>();
      for (const m of members) {
        for (const t of new Set(m.subscription.topics)) {
          let list = byTopic.get(t);
          if (list === undefined) {
            list = [];
            byTopic.set(t, list);
          }
          list.push(m);
        }
      }
      for (const [topic, subs] of [...byTopic].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
        const count = cluster.partitionCount(topic);
        if (count === undefined || count <= 0) continue;
        subs.sort(compareMembers);
        const per = Math.floor(count / subs.length);
        const extra = count % subs.length;
        for (let i = 0; i < subs.length; i++) {
          const start = per * i + Math.min(i, extra);
          const len = per + (i < extra ? 1 : 0);
          const list = out.get(subs[i]!.memberId) as TopicPartition[];
          for (let p = start; p < start + len; p++) list.push({ topic, partition: p });
        }
      }
      return withoutUserData(out);
    },
  };
}
