// Public surface of the TypeScript client.

export { Admin } from './admin/admin.js';
export type { ClusterDescription } from './admin/cluster.js';
export type {
  AlterOp,
  ConfigAlteration,
  ConfigDescription,
  ConfigEntry,
  ConfigResource,
  ConfigResourceType,
} from './admin/configs.js';
export type { TopicPartition } from './admin/context.js';
export type {
  CommittedOffset,
  GroupDescription,
  GroupListing,
  GroupMemberDescription,
  OffsetToCommit,
  PartitionErrorCode,
} from './admin/groups.js';
export { AlterOffsetsPartitionError } from './admin/groups.js';
export type { ElectionResult, OngoingReassignment, PartitionReassignment } from './admin/leadership.js';
export type { DeleteRecordsTarget, ListedOffset, OffsetQuery, OffsetSpec } from './admin/partition-ops.js';
export type {
  CreatedTopic,
  NewPartitions,
  NewTopic,
  PartitionDescription,
  TopicDescription,
} from './admin/topics.js';
export type { ClientOptions } from './config.js';
export { fromKafkaProperties } from './config.js';
export * from './errors.js';
export type { PartitionMetadata, TopicMetadata } from './metadata.js';
export type { HeaderValue, RecordHeaders } from './producer/batch-builder.js';
export type { PartitionerContext, PartitionerFn, PartitionerOption } from './producer/partitioner.js';
export {
  MetadataTimeoutError,
  Producer,
  type ProducerRecord,
  SerializationError,
} from './producer/producer.js';
export type { DeliveryCallback, RecordMetadata } from './producer/producer-batch.js';
export type { Acks, ProducerOptions, Serializer } from './producer/producer-config.js';
export type { ConsumerGroupMetadata, TransactionOffset, TransactionState } from './producer/transactions.js';
export {
  Consumer,
  CommitFailedError,
  type LogTruncation,
  LogTruncationError,
  NoOffsetForPartitionError,
  OffsetOutOfRangeError,
  RebalanceListenerError,
  WakeupError,
  cooperativeStickyAssignor,
  rangeAssignor,
  roundRobinAssignor,
  stickyAssignor,
  type ConsumerOptions,
  type ConsumerRecord,
  type Deserializer,
  type OffsetAndTimestamp,
  type PartitionAssignor,
  type RebalanceListener,
  type TopicPartitionOffset,
} from './consumer/index.js';
export { jsonReplacer } from './json.js';
