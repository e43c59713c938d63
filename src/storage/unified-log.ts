// A partition's log as the broker sees it (Kafka's UnifiedLog): log start offset, high
// watermark and last stable offset on top of the segment list, leader appends with producer
// sequence checks, follower appends, reads bounded by HW/LSO/LEO, truncation for replication,
// and the leader-epoch cache. The high watermark only moves when the broker's replica layer
// calls `setHighWatermark` (a single broker sets it to the log end offset after each append).
import { ErrorCode, KafkaError } from '../protocol/errors.js';
import {
  setBaseOffset,
  setMaxTimestampAndLogAppendTime,
  setPartitionLeaderEpoch,
} from '../protocol/record-batch/header.js';
import { abortedTransactions } from './aborted-transactions.js';
import {
  baseOffsetOf,
  followerBatchAt,
  lastOffsetOf,
  leaderEpochOf,
  maxTimestampOf,
  producerBatchOf,
  producerBatchOfHeader,
  recordCountOf,
} from './batch-info.js';
import { fsyncDir } from './fs-util.js';
import type { LeaderEpochCache } from './leader-epoch-cache.js';
import type { LocalLog } from './local-log.js';
import type { LogConfig } from './log-config.js';
import { isStorageFailure, type LogEnvironment, type UnifiedLogParts } from './log-environment.js';
import { replayProducerState } from './log-replay.js';
import { applyRetention, deleteSegments, deleteSegmentsBelowLogStart } from './log-retention.js';
import { isSmallLog, type LogSegment } from './log-segment.js';
import { validateLeaderBatch } from './log-validator.js';
import { encodeSnapshot } from './producer-snapshot.js';
import type { ProducerSnapshots } from './producer-snapshots.js';
import type {
  BatchMetadata,
  ProducerBatch,
  ProducerStateManager,
  VerificationGuard,
} from './producer-state.js';
import { listOffset } from './timestamp-lookup.js';
import type { AbortedTxnEntry } from './transaction-index.js';
import type {
  AppendListener,
  AppendOptions,
  AppendResult,
  EpochEndOffset,
  FollowerAppendResult,
  PartitionLog,
  ProducerStateView,
  ReadOptions,
  ReadResult,
  TimestampOffset,
} from './types.js';

export { isStorageFailure, type LogEnvironment, type UnifiedLogParts };

const EMPTY = Buffer.alloc(0);

export class UnifiedLog implements PartitionLog {
  readonly topic: string;
  readonly partition: number;
  // dir, local, snapshots and epochs change only when the log moves to another log dir
  // (`adoptStorage`); everything else keeps this object, its listeners and its producer state.
  dir: string;
  topicId: string;
  local: LocalLog;
  readonly producers: ProducerStateManager;
  snapshots: ProducerSnapshots;
  epochs: LeaderEpochCache;
  readonly env: LogEnvironment;
  #logStartOffset: bigint;
  #highWatermark: bigint;
  readonly #listeners = new Set<AppendListener>();
  /** Set while a truncation runs: appends wait for it, in call order. */
  #exclusive: Promise<void> | null = null;
  /** Serialises retention, compaction, truncation and deletion of records. */
  #maintenance: Promise<unknown> = Promise.resolve();
  #closed = false;
  /**
   * Entries of the partition dir changed (creation, snapshot renames) since its last fsync.
   * partition.metadata itself is never fsynced: if a power cut loses it, `createLog` rewrites it.
   */
  #dirDirty: boolean;
  /** Clean shutdown of a small log in progress (see `persistMetadata`). */
  #closing = false;

  constructor(parts: UnifiedLogParts, env: LogEnvironment) {
    this.#dirDirty = parts.metadataSynced === false;
    this.topic = parts.topic;
    this.partition = parts.partition;
    this.dir = parts.dir;
    this.topicId = parts.topicId;
    this.local = parts.local;
    this.producers = parts.producers;
    this.snapshots = parts.snapshots;
    this.epochs = parts.epochs;
    this.env = env;
    this.#logStartOffset = parts.logStartOffset;
    this.#highWatermark = parts.highWatermark;
    this.producers.onHighWatermark(parts.highWatermark);
  }

  get config(): LogConfig {
    return this.local.config;
  }

  set config(config: LogConfig) {
    this.local.config = config;
  }

  get logStartOffset(): bigint {
    return this.#logStartOffset;
  }

  get logEndOffset(): bigint {
    return this.local.logEndOffset;
  }

  get highWatermark(): bigint {
    return this.#highWatermark;
  }

  get lastStableOffset(): bigint {
    const unstable = this.producers.firstUnstableOffset();
    if (unstable === null || unstable >= this.#highWatermark) return this.#highWatermark;
    // biome-ignore lint/complexity/useMathMinMax: bigint
    return unstable < this.#logStartOffset ? this.#logStartOffset : unstable;
  }

  get latestEpoch(): number {
    return this.epochs.latestEpoch;
  }

  get size(): number {
    return this.local.size;
  }

  get segmentCount(): number {
    return this.local.segments.length;
  }

  get recoveryPoint(): bigint {
    return this.local.recoveryPoint;
  }

  get isClosed(): boolean {
    return this.#closed;
  }

  #ensureOpen(): void {
    if (this.#closed) throw new KafkaError(ErrorCode.KAFKA_STORAGE_ERROR, `Log ${this.dir} is closed`);
    this.local.ensureWritable();
  }

  // ---- appends -------------------------------------------------------------------------------

  // Not `async`: the promise returned is the one the write settles, with this append's result
  // (no second promise and microtask hop per append); errors still come as a rejection.
  appendAsLeader(batch: Buffer, leaderEpoch: number, options?: AppendOptions): Promise<AppendResult> {
    if (this.#exclusive !== null) {
      return this.#exclusive.then(() => this.appendAsLeader(batch, leaderEpoch, options));
    }
    try {
      return this.#appendAsLeader(batch, leaderEpoch, options);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  #appendAsLeader(
    batch: Buffer,
    leaderEpoch: number,
    options: AppendOptions | undefined,
  ): Promise<AppendResult> {
    this.#ensureOpen();
    const now = this.env.now();
    const origin = options?.origin ?? 'client';
    const config = this.local.config;
    const v = validateLeaderBatch(batch, config, origin, now);
    const h = v.header;
    // Producer state: a batch without a producer id (not idempotent) only moves the map's end.
    let pb: ProducerBatch | null = null;
    if (h.producerId >= 0n) {
      pb = producerBatchOfHeader(h, v.transactional, v.marker);
      const duplicate = this.producers.checkLeaderAppend(
        pb,
        h.lastOffsetDelta,
        origin === 'coordinator',
        options?.verificationGuard,
      );
      if (duplicate !== null) return this.#duplicate(duplicate);
    }
    const baseOffset = this.local.nextOffset;
    const lastOffset = baseOffset + BigInt(h.lastOffsetDelta);
    setBaseOffset(batch, 0, baseOffset);
    setPartitionLeaderEpoch(batch, 0, leaderEpoch);
    let logAppendTime = -1n;
    let maxTimestamp = h.maxTimestamp;
    if (config.messageTimestampType === 'LogAppendTime') {
      logAppendTime = BigInt(now);
      maxTimestamp = logAppendTime;
      setMaxTimestampAndLogAppendTime(batch, 0, logAppendTime);
    }
    // The epoch checkpoint is written before the recovery point passes this offset (flush or
    // close); until then recovery rebuilds the entry from the batches it rescans.
    if (leaderEpoch !== this.epochs.latestEpoch) this.epochs.assign(leaderEpoch, baseOffset);
    // `append` may roll first, capturing the producer state before this batch; apply after it.
    this.local.append(batch, baseOffset, lastOffset, maxTimestamp, h.recordCount, now);
    if (pb === null) this.producers.advanceMapEnd(this.local.nextOffset);
    else {
      pb.baseOffset = baseOffset;
      pb.lastOffset = lastOffset;
      pb.maxTimestamp = maxTimestamp;
      this.#indexIfAborted(this.producers.abortedEntry(this.producers.apply(pb)));
    }
    // Kafka answers with the log start offset as of the append.
    const result: AppendResult = {
      baseOffset,
      lastOffset,
      logAppendTime,
      logStartOffset: this.#logStartOffset,
    };
    return this.local.whenLastAppendWritten(result);
  }

  /** Acknowledges a retry only once the original is written. */
  async #duplicate(original: BatchMetadata): Promise<AppendResult> {
    await this.#whenWritten(original.lastOffset);
    return {
      baseOffset: original.firstOffset,
      lastOffset: original.lastOffset,
      logAppendTime: -1n,
      logStartOffset: this.#logStartOffset,
      duplicate: true,
    };
  }

  /** An abort marker's `.txnindex` entry goes to its segment once the marker is written. */
  #indexIfAborted(aborted: AbortedTxnEntry | null): void {
    if (aborted !== null) this.local.afterLastAppend((seg) => seg.txnIndex.append(aborted));
  }

  /**
   * Makes the partition's small metadata files durable; runs before the recovery point moves
   * (recovery will not rescan the batches below it, so what they imply must be on disk). With
   * `epochs: false` (the recovery point stays in its segment, which recovery rescans and so
   * rebuilds the epochs from) only the directory entries are synced: the first append of a new
   * epoch under flush.messages=1 does not wait for a checkpoint file write and its fsyncs.
   */
  async persistMetadata(epochs = true): Promise<void> {
    // A small log is rescanned in full at the next start, which rebuilds its epochs.
    if (this.#closing) return;
    if (epochs && (await this.epochs.flush(false))) this.#dirDirty = true;
    if (this.#dirDirty) {
      this.#dirDirty = false;
      await fsyncDir(this.dir);
    }
  }

  /** Resolves once every batch up to `offset` is written. */
  async #whenWritten(offset: bigint): Promise<void> {
    if (this.local.logEndOffset > offset) return;
    await this.local.whenIdle();
  }

  async appendAsFollower(batches: Buffer): Promise<FollowerAppendResult | null> {
    if (this.#exclusive !== null) return this.#exclusive.then(() => this.appendAsFollower(batches));
    this.#ensureOpen();
    let first: bigint | null = null;
    let last = -1n;
    let pos = 0;
    while (pos < batches.length) {
      const size = followerBatchAt(batches, pos, this.local.nextOffset, this.config.segmentBytes);
      if (size === 0) break;
      const base = baseOffsetOf(batches, pos);
      const lastOffset = lastOffsetOf(batches, pos);
      const buf = batches.subarray(pos, pos + size);
      const epoch = leaderEpochOf(buf, 0);
      if (epoch > this.epochs.latestEpoch) this.epochs.assign(epoch, base);
      this.local.append(buf, base, lastOffset, maxTimestampOf(buf, 0), recordCountOf(buf, 0), this.env.now());
      this.#indexIfAborted(this.producers.abortedEntry(this.producers.apply(producerBatchOf(buf, 0, size))));
      first ??= base;
      last = lastOffset;
      pos += size;
    }
    if (first === null) return null;
    // Groups are written in order (and a failure fails every later one): the last batch's
    // write completes only after all the others.
    return this.local.whenLastAppendWritten({ firstOffset: first, lastOffset: last });
  }

  // ---- reads ---------------------------------------------------------------------------------

  async read(fetchOffset: bigint, options: ReadOptions): Promise<ReadResult> {
    const dir = this.dir;
    try {
      return await this.#read(fetchOffset, options);
    } catch (err) {
      if (!isStorageFailure(err) || this.#closed) throw err;
      // The log moved to another dir during the read (its old files are gone): read again there.
      if (this.dir !== dir) return this.read(fetchOffset, options);
      this.env.onStorageFailure?.(this, err);
      throw new KafkaError(ErrorCode.KAFKA_STORAGE_ERROR, `Read of ${this.dir} failed: ${err.message}`, {
        cause: err,
      });
    }
  }

  async #read(fetchOffset: bigint, options: ReadOptions): Promise<ReadResult> {
    if (this.#closed) throw new KafkaError(ErrorCode.KAFKA_STORAGE_ERROR, `Log ${this.dir} is closed`);
    const leo = this.local.logEndOffset;
    if (fetchOffset < this.#logStartOffset || fetchOffset > leo) {
      throw new KafkaError(
        ErrorCode.OFFSET_OUT_OF_RANGE,
        `Offset ${fetchOffset} is out of range [${this.#logStartOffset}, ${leo}] of ${this.topic}-${this.partition}`,
      );
    }
    const ub = options.upperBound;
    let bound =
      ub === 'hw' ? this.#highWatermark : ub === 'lso' ? this.lastStableOffset : ub === 'leo' ? leo : ub;
    if (bound > leo) bound = leo;
    const records =
      fetchOffset >= bound
        ? EMPTY
        : await this.local.read(
            fetchOffset,
            Math.max(0, options.maxBytes),
            bound,
            options.minOneBatch,
            options.allocate,
          );
    const result: ReadResult = {
      records,
      highWatermark: this.#highWatermark,
      lastStableOffset: this.lastStableOffset,
      logStartOffset: this.#logStartOffset,
    };
    if (ub === 'lso')
      result.abortedTransactions = await abortedTransactions(this.local, fetchOffset, records);
    return result;
  }

  // ---- offsets -------------------------------------------------------------------------------

  setHighWatermark(offset: bigint): void {
    let hw = offset;
    if (hw > this.local.logEndOffset) hw = this.local.logEndOffset;
    if (hw < this.#logStartOffset) hw = this.#logStartOffset;
    if (hw === this.#highWatermark) return;
    this.#highWatermark = hw;
    this.producers.onHighWatermark(hw);
    this.notify();
  }

  onAppend(listener: AppendListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  notify(): void {
    if (this.#listeners.size === 0) return; // the common case: no iterator to allocate per write
    for (const l of this.#listeners) {
      try {
        l(this);
      } catch (err) {
        this.env.onError(
          err instanceof Error ? err : new Error(String(err)),
          `append listener of ${this.topic}-${this.partition}`,
        );
      }
    }
  }

  offsetForTimestamp(timestamp: bigint): Promise<TimestampOffset | null> {
    return listOffset(this.local, this.epochs, this.#logStartOffset, timestamp);
  }

  endOffsetForEpoch(epoch: number): EpochEndOffset {
    return this.epochs.endOffsetFor(epoch, this.local.logEndOffset);
  }

  producerStates(): ProducerStateView[] {
    return this.producers.views();
  }

  startTransactionVerification(producerId: bigint, epoch: number): VerificationGuard {
    return this.producers.startVerification(producerId, epoch, BigInt(this.env.now()));
  }

  noteRefusedBatch(batch: Buffer, errorCode: number): void {
    this.producers.noteRefused(batch, errorCode, BigInt(this.env.now()));
  }

  assignEpochStartOffset(epoch: number): void {
    if (this.#closed) return;
    this.epochs.assign(epoch, this.local.nextOffset);
  }

  // ---- truncation and deletion ---------------------------------------------------------------

  /** Runs `fn` with appends held back and the write queue drained. */
  /**
   * Runs `fn` with appends (leader and follower) held back and none in flight, and no
   * retention, compaction or truncation running: the moment a log dir move copies the tail.
   */
  withAppendsPaused<T>(fn: () => Promise<T>): Promise<T> {
    return this.#exclusively(fn);
  }

  /**
   * Takes over the files of `moved` (this log's copy, loaded from another log dir while appends
   * were paused): this object keeps serving, now from there. The old segments are closed; the
   * caller deletes the old directory.
   */
  adoptStorage(moved: UnifiedLog): void {
    const old = this.local;
    moved.local.config = old.config;
    this.dir = moved.dir;
    this.local = moved.local;
    this.snapshots = moved.snapshots;
    this.epochs = moved.epochs;
    old.tail.clear();
    for (const seg of old.segments) seg.close();
  }

  async #exclusively<T>(fn: () => Promise<T>): Promise<T> {
    while (this.#exclusive !== null) await this.#exclusive;
    let release!: () => void;
    this.#exclusive = new Promise<void>((r) => (release = r));
    try {
      await this.local.whenIdle();
      return await this.withMaintenance(fn);
    } finally {
      this.#exclusive = null;
      release();
    }
  }

  /** Serialises structural changes (retention, compaction, truncation). */
  withMaintenance<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.#maintenance.then(fn, fn);
    this.#maintenance = run.catch(() => undefined);
    return run;
  }

  async truncateTo(offset: bigint): Promise<void> {
    await this.#exclusively(async () => {
      this.local.ensureWritable();
      if (offset >= this.local.logEndOffset) {
        // As Kafka: an epoch this replica started as leader without writing in it begins at the
        // log end and would contradict its new leader's epochs; it goes.
        this.epochs.truncateFromEnd(this.local.logEndOffset);
        await this.epochs.flush();
        return;
      }
      if (offset <= this.#logStartOffset) {
        await this.#truncateFully(offset);
        return;
      }
      await this.local.truncateTo(offset);
      this.epochs.truncateFromEnd(offset);
      await this.epochs.flush();
      if (this.#highWatermark > offset) this.#highWatermark = offset;
      await this.snapshots.deleteAbove(offset);
      await replayProducerState(this, offset);
      // Replay lists every transaction it completed as not yet replicated; those whose marker
      // is below the high watermark are stable (else the LSO would drop to the oldest of them
      // until the high watermark next moved).
      this.producers.onHighWatermark(this.#highWatermark);
    });
  }

  async truncateFullyAndStartAt(offset: bigint): Promise<void> {
    await this.#exclusively(() => this.#truncateFully(offset));
  }

  async #truncateFully(offset: bigint): Promise<void> {
    this.local.ensureWritable();
    await this.local.truncateFullyAndStartAt(offset);
    this.#logStartOffset = offset;
    this.#highWatermark = offset;
    this.epochs.clear();
    await this.epochs.flush();
    this.producers.clear(offset);
    await this.snapshots.deleteAll();
    this.env.onLogStartOffsetChanged(this);
  }

  async deleteRecordsBefore(offset: bigint): Promise<bigint> {
    this.#ensureOpen();
    if (offset > this.#highWatermark) {
      throw new KafkaError(
        ErrorCode.OFFSET_OUT_OF_RANGE,
        `Cannot delete records before ${offset}: above the high watermark ${this.#highWatermark}`,
      );
    }
    if (offset > this.#logStartOffset) {
      this.advanceLogStartOffset(offset);
      await this.withMaintenance(() => this.deleteSegmentsBelowLogStart());
    }
    return this.#logStartOffset;
  }

  /** Moves the log start offset forward (DeleteRecords, retention). */
  advanceLogStartOffset(offset: bigint): void {
    if (offset <= this.#logStartOffset) return;
    this.#logStartOffset = offset;
    if (this.#highWatermark < offset) this.#highWatermark = offset;
    this.epochs.truncateFromStart(offset);
    this.epochs
      .flush()
      .catch((err: unknown) => this.env.onError(err as Error, `leader-epoch-checkpoint of ${this.dir}`));
    this.env.onLogStartOffsetChanged(this);
  }

  /** Deletes inactive segments that lie entirely below the log start offset. */
  deleteSegmentsBelowLogStart(): Promise<number> {
    return deleteSegmentsBelowLogStart(this);
  }

  /** Detaches inactive segments (oldest first) and schedules their files' deletion. */
  deleteSegments(doomed: readonly LogSegment[]): Promise<void> {
    return deleteSegments(this, doomed);
  }

  /** Retention by time and size (see log-retention.ts), serialised with other maintenance. */
  applyRetention(): Promise<number> {
    return this.withMaintenance(() => applyRetention(this));
  }

  // ---- durability ----------------------------------------------------------------------------

  async flush(): Promise<void> {
    await this.local.whenIdle();
    await this.local.flush();
    await this.epochs.flush();
  }

  /** Clean shutdown: drain, fsync, write indexes and a producer snapshot at the log end. */
  async close(): Promise<void> {
    if (this.#closed) return;
    try {
      await this.local.whenIdle();
      await this.withMaintenance(async () => {
        if (this.local.failed === null) await this.writeCleanState(isSmallLog(this.local.segments));
      });
    } finally {
      this.#closed = true;
      this.local.tail.clear();
      for (const s of this.local.segments) s.close();
    }
  }

  /**
   * Everything a clean shutdown leaves on disk, without closing: a producer snapshot at the log
   * end (unless `small`: such a log is rescanned at load), indexes, fsynced data, leader epochs.
   * Call with no write in flight (close, or a paused log being copied to another dir).
   */
  async writeCleanState(small = false): Promise<void> {
    // Snapshot first, unsynced: the flush below ends with one directory fsync for every
    // rename. A snapshot lost to a power cut fails its CRC and recovery replays instead.
    const leo = this.local.logEndOffset;
    if (!small && !this.snapshots.has(leo)) {
      await this.snapshots.write(leo, encodeSnapshot(this.producers.toSnapshot()), false);
      this.#dirDirty = true;
    }
    await this.snapshots.deleteBelow(this.#logStartOffset);
    await this.local.active.persistIndexes(true);
    this.#closing = small;
    await this.local.flush();
    await this.persistMetadata();
  }

  /** Producer snapshot for a segment roll at `offset` (captured now, written in order). */
  snapshotForRoll(offset: bigint): () => Promise<void> {
    const data = encodeSnapshot(this.producers.toSnapshot());
    this.#dirDirty = true; // the new segment file's entry must be synced with the recovery point
    return () =>
      this.snapshots.write(offset, data, false).catch((err: unknown) => {
        this.env.onError(
          err instanceof Error ? err : new Error(String(err)),
          `producer snapshot of ${this.dir}`,
        );
      });
  }

  /** Marks this log closed without flushing (its directory is being deleted). */
  markClosed(): void {
    this.#closed = true;
    this.local.tail.clear();
    for (const s of this.local.segments) s.close();
  }
}
