export { type Clock, MockClock, systemClock, type TimerHandle } from './clock.js';
export { errorCodeOf } from './coordinator-error.js';
export { CoordinatorRuntime, type CoordinatorRuntimeOptions } from './coordinator-runtime.js';
export type {
  CoordinatorResult,
  CoordinatorShard,
  CoordinatorTimer,
  RecordSerde,
  ShardContext,
  Undo,
} from './coordinator-shard.js';
export {
  type AppendAttributes,
  AppendRefusedError,
  InMemoryPartitionWriter,
  type LoadedMarker,
  type LoadedRecord,
  type PartitionLoader,
  type PartitionWriter,
  type SerializedRecord,
  type TransactionalProducer,
  type TransactionMarker,
} from './partition-writer.js';
