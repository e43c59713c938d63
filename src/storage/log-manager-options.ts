// The options of a LogManager (log-manager.ts) and of one log's creation.
import type { LogConfig } from './log-config.js';

export interface LogManagerOptions {
  /** `log.dirs`: one or more directories; new partitions go to the dir with the fewest logs. */
  logDirs: string[] | string;
  /** Broker-wide defaults (`log.retention.ms` etc. mapped to topic keys); Kafka's defaults otherwise. */
  defaults?: Partial<LogConfig>;
  /** Topic overrides known at startup, applied to logs found on disk during recovery. */
  topicConfigs?: ReadonlyMap<string, Partial<LogConfig>>;
  /** Upper bound on file descriptors kept open for segments (LRU). Default 1024. */
  maxOpenFiles?: number;
  /** Budget for the in-memory cache of recently appended batches, over all logs. Default 64 MiB. */
  tailCacheBytes?: number;
  /** `log.retention.check.interval.ms`, default 300000. */
  retentionCheckIntervalMs?: number;
  /** `log.cleaner.backoff.ms`, default 15000. */
  cleanerBackoffMs?: number;
  /** How often `flush.ms` deadlines are checked, default 1000. */
  flushCheckIntervalMs?: number;
  /** `log.flush.offset.checkpoint.interval.ms`, default 60000. */
  checkpointIntervalMs?: number;
  /** `producer.id.expiration.ms`, default 86400000. */
  producerIdExpirationMs?: number;
  /** Logs recovered in parallel at open (`num.recovery.threads.per.data.dir`-like). Default 32. */
  recoveryConcurrency?: number;
  /** Clock in ms (tests). Default `Date.now`. */
  now?: () => number;
  /** Background-task failures and recovery findings (no console output from the library). */
  onError?: (error: Error, context: string) => void;
  /**
   * The caller already holds every log dir's lock (`lockLogDirs`) and releases it after close;
   * otherwise `open` takes the locks and `close` releases them.
   */
  dirsLocked?: boolean;
  /** Written to `meta.properties` when a log dir is new, checked against it otherwise. */
  brokerId?: number;
  clusterId?: string;
}

export interface CreateLogOptions {
  /** Kafka uuid text form; stored in `partition.metadata`. */
  topicId: string;
  /** Topic overrides; when given they replace the topic's current overrides. */
  config?: Partial<LogConfig>;
}
