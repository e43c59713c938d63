// Public surface of the consumer.
export { Consumer, type CommitCallback, type ConsumerGroupMetadata } from './consumer.js';
export {
  consumerOptionsFromProperties,
  type AutoOffsetReset,
  type ConsumerLogger,
  type ConsumerOptions,
  type Deserializer,
  type IsolationLevel,
} from './consumer-config.js';
export { CommitFailedError, NoOffsetForPartitionError, OffsetOutOfRangeError, RebalanceListenerError, WakeupError } from './consumer-errors.js';
export {
  BUILTIN_ASSIGNORS,
  cooperativeStickyAssignor,
  rangeAssignor,
  roundRobinAssignor,
  stickyAssignor,
  type ClusterView,
  type GroupMemberInfo,
  type MemberAssignment,
  type MemberSubscription,
  type PartitionAssignor,
  type RebalanceProtocol,
} from './assignors/index.js';
export type {
  ConsumerRecord,
  OffsetAndMetadata,
  OffsetAndTimestamp,
  RebalanceListener,
  RecordHeader,
  TimestampType,
  TopicPartition,
  TopicPartitionOffset,
} from './types.js';
