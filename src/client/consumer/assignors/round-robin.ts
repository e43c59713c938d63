// Round-robin assignor (Kafka's "roundrobin"): all partitions of all subscribed topics, sorted by
// topic then partition, dealt in turn to the members (Kafka's member order), skipping members
// that do not subscribe to a partition's topic. With identical subscriptions the counts differ by
// at most one. `name` can be overridden to join groups of clients that call the same algorithm
// something else (kafkajs: "RoundRobinAssigner").
import {
  type ClusterView,
  compareMembers,
  emptyAssignments,
  type GroupMemberInfo,
  type MemberAssignment,
  type PartitionAssignor,
  withoutUserData,
} from './assignor.js';

export function roundRobinAssignor(options: { name?: string } = {}): PartitionAssignor {
  return {
    name: options.name ?? 'roundrobin',
    protocols: ['EAGER'],
    assign(cluster: ClusterView, members: readonly GroupMemberInfo[]): Map<string, MemberAssignment> {
      const out = emptyAssignments(members);
      const sorted = [...members].sort(compareMembers);
      const subscribed = sorted.map((m) => new Set(m.subscription.topics));
      const topics = [...new Set(members.flatMap((m) => m.subscription.topics))].sort();
      let next = 0;
      for (const topic of topics) {
        const count = cluster.partitionCount(topic) ?? 0;
        for (let p = 0; p < count; p++) {
          // Circular scan for the next member that subscribes to this topic (one always does).
          while (!subscribed[next % sorted.length]!.has(topic)) next++;
          out.get(sorted[next % sorted.length]!.memberId)!.push({ topic, partition: p });
          next++;
        }
      }
      return withoutUserData(out);
    },
  };
}
