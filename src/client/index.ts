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
