// Public surface of the consumer.

export {
  BUILTIN_ASSIGNORS,
  type ClusterView,
  cooperativeStickyAssignor,
  type GroupMemberInfo,
  type MemberAssignment,
  type MemberSubscription,
  type PartitionAssignor,
  type RebalanceProtocol,
  rangeAssignor,
  roundRobinAssignor,
  stickyAssignor,
} from './assignors/index.js';
export { type CommitCallback, Consumer, type ConsumerGroupMetadata } from './consumer.js';
export {
  type AutoOffsetReset,
  type ConsumerLogger,
  type ConsumerOptions,
  consumerOptionsFromProperties,
  type Deserializer,
  type GroupProtocol,
  type IsolationLevel,
} from './consumer-config.js';
export {
  CommitFailedError,
  type LogTruncation,
  LogTruncationError,
  NoOffsetForPartitionError,
  OffsetOutOfRangeError,
  RebalanceListenerError,
  WakeupError,
} from './consumer-errors.js';
export type { ReplayStart } from './replay.js';
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
