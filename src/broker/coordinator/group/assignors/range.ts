// The `range` server assignor: for each topic, the members subscribed to it (ordered by member
// id) get contiguous ranges of its partitions, the first `partitions % members` one extra, as
// the client-side RangeAssignor does. Members subscribed to the same topics with the same
// partition counts therefore get the same partition numbers (co-partitioning, for joins).
// Unlike Kafka's server-side range assignor it is not sticky: a membership change can move
// partitions that an even split would have let stay.
import type { Assignment } from '../consumer-group-member.js';
import { type AssignmentSpec, type ServerAssignor, sortedMemberIds, sortedTopicIds } from './assignor.js';

export const rangeAssignor: ServerAssignor = {
  name: 'range',
  assign(spec: AssignmentSpec): Map<string, Assignment> {
    const memberIds = sortedMemberIds(spec);
    const out = new Map<string, Map<string, Set<number>>>(memberIds.map((m) => [m, new Map()]));
    for (const topicId of sortedTopicIds(spec)) {
      const members = memberIds.filter((m) => spec.members.get(m)!.subscribedTopicIds.has(topicId));
      if (members.length === 0) continue;
      const n = spec.topics.get(topicId)!.numPartitions;
      const base = Math.floor(n / members.length);
      const extra = n % members.length;
      let next = 0;
      members.forEach((m, i) => {
        const count = base + (i < extra ? 1 : 0);
        if (count === 0) return;
        const set = new Set<number>();
        for (let k = 0; k < count; k++) set.add(next++);
        out.get(m)!.set(topicId, set);
      });
    }
    return out;
  },
};
