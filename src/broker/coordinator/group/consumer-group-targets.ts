// The target assignment of a KIP-848 consumer group (Kafka's TargetAssignmentBuilder and the
// subscription-metadata part of GroupMetadataManager): which existing topics the members
// subscribe to (by name or regex), the server assignor most members ask for, and the new target
// of every member when the group epoch moves past the assignment epoch, written as records
// (only the members whose target changed, then the assignment epoch).
import type { ServerAssignor } from './assignors/assignor.js';
import type { ConsumerGroup, SubscribedTopic } from './consumer-group.js';
import { rec, targetMemberRecord } from './consumer-group-heartbeat-parts.js';
import {
  type Assignment,
  assignmentEquals,
  type ConsumerGroupMember,
  EMPTY_ASSIGNMENT,
} from './consumer-group-member.js';
import { compileTopicRegex } from './consumer-group-regex.js';
import type { TopicCatalog } from './consumer-group-types.js';
import type { GroupRecord } from './group-records.js';

export class ConsumerGroupTargets {
  constructor(
    readonly assignors: readonly ServerAssignor[],
    private readonly catalog: () => TopicCatalog,
  ) {}

  /** Topics subscribed by name or matched by a regex that exist, by name. */
  subscriptionMetadata(
    group: ConsumerGroup,
    replace?: { old?: ConsumerGroupMember; updated?: ConsumerGroupMember },
  ): Map<string, SubscribedTopic> {
    const names = group.subscribedTopicNames(replace);
    for (const source of group.subscribedRegexes(replace)) {
      const re = compileTopicRegex(source);
      if (!re.ok) continue;
      for (const t of this.catalog().names()) if (re.test(t)) names.add(t);
    }
    const out = new Map<string, SubscribedTopic>();
    for (const name of [...names].sort()) {
      const t = this.catalog().byName(name);
      if (t !== undefined && t.numPartitions > 0)
        out.set(name, { topicId: t.topicId, topicName: name, numPartitions: t.numPartitions });
    }
    return out;
  }

  /** The topic ids a member subscribes to, among the group's subscription metadata. */
  #memberTopicIds(m: ConsumerGroupMember, metadata: ReadonlyMap<string, SubscribedTopic>): Set<string> {
    const ids = new Set<string>();
    for (const n of m.subscribedTopicNames) {
      const t = metadata.get(n);
      if (t !== undefined) ids.add(t.topicId);
    }
    if (m.subscribedTopicRegex !== null && m.subscribedTopicRegex !== '') {
      const re = compileTopicRegex(m.subscribedTopicRegex);
      if (re.ok) for (const [name, t] of metadata) if (re.test(name)) ids.add(t.topicId);
    }
    return ids;
  }

  /** The assignor most members asked for (Kafka's computePreferredServerAssignor), else the default. */
  preferredAssignor(members: Iterable<ConsumerGroupMember>): ServerAssignor {
    const counts = new Map<string, number>();
    for (const m of members)
      if (m.serverAssignor !== null) counts.set(m.serverAssignor, (counts.get(m.serverAssignor) ?? 0) + 1);
    let best: string | undefined;
    for (const [name, n] of counts) if (best === undefined || n > counts.get(best)!) best = name;
    return this.assignors.find((a) => a.name === best) ?? this.assignors[0]!;
  }

  updateTarget(
    group: ConsumerGroup,
    groupEpoch: number,
    updated: ConsumerGroupMember,
    replaced: ConsumerGroupMember | undefined,
    metadata: ReadonlyMap<string, SubscribedTopic>,
    records: GroupRecord[],
  ): Assignment {
    const members = new Map(group.members);
    if (replaced !== undefined) members.delete(replaced.memberId);
    members.set(updated.memberId, updated);
    const topics = new Map(
      [...metadata.values()].map((t) => [t.topicId, { name: t.topicName, numPartitions: t.numPartitions }]),
    );
    const inherited = (m: ConsumerGroupMember) =>
      replaced !== undefined && m.memberId === updated.memberId
        ? (group.targetAssignment.get(replaced.memberId) ?? EMPTY_ASSIGNMENT)
        : EMPTY_ASSIGNMENT;
    const spec = {
      topics,
      members: new Map(
        [...members.values()].map((m) => [
          m.memberId,
          {
            subscribedTopicIds: this.#memberTopicIds(m, metadata),
            assignment: group.targetAssignment.get(m.memberId) ?? inherited(m),
          },
        ]),
      ),
    };
    const result = this.preferredAssignor(members.values()).assign(spec);
    for (const [memberId, a] of result) {
      const old = group.targetAssignment.get(memberId);
      if (
        old === undefined ||
        !assignmentEquals(old, a) ||
        (replaced !== undefined && memberId === updated.memberId)
      )
        records.push(targetMemberRecord(group.groupId, memberId, a));
    }
    records.push(
      rec({ type: 'target-epoch', groupId: group.groupId, value: { assignmentEpoch: groupEpoch } }),
    );
    return result.get(updated.memberId) ?? EMPTY_ASSIGNMENT;
  }
}

export function metadataRecord(groupId: string, metadata: ReadonlyMap<string, SubscribedTopic>): GroupRecord {
  return rec({
    type: 'subscription-metadata',
    groupId,
    value: {
      topics: [...metadata.values()].map((t) => ({
        topicId: t.topicId,
        topicName: t.topicName,
        numPartitions: t.numPartitions,
      })),
    },
  });
}

export function sameMetadata(
  a: ReadonlyMap<string, SubscribedTopic>,
  b: ReadonlyMap<string, SubscribedTopic>,
): boolean {
  if (a.size !== b.size) return false;
  for (const [name, t] of a) {
    const o = b.get(name);
    if (o === undefined || o.topicId !== t.topicId || o.numPartitions !== t.numPartitions) return false;
  }
  return true;
}
