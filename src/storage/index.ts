// Public API of the storage layer (src/storage): segmented partition logs in Kafka's on-disk
// format, recovery, retention and compaction. The broker imports only from here.
export {
  type CleanupPolicy,
  DEFAULT_LOG_CONFIG,
  LOG_CONFIG_KEYS,
  type LogConfig,
  logConfigFromProperties,
  logConfigToProperties,
  resolveLogConfig,
  type TimestampType,
} from './log-config.js';
export { LOCK_FILE, LogDirInUseError, type LogDirLock, lockLogDir, lockLogDirs } from './log-dir-lock.js';
export { type CreateLogOptions, LogManager, type LogManagerOptions } from './log-manager.js';
export { MetaPropertiesMismatchError } from './partition-metadata.js';
export { NO_GUARD, type VerificationGuard } from './producer-state.js';
export {
  type AbortedTransaction,
  type AppendListener,
  type AppendOptions,
  type AppendOrigin,
  type AppendResult,
  EARLIEST_TIMESTAMP,
  type EpochEndOffset,
  type FollowerAppendResult,
  LATEST_TIMESTAMP,
  MAX_TIMESTAMP,
  type PartitionLog,
  type ProducerStateView,
  type ReadOptions,
  type ReadResult,
  type ReadUpperBound,
  type TimestampOffset,
} from './types.js';
