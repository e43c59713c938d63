// LogManager: every partition log of this broker across its log directories. Owns the log-dir
// layout (`<dir>/<topic>-<partition>/`), the checkpoint files at each dir's root, recovery at
// open, the LRU of open file handles, and the background retention / compaction / flush tasks.
import type { LogConfig } from './log-config.js';
import type { PartitionLog } from './types.js';

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
  /** Clock in ms (tests). Default `Date.now`. */
  now?: () => number;
  /** Background-task failures (no console output from the library). */
  onError?: (error: Error, context: string) => void;
  /** Written to `meta.properties` when a log dir is new. */
  brokerId?: number;
  clusterId?: string;
}

export interface CreateLogOptions {
  /** Kafka uuid text form; stored in `partition.metadata`. */
  topicId: string;
  /** Topic overrides; when given they replace the topic's current overrides. */
  config?: Partial<LogConfig>;
}

export class LogManager {
  private constructor() {}

  /** Opens (creating if needed) the log dirs and recovers every partition found in them. */
  static async open(options: LogManagerOptions): Promise<LogManager> {
    void options;
    throw new Error('LogManager.open: not implemented yet');
  }

  getLog(topic: string, partition: number): PartitionLog | undefined {
    void topic;
    void partition;
    return undefined;
  }

  /** Returns the existing log, or creates `<dir>/<topic>-<partition>` with `partition.metadata`. */
  async createLog(topic: string, partition: number, options: CreateLogOptions): Promise<PartitionLog> {
    void topic;
    void partition;
    void options;
    throw new Error('not implemented yet');
  }

  /** Closes the log, renames its dir to `<topic>-<partition>.<uuid>-delete` and removes it. */
  async deleteLog(topic: string, partition: number): Promise<void> {
    void topic;
    void partition;
  }

  allLogs(): PartitionLog[] {
    return [];
  }

  /** Replaces the topic's overrides (merged over the broker defaults) for all its partitions. */
  updateConfig(topic: string, overrides: Partial<LogConfig>): void {
    void topic;
    void overrides;
  }

  /** The effective config of a topic (defaults ← overrides). */
  topicConfig(topic: string): LogConfig {
    void topic;
    throw new Error('not implemented yet');
  }

  /** Writes recovery-point, log-start-offset and replication-offset checkpoints of every dir. */
  async checkpoint(): Promise<void> {}

  /** Starts retention, compaction, flush.ms and checkpoint timers (unref'd). */
  startBackgroundTasks(): void {}

  /** One pass of retention + compaction + deletion of `.deleted` files (tests, admin). */
  async runMaintenance(): Promise<void> {}

  /** Stops background tasks, flushes every log, writes all checkpoints and the clean-shutdown marker. */
  async close(): Promise<void> {}
}
