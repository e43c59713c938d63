// Request/response shapes of the KIP-848 operations (ConsumerGroupHeartbeat, ConsumerGroupDescribe),
// independent of the wire versions; the API handlers translate.

export interface TopicPartitionIds {
  topicId: string;
  partitions: number[];
}

export interface ConsumerHeartbeatRequest {
  groupId: string;
  memberId: string;
  memberEpoch: number;
  instanceId: string | null;
  rackId: string | null;
  rebalanceTimeoutMs: number;
  subscribedTopicNames: string[] | null;
  subscribedTopicRegex: string | null;
  serverAssignor: string | null;
  topicPartitions: TopicPartitionIds[] | null;
}

export interface ConsumerHeartbeatResult {
  errorCode: number;
  errorMessage: string | null;
  memberId: string | null;
  memberEpoch: number;
  heartbeatIntervalMs: number;
  /** Null when unchanged since the member last heard it. */
  assignment: TopicPartitionIds[] | null;
}

export interface DescribedTopicPartitions {
  topicId: string;
  topicName: string;
  partitions: number[];
}

export interface DescribedConsumerMember {
  memberId: string;
  instanceId: string | null;
  rackId: string | null;
  memberEpoch: number;
  clientId: string;
  clientHost: string;
  subscribedTopicNames: string[];
  subscribedTopicRegex: string | null;
  assignment: DescribedTopicPartitions[];
  targetAssignment: DescribedTopicPartitions[];
  /** ConsumerGroupDescribe v1 MemberType: 0 a classic member (JoinGroup), 1 a ConsumerGroupHeartbeat one. */
  memberType: number;
}

export interface DescribedConsumerGroup {
  errorCode: number;
  errorMessage: string | null;
  groupId: string;
  /** Kafka's ConsumerGroupDescribe states: Empty, Assigning, Reconciling, Stable (Dead: unknown). */
  groupState: string;
  groupEpoch: number;
  assignmentEpoch: number;
  assignorName: string;
  members: DescribedConsumerMember[];
}

/** Thrown inside an operation: answered with this error code, nothing written. */
export class GroupOpError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** What the consumer-group manager needs to know about the cluster's topics. */
export interface TopicCatalog {
  byName(name: string): { topicId: string; numPartitions: number } | undefined;
  nameOf(topicId: string): string | undefined;
  /** Every topic name (for regex subscriptions). */
  names(): Iterable<string>;
}

export const EMPTY_CATALOG: TopicCatalog = {
  byName: () => undefined,
  nameOf: () => undefined,
  names: () => [],
};
