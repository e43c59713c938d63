// Public surface of the TypeScript client.
export { Producer, MetadataTimeoutError, SerializationError, type ProducerRecord } from './producer/producer.js';
export type { ProducerOptions, Serializer, Acks } from './producer/producer-config.js';
export type { RecordMetadata, DeliveryCallback } from './producer/producer-batch.js';
export type { RecordHeaders, HeaderValue } from './producer/batch-builder.js';
export type { PartitionerFn, PartitionerContext, PartitionerOption } from './producer/partitioner.js';
export type { TransactionOffset, ConsumerGroupMetadata, TransactionState } from './producer/transactions.js';
export type { ClientOptions } from './config.js';
export { fromKafkaProperties } from './config.js';
export type { TopicMetadata, PartitionMetadata } from './metadata.js';
export * from './errors.js';
export { Admin } from './admin/admin.js';
export type { NewTopic, CreatedTopic, TopicDescription, PartitionDescription, NewPartitions } from './admin/topics.js';
export type { ConfigResource, ConfigDescription, ConfigEntry, ConfigAlteration, AlterOp, ConfigResourceType } from './admin/configs.js';
export type { GroupListing, GroupDescription, GroupMemberDescription, CommittedOffset, OffsetToCommit } from './admin/groups.js';
export type { ClusterDescription } from './admin/cluster.js';
export type { OffsetSpec, OffsetQuery, ListedOffset, DeleteRecordsTarget } from './admin/partition-ops.js';
export type { TopicPartition } from './admin/context.js';
