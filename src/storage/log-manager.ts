// LogManager: every partition log of this broker across its log directories. Owns the log-dir
// layout (`<dir>/<topic>-<partition>/`), the checkpoint files at each dir's root, recovery at
// open, the LRU of open file handles, and the background retention / compaction / flush tasks.
// Several log dirs (JBOD) as Kafka: new partitions go to the online dir with the fewest logs
// (ties: configuration order) unless AlterReplicaLogDirs chose one; a log moves between dirs
// (`moveLog`, log-dir-move.ts); an I/O error on a dir's files takes the whole dir offline (its
// logs answer KAFKA_STORAGE_ERROR, the other dirs keep serving) until the broker restarts.
import { randomUUID } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import { join, resolve } from 'node:path';
import { ErrorCode, KafkaError } from '../protocol/errors.js';
import {
  type OffsetCheckpointEntry,
  partitionKey,
  readOffsetCheckpoint,
  writeOffsetCheckpoint,
} from './checkpoint-file.js';
import { FileHandleCache } from './file-handle-cache.js';
import {
  CLEAN_SHUTDOWN_FILE,
  CLEANER_OFFSET_CHECKPOINT_FILE,
  deletedDirName,
  isDeletedDir,
  LOG_START_OFFSET_CHECKPOINT_FILE,
  parsePartitionDir,
  partitionDirName,
  RECOVERY_POINT_CHECKPOINT_FILE,
  REPLICATION_OFFSET_CHECKPOINT_FILE,
} from './file-names.js';
import { fsyncDir, readFileOrNull, writeFileAtomic } from './fs-util.js';
import { LogCleaner } from './log-cleaner.js';
import { isCompacted, type LogConfig, resolveLogConfig } from './log-config.js';
import { type LogDirLock, lockLogDirs } from './log-dir-lock.js';
import { type FutureLogProgress, resolveFutureDirs } from './log-dir-move.js';
import { LogDirMoves } from './log-dir-moves.js';
import { LogDirPlacement } from './log-dir-placement.js';
import { createNewLog, loadLog } from './log-loader.js';
import type { CreateLogOptions, LogManagerOptions } from './log-manager-options.js';
import type { LogSegment } from './log-segment.js';
import { ensureMetaProperties, writePartitionMetadata, ZERO_TOPIC_ID } from './partition-metadata.js';
import { TailCacheBudget } from './tail-cache.js';
import type { PartitionLog } from './types.js';
import { isStorageFailure, type LogEnvironment, type UnifiedLog } from './unified-log.js';

export type { CreateLogOptions, LogManagerOptions } from './log-manager-options.js';

interface Entry {
  log: UnifiedLog;
  dir: string;
}

function sameOverrides(a: Partial<LogConfig> | undefined, b: Partial<LogConfig>): boolean {
  if (a === undefined) return false;
  const keys = Object.keys(b) as (keyof LogConfig)[];
  return keys.length === Object.keys(a).length && keys.every((k) => a[k] === b[k]);
}

async function mapLimit<T>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

export class LogManager {
  readonly logDirs: readonly string[];
  readonly #defaults: Partial<LogConfig>;
  readonly #overrides = new Map<string, Partial<LogConfig>>();
  readonly #logs = new Map<string, Entry>();
  readonly #creating = new Map<string, Promise<UnifiedLog>>();
  /** Which dir takes a new log; the offline dirs. */
  readonly #placement: LogDirPlacement;
  readonly #cache: FileHandleCache;
  readonly #env: LogEnvironment;
  readonly #options: LogManagerOptions;
  readonly #cleaner: LogCleaner;
  readonly #pendingDeletes = new Map<LogSegment, NodeJS.Timeout>();
  readonly #deleting = new Set<Promise<void>>();
  #timers: NodeJS.Timeout[] = [];
  #busy = new Set<string>();
  #checkpointChain: Promise<void> = Promise.resolve();
  #checkpointSoon: NodeJS.Immediate | null = null;
  #closed = false;
  #locks: LogDirLock[] = [];
  readonly #moves: LogDirMoves;

  private constructor(options: LogManagerOptions, dirs: string[]) {
    this.#options = options;
    this.logDirs = dirs;
    this.#placement = new LogDirPlacement(dirs);
    this.#defaults = options.defaults ?? {};
    for (const [topic, cfg] of options.topicConfigs ?? []) this.#overrides.set(topic, cfg);
    this.#cache = new FileHandleCache(options.maxOpenFiles ?? 1024);
    const onError = options.onError ?? (() => undefined);
    this.#env = {
      cache: this.#cache,
      tailBudget: new TailCacheBudget(options.tailCacheBytes ?? 64 * 1024 * 1024),
      now: options.now ?? Date.now,
      onError,
      scheduleDelete: (seg, delayMs) => this.#scheduleDelete(seg, delayMs),
      onLogStartOffsetChanged: () => this.#requestCheckpoint(),
      onStorageFailure: (log, error) => {
        const entry = this.#logs.get(partitionKey(log.topic, log.partition));
        if (entry?.log === log) this.markDirOffline(entry.dir, error);
      },
    };
    this.#cleaner = new LogCleaner(this.#env);
    this.#moves = new LogDirMoves({
      entry: (key) => this.#logs.get(key),
      relocated: (key, log, from, to) => {
        this.#logs.set(key, { log, dir: to });
        this.#placement.removed(from);
        this.#placement.added(to);
        this.#requestCheckpoint();
      },
      refusesMoves: () => this.#closed || this.#placement.anyOffline,
      onError,
    });
  }

  /** Opens (creating if needed) the log dirs and recovers every partition found in them. */
  static async open(options: LogManagerOptions): Promise<LogManager> {
    const dirs = (Array.isArray(options.logDirs) ? options.logDirs : options.logDirs.split(','))
      .map((d) => resolve(d.trim()))
      .filter((d) => d !== '');
    if (dirs.length === 0) throw new KafkaError(ErrorCode.INVALID_CONFIG, 'log.dirs is empty');
    const mgr = new LogManager(options, dirs);
    if (!options.dirsLocked) mgr.#locks = await lockLogDirs(dirs);
    try {
      await resolveFutureDirs(dirs);
      for (const dir of dirs) await mgr.#openDir(dir);
    } catch (e) {
      await mgr.#releaseLocks();
      throw e;
    }
    return mgr;
  }

  async #openDir(dir: string): Promise<void> {
    await fsp.mkdir(dir, { recursive: true });
    await ensureMetaProperties(dir, { brokerId: this.#options.brokerId, clusterId: this.#options.clusterId });
    const cleanShutdown = (await readFileOrNull(join(dir, CLEAN_SHUTDOWN_FILE))) !== null;
    const report = (name: string, m: Map<string, bigint> | null): Map<string, bigint> => {
      if (m === null)
        this.#env.onError(new Error(`${name} is corrupt; recovering from scratch`), `log dir ${dir}`);
      return m ?? new Map();
    };
    const recovery = await readOffsetCheckpoint(join(dir, RECOVERY_POINT_CHECKPOINT_FILE));
    const starts = report(
      LOG_START_OFFSET_CHECKPOINT_FILE,
      await readOffsetCheckpoint(join(dir, LOG_START_OFFSET_CHECKPOINT_FILE)),
    );
    const hws = report(
      REPLICATION_OFFSET_CHECKPOINT_FILE,
      await readOffsetCheckpoint(join(dir, REPLICATION_OFFSET_CHECKPOINT_FILE)),
    );
    const recoveryPoints = report(RECOVERY_POINT_CHECKPOINT_FILE, recovery);
    const names = await fsp.readdir(dir, { withFileTypes: true });
    const partitions: { name: string; topic: string; partition: number }[] = [];
    for (const d of names) {
      if (!d.isDirectory()) continue;
      if (isDeletedDir(d.name)) {
        await fsp.rm(join(dir, d.name), { recursive: true, force: true });
        continue;
      }
      const parsed = parsePartitionDir(d.name);
      if (parsed !== null) partitions.push({ name: d.name, ...parsed });
    }
    await mapLimit(partitions, this.#options.recoveryConcurrency ?? 32, async (p) => {
      const key = partitionKey(p.topic, p.partition);
      if (this.#logs.has(key)) {
        throw new KafkaError(
          ErrorCode.KAFKA_STORAGE_ERROR,
          `Duplicate log directories for ${p.topic}-${p.partition}`,
        );
      }
      const { log, report: r } = await loadLog({
        dir: join(dir, p.name),
        topic: p.topic,
        partition: p.partition,
        config: this.topicConfig(p.topic),
        env: this.#env,
        recoveryPoint: recovery === null ? undefined : recoveryPoints.get(key),
        logStartOffset: starts.get(key),
        highWatermark: hws.get(key),
        cleanShutdown,
      });
      for (const problem of r.problems)
        this.#env.onError(new Error(problem), `recovery of ${p.topic}-${p.partition}`);
      this.#register(key, { log, dir });
    });
    // From now on a crash must be detected: the marker goes until the next clean shutdown.
    await fsp.rm(join(dir, CLEAN_SHUTDOWN_FILE), { force: true });
    await this.#writeCheckpoints(dir);
  }

  #register(key: string, entry: Entry): void {
    this.#logs.set(key, entry);
    this.#placement.added(entry.dir);
  }

  getLog(topic: string, partition: number): PartitionLog | undefined {
    return this.#logs.get(partitionKey(topic, partition))?.log;
  }

  /** Returns the existing log, or creates `<dir>/<topic>-<partition>` with `partition.metadata`. */
  async createLog(topic: string, partition: number, options: CreateLogOptions): Promise<PartitionLog> {
    this.#ensureOpen();
    // Every partition of a topic brings the same overrides: re-applying them to the topic's logs
    // scans all logs, which made creating or adopting 10,000 partitions quadratic.
    if (options.config !== undefined && !sameOverrides(this.#overrides.get(topic), options.config))
      this.updateConfig(topic, options.config);
    const key = partitionKey(topic, partition);
    const existing = this.#logs.get(key);
    if (existing !== undefined) {
      // partition.metadata is not fsynced at creation; repair it if a power cut lost it.
      if (existing.log.topicId === ZERO_TOPIC_ID && options.topicId !== ZERO_TOPIC_ID) {
        existing.log.topicId = options.topicId;
        await writePartitionMetadata(existing.log.dir, options.topicId);
      }
      return existing.log;
    }
    let pending = this.#creating.get(key);
    if (pending === undefined) {
      pending = this.#create(topic, partition, options.topicId).finally(() => this.#creating.delete(key));
      this.#creating.set(key, pending);
    }
    return pending;
  }

  async #create(topic: string, partition: number, topicId: string): Promise<UnifiedLog> {
    if (!/^[a-zA-Z0-9._-]{1,249}$/.test(topic) || !Number.isInteger(partition) || partition < 0) {
      throw new KafkaError(
        ErrorCode.INVALID_TOPIC_EXCEPTION,
        `Invalid topic partition ${topic}-${partition}`,
      );
    }
    const root = this.#placement.place(partitionKey(topic, partition));
    try {
      const log = await this.#createIn(root, topic, partition, topicId);
      this.#logs.set(partitionKey(topic, partition), { log, dir: root });
      return log;
    } catch (err) {
      this.#placement.removed(root);
      throw err;
    }
  }

  async #createIn(root: string, topic: string, partition: number, topicId: string): Promise<UnifiedLog> {
    const dir = join(root, partitionDirName(topic, partition));
    const params = {
      dir,
      topic,
      partition,
      config: this.topicConfig(topic),
      env: this.#env,
      recoveryPoint: undefined,
      logStartOffset: undefined,
      highWatermark: undefined,
      cleanShutdown: false,
      topicId,
    };
    let log: UnifiedLog;
    try {
      await fsp.mkdir(dir);
      log = await createNewLog(params);
    } catch (err) {
      if ((err as { code?: string }).code !== 'EEXIST') throw err;
      // A directory this manager did not load (left by something else): recover what it holds.
      await writePartitionMetadata(dir, topicId);
      log = (await loadLog({ ...params, created: true })).log;
    }
    return log;
  }

  /** Closes the log, renames its dir to `<topic>-<partition>.<uuid>-delete` and removes it. */
  async deleteLog(topic: string, partition: number): Promise<void> {
    const key = partitionKey(topic, partition);
    await this.#moves.cancel(key);
    const entry = this.#logs.get(key);
    if (entry === undefined) return;
    this.#logs.delete(key);
    this.#placement.removed(entry.dir);
    const log = entry.log;
    await log.local.whenIdle().catch(() => undefined);
    log.markClosed();
    if (this.#placement.isOffline(entry.dir)) return; // nothing can be done on a failed dir
    for (const seg of [...this.#pendingDeletes.keys()]) {
      if (seg.dir === log.dir) this.#runDelete(seg);
    }
    const doomed = join(entry.dir, deletedDirName(topic, partition, randomUUID().replaceAll('-', '')));
    await fsp.rename(log.dir, doomed);
    await fsyncDir(entry.dir);
    await fsp.rm(doomed, { recursive: true, force: true });
    this.#requestCheckpoint();
  }

  allLogs(): PartitionLog[] {
    return [...this.#logs.values()].map((e) => e.log);
  }

  /** Replaces the topic's overrides (merged over the broker defaults) for all its partitions. */
  updateConfig(topic: string, overrides: Partial<LogConfig>): void {
    this.#overrides.set(topic, { ...overrides });
    const config = this.topicConfig(topic);
    for (const e of this.#logs.values()) if (e.log.topic === topic) e.log.config = config;
  }

  /** The effective config of a topic (Kafka defaults ← broker defaults ← topic overrides). */
  topicConfig(topic: string): LogConfig {
    return resolveLogConfig(this.#defaults, this.#overrides.get(topic));
  }

  /**
   * Writes recovery-point, log-start-offset and replication-offset checkpoints of every online
   * dir; a dir whose checkpoint cannot be written goes offline (as in Kafka).
   */
  async checkpoint(): Promise<void> {
    for (const dir of this.logDirs) {
      if (this.#placement.isOffline(dir)) continue;
      try {
        await this.#writeCheckpoints(dir);
      } catch (err) {
        if (!isStorageFailure(err)) throw err;
        this.markDirOffline(dir, err);
      }
    }
  }

  #writeCheckpoints(dir: string): Promise<void> {
    const run = this.#checkpointChain.then(async () => {
      if (this.#placement.isOffline(dir)) return;
      const rp: OffsetCheckpointEntry[] = [];
      const ls: OffsetCheckpointEntry[] = [];
      const hw: OffsetCheckpointEntry[] = [];
      const cleaner: OffsetCheckpointEntry[] = [];
      for (const e of this.#logs.values()) {
        if (e.dir !== dir) continue;
        const { topic, partition } = e.log;
        rp.push({ topic, partition, offset: e.log.recoveryPoint });
        ls.push({ topic, partition, offset: e.log.logStartOffset });
        hw.push({ topic, partition, offset: e.log.highWatermark });
        const dirty = this.#cleaner.firstDirtyOffset(e.log);
        if (dirty !== undefined) cleaner.push({ topic, partition, offset: dirty });
      }
      await writeOffsetCheckpoint(join(dir, RECOVERY_POINT_CHECKPOINT_FILE), rp);
      await writeOffsetCheckpoint(join(dir, LOG_START_OFFSET_CHECKPOINT_FILE), ls);
      await writeOffsetCheckpoint(join(dir, REPLICATION_OFFSET_CHECKPOINT_FILE), hw);
      await writeOffsetCheckpoint(join(dir, CLEANER_OFFSET_CHECKPOINT_FILE), cleaner);
    });
    this.#checkpointChain = run.catch(() => undefined);
    return run;
  }

  #requestCheckpoint(): void {
    if (this.#checkpointSoon !== null || this.#closed) return;
    this.#checkpointSoon = setImmediate(() => {
      this.#checkpointSoon = null;
      this.checkpoint().catch((err: unknown) => this.#env.onError(err as Error, 'offset checkpoints'));
    });
    this.#checkpointSoon.unref();
  }

  #scheduleDelete(seg: LogSegment, delayMs: number): void {
    const timer = setTimeout(() => this.#runDelete(seg), Math.max(0, delayMs));
    timer.unref();
    this.#pendingDeletes.set(seg, timer);
  }

  #runDelete(seg: LogSegment): Promise<void> {
    const timer = this.#pendingDeletes.get(seg);
    if (timer !== undefined) clearTimeout(timer);
    this.#pendingDeletes.delete(seg);
    const run = seg
      .deleteFiles()
      .catch((err: unknown) => this.#env.onError(err as Error, `deleting ${seg.file.path}`));
    this.#deleting.add(run);
    return run.finally(() => this.#deleting.delete(run));
  }

  /** Deletes every file still waiting for file.delete.delay.ms, and waits for those in flight. */
  async #drainDeletes(): Promise<void> {
    await Promise.all([...this.#pendingDeletes.keys()].map((s) => this.#runDelete(s)));
    await Promise.all([...this.#deleting]);
  }

  /** Starts retention, compaction, flush.ms and checkpoint timers (unref'd). */
  startBackgroundTasks(): void {
    this.#ensureOpen();
    if (this.#timers.length > 0) return;
    const o = this.#options;
    this.#every('retention', o.retentionCheckIntervalMs ?? 300_000, () => this.#retentionPass());
    this.#every('cleaner', o.cleanerBackoffMs ?? 15_000, () => this.#cleanerPass());
    this.#every('flush', o.flushCheckIntervalMs ?? 1000, () => this.#flushPass());
    this.#every('checkpoint', o.checkpointIntervalMs ?? 60_000, () => this.checkpoint());
  }

  #every(name: string, ms: number, task: () => Promise<unknown>): void {
    const timer = setInterval(() => {
      if (this.#busy.has(name) || this.#closed) return;
      this.#busy.add(name);
      task()
        .catch((err: unknown) =>
          this.#env.onError(err instanceof Error ? err : new Error(String(err)), `${name} task`),
        )
        .finally(() => this.#busy.delete(name));
    }, ms);
    timer.unref();
    this.#timers.push(timer);
  }

  async #retentionPass(): Promise<void> {
    const now = BigInt(this.#env.now());
    const expiration = BigInt(this.#options.producerIdExpirationMs ?? 86_400_000);
    for (const e of [...this.#logs.values()]) {
      if (e.log.isClosed) continue;
      try {
        await e.log.applyRetention();
        e.log.producers.removeExpired(now, expiration);
      } catch (err) {
        this.#env.onError(err as Error, `retention of ${e.log.topic}-${e.log.partition}`);
      }
    }
  }

  async #cleanerPass(): Promise<void> {
    for (const e of [...this.#logs.values()]) {
      if (e.log.isClosed || !isCompacted(e.log.config)) continue;
      try {
        await this.#cleaner.maybeClean(e.log);
      } catch (err) {
        this.#env.onError(err as Error, `compaction of ${e.log.topic}-${e.log.partition}`);
      }
    }
  }

  async #flushPass(): Promise<void> {
    const now = this.#env.now();
    for (const e of [...this.#logs.values()]) {
      const log = e.log;
      const ms = log.config.flushMs;
      if (log.isClosed || !Number.isFinite(ms) || log.local.unflushedRecords === 0) continue;
      if (now - log.local.firstUnflushedMs >= ms) await log.flush();
    }
  }

  /**
   * One pass of retention and compaction (ignoring the cleaner's dirty-ratio threshold when
   * `force`), then deletion of files still waiting for file.delete.delay.ms.
   */
  async runMaintenance(options?: { forceCompaction?: boolean }): Promise<void> {
    this.#ensureOpen();
    await this.#retentionPass();
    for (const e of [...this.#logs.values()]) {
      if (e.log.isClosed || !isCompacted(e.log.config)) continue;
      await this.#cleaner.maybeClean(e.log, options?.forceCompaction === true);
    }
    await this.#drainDeletes();
  }

  #ensureOpen(): void {
    if (this.#closed) throw new KafkaError(ErrorCode.KAFKA_STORAGE_ERROR, 'The log manager is closed');
  }

  /** Stops background tasks, flushes every log, writes all checkpoints and the clean-shutdown marker. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const t of this.#timers) clearInterval(t);
    this.#timers = [];
    if (this.#checkpointSoon !== null) clearImmediate(this.#checkpointSoon);
    this.#cleaner.stop();
    await this.#moves.cancelAll();
    let failed = false;
    await mapLimit([...this.#logs.values()], 64, async (e) => {
      try {
        await e.log.close();
      } catch (err) {
        failed = true;
        this.#env.onError(err as Error, `closing ${e.log.topic}-${e.log.partition}`);
      }
    });
    try {
      await this.#drainDeletes();
      for (const dir of this.logDirs) {
        if (this.#placement.isOffline(dir)) continue;
        await this.#writeCheckpoints(dir);
        // Only a fully clean close may skip recovery next time.
        if (!failed) await writeFileAtomic(join(dir, CLEAN_SHUTDOWN_FILE), '');
      }
      await this.#cache.closeAll();
    } finally {
      await this.#releaseLocks();
    }
  }

  // -- Several log dirs: placement, moves, failures ------------------------------------------------

  /** The log dir holding a partition's log (undefined: not hosted here). */
  logDirOf(topic: string, partition: number): string | undefined {
    return this.#logs.get(partitionKey(topic, partition))?.dir;
  }

  isDirOnline(dir: string): boolean {
    return this.logDirs.includes(dir) && !this.#placement.isOffline(dir);
  }

  get offlineDirs(): readonly string[] {
    return this.#placement.offlineDirs;
  }

  /** Where a partition this broker does not host yet will be created (AlterReplicaLogDirs). */
  setPreferredDir(topic: string, partition: number, dir: string): void {
    this.#placement.prefer(partitionKey(topic, partition), dir);
  }

  /** The logs of one dir and the moves into it (DescribeLogDirs). */
  dirContents(dir: string): {
    logs: PartitionLog[];
    futures: { log: PartitionLog; progress: FutureLogProgress }[];
  } {
    const logs: PartitionLog[] = [];
    for (const e of this.#logs.values()) if (e.dir === dir) logs.push(e.log);
    return { logs, futures: this.#moves.into(dir) };
  }

  /**
   * Starts moving a partition's log to `targetDir` (another of this broker's log dirs) and
   * returns the move's completion; the log keeps serving meanwhile. A move to another dir in
   * progress is cancelled first (Kafka replaces the future replica). Throws KafkaError:
   * LOG_DIR_NOT_FOUND, KAFKA_STORAGE_ERROR (target, source or any dir offline),
   * REPLICA_NOT_AVAILABLE (no such log here), synchronously: a caller may answer at once and
   * let the move run.
   */
  moveLog(topic: string, partition: number, targetDir: string): Promise<void> {
    this.#ensureOpen();
    if (!this.logDirs.includes(targetDir))
      throw new KafkaError(ErrorCode.LOG_DIR_NOT_FOUND, `Log dir ${targetDir} is not found in the config.`);
    if (this.#placement.isOffline(targetDir))
      throw new KafkaError(ErrorCode.KAFKA_STORAGE_ERROR, `Log directory ${targetDir} is offline`);
    const key = partitionKey(topic, partition);
    if (!this.#logs.has(key))
      throw new KafkaError(
        ErrorCode.REPLICA_NOT_AVAILABLE,
        `Replica for ${topic}-${partition} is not available`,
      );
    if (this.#placement.anyOffline)
      throw new KafkaError(
        ErrorCode.KAFKA_STORAGE_ERROR,
        `Partition ${topic}-${partition} cannot move while a log dir is offline`,
      );
    return this.#moves.start(key, targetDir);
  }

  /**
   * Takes a log dir offline after an I/O error: its logs are closed where they are (every
   * request for them answers KAFKA_STORAGE_ERROR), moves from or to it stop, nothing is
   * written there any more. Kafka's ZooKeeper mode also tells the controller
   * (`/log_dir_event_notification`) so that leaders move elsewhere; Samsa does not.
   */
  markDirOffline(dir: string, error: Error): void {
    if (!this.#placement.markOffline(dir, error)) return;
    this.#env.onError(error, `log dir ${dir} is offline`);
    this.#moves.cancelInvolving(dir);
    for (const e of this.#logs.values()) if (e.dir === dir) e.log.markClosed();
    for (const seg of [...this.#pendingDeletes.keys()]) {
      if (!seg.dir.startsWith(`${dir}/`)) continue;
      clearTimeout(this.#pendingDeletes.get(seg));
      this.#pendingDeletes.delete(seg);
    }
  }

  async #releaseLocks(): Promise<void> {
    const locks = this.#locks;
    this.#locks = [];
    await Promise.all(locks.map((l) => l.release()));
  }
}
