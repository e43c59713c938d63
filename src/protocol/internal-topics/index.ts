// Codecs for the records of Kafka's internal topics.
export * from './consumer-offsets.js';
export * from './transaction-log.js';
export { InternalRecordError } from './versioned.js';
