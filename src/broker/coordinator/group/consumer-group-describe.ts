// ConsumerGroupDescribe for one group id of a shard (Kafka's ConsumerGroup.asDescribedGroup):
// epochs, the assignor in use, and each member's current and target assignment with topic
// names resolved from the cluster's topics, and (v1) whether each member uses the classic protocol.
// A classic or unknown id is GROUP_ID_NOT_FOUND with Kafka's message.
import { ErrorCode } from '../../../protocol/errors.js';
import { type Assignment, usesClassicProtocol } from './consumer-group-member.js';
import type {
  DescribedConsumerGroup,
  DescribedTopicPartitions,
  TopicCatalog,
} from './consumer-group-types.js';
import type { GroupCoordinatorShard } from './group-coordinator-shard.js';

/** ConsumerGroupDescribe v1 MemberType values. */
const CLASSIC_MEMBER = 0;
const CONSUMER_MEMBER = 1;

function describeAssignment(a: Assignment, catalog: TopicCatalog): DescribedTopicPartitions[] {
  return [...a].map(([topicId, ps]) => ({
    topicId,
    topicName: catalog.nameOf(topicId) ?? '',
    partitions: [...ps].sort((x, y) => x - y),
  }));
}

export function describeConsumerGroup(shard: GroupCoordinatorShard, groupId: string): DescribedConsumerGroup {
  const mgr = shard.consumer;
  const g = mgr.groups.get(groupId);
  if (g === undefined) {
    const classic = shard.classic.groups.has(groupId);
    return {
      errorCode: ErrorCode.GROUP_ID_NOT_FOUND,
      errorMessage: classic ? `Group ${groupId} is not a consumer group.` : `Group ${groupId} not found.`,
      groupId,
      groupState: '',
      groupEpoch: -1,
      assignmentEpoch: -1,
      assignorName: '',
      members: [],
    };
  }
  return {
    errorCode: ErrorCode.NONE,
    errorMessage: null,
    groupId,
    groupState: g.state,
    groupEpoch: g.groupEpoch,
    assignmentEpoch: g.assignmentEpoch,
    assignorName: mgr.assignorName(g),
    members: [...g.members.values()].map((m) => ({
      memberId: m.memberId,
      instanceId: m.instanceId,
      rackId: m.rackId,
      memberEpoch: m.memberEpoch,
      clientId: m.clientId,
      clientHost: m.clientHost,
      subscribedTopicNames: [...m.subscribedTopicNames],
      subscribedTopicRegex: m.subscribedTopicRegex,
      assignment: describeAssignment(m.assignedPartitions, mgr.catalog),
      targetAssignment: describeAssignment(g.targetAssignment.get(m.memberId) ?? new Map(), mgr.catalog),
      memberType: usesClassicProtocol(m) ? CLASSIC_MEMBER : CONSUMER_MEMBER,
    })),
  };
}
