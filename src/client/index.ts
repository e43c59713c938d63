// Public surface of the TypeScript client.

export type { ThrottleEvent } from '../net/broker-link.js';
export type { TlsConnectOptions } from '../net/connection.js';
export type { ClientSaslMechanism, SaslOptions } from '../net/sasl/sasl-options.js';
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
  GroupListFilter,
  GroupListing,
  GroupMemberDescription,
  ListConsumerGroupOffsetsOptions,
  OffsetToCommit,
  PartitionErrorCode,
} from './admin/groups.js';
export { AlterOffsetsPartitionError } from './admin/groups.js';
export type { ElectionResult, OngoingReassignment, PartitionReassignment } from './admin/leadership.js';
export type { LogDirDescription, ReplicaLogDirInfo } from './admin/log-dirs.js';
export type {
  DeleteRecordsTarget,
  ListedOffset,
  OffsetQuery,
  OffsetSpec,
  ReplicaLogEnd,
  ReplicaQuery,
} from './admin/partition-ops.js';
export type {
  ClientQuotaAlteration,
  ClientQuotaEntry,
  ClientQuotaFilterComponent,
  QuotaEntityComponent,
} from './admin/quotas.js';
export type { ScramCredentialAlteration, UserScramCredentials } from './admin/scram.js';
export type {
  CreatedTopic,
  NewPartitions,
  NewTopic,
  PartitionDescription,
  TopicDescription,
} from './admin/topics.js';
export type {
  AbortTransactionSpec,
  ListTransactionsFilter,
  PartitionProducers,
  ProducerState,
  TransactionDescription,
  TransactionListing,
} from './admin/transactions.js';
export type { ClientOptions } from './config.js';
export { fromKafkaProperties } from './config.js';
export {
  CommitFailedError,
  Consumer,
  type ConsumerOptions,
  type ConsumerRecord,
  cooperativeStickyAssignor,
  type Deserializer,
  type LogTruncation,
  LogTruncationError,
  NoOffsetForPartitionError,
  type OffsetAndTimestamp,
  OffsetOutOfRangeError,
  type PartitionAssignor,
  type RebalanceListener,
  RebalanceListenerError,
  type ReplayStart,
  rangeAssignor,
  roundRobinAssignor,
  stickyAssignor,
  type TopicPartitionOffset,
  WakeupError,
} from './consumer/index.js';
export * from './errors.js';
export { jsonReplacer } from './json.js';
export type { PartitionMetadata, TopicMetadata } from './metadata.js';
export type { NodeRequestMetrics } from './metrics/client-metrics.js';
export type { ConsumerMetricsSnapshot, PartitionLagMetrics } from './metrics/consumer-metrics.js';
export type { ProducerMetricsSnapshot } from './metrics/producer-metrics.js';
export {
  DEFAULT_DELAY_LEVELS_MS,
  DELAY_PARTITION_HEADER,
  DELAY_TOPIC_HEADER,
  DELAY_UNTIL_HEADER,
  DELIVER_AT_HEADER,
  type DelayLevel,
  DelayQueue,
  type DelayQueueOptions,
  type DeliveryTime,
} from './patterns/delay-queue.js';
export {
  DelayScheduler,
  type DelaySchedulerOptions,
  type DelaySchedulerStats,
  startDelayScheduler,
} from './patterns/delay-scheduler.js';
export {
  FanOut,
  type FanOutInfo,
  type FanOutPartitionProgress,
  type FanOutProgress,
  fanOut,
} from './patterns/fan-out.js';
export type { FanOutOptions, KeylessSpread } from './patterns/fan-out-options.js';
export {
  OrderedParallelConsumer,
  type OrderedParallelStats,
} from './patterns/ordered-parallel-consumer.js';
export {
  type FailurePolicy,
  type OrderedParallelOptions,
  type OrderingMode,
  RecordProcessingError,
  type RetryOptions,
} from './patterns/ordered-parallel-options.js';
export { TopicSetupError } from './patterns/pattern-topics.js';
export { FencedError } from './patterns/transactional-hand-off.js';
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
  CLIENT_SECURITY_KEYS,
  type SecurityOptions,
  securityFromKafkaProperties,
} from './security-properties.js';
export { CLIENT_TLS_KEYS, sslFromKafkaProperties } from './tls-properties.js';
