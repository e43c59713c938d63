// The segment list of one partition and the physical operations on it: placing and writing
// batches (the write pipeline), rolling, reading raw batch bytes, truncation and segment
// deletion (Kafka's LocalLog). Offsets and positions are assigned synchronously by `place`;
// queued batches are written in order, one group (one `pwritev`) at a time, so several appends
// can be in flight while their order and file positions are fixed at call time.

import { ErrorCode, KafkaError } from '../protocol/errors.js';
import { LAST_OFFSET_DELTA_OFFSET } from '../protocol/record-batch/header.js';
import type { FileHandleCache } from './file-handle-cache.js';
import type { LogConfig } from './log-config.js';
import { LogSegment, type SegmentLimits } from './log-segment.js';
import { readSegment } from './segment-read.js';
import { scanSegment } from './segment-scanner.js';
import type { TailCache } from './tail-cache.js';
import {
  OpQueue,
  type RollOp,
  rejectGroup,
  resolveGroup,
  scheduleWrites,
  settleLast,
  type WriteGroup,
} from './write-queue.js';

export interface LocalLogHooks {
  /** A segment rolled at `offset`; producer state as of that offset is captured synchronously. */
  onRoll(offset: bigint): (() => Promise<void>) | null;
  /** Batches were written and are visible (LEO moved). */
  onWritten(): void;
  /**
   * Runs before the recovery point moves (metadata the skipped batches imply goes to disk).
   * `newSegment` is false when it stays in the same segment: recovery rescans that whole
   * segment anyway, so metadata rebuilt from its batches (leader epochs) may wait.
   */
  beforeRecoveryPoint(newSegment: boolean): Promise<void>;
  /** The log's files failed: the log goes offline. */
  onFailure(err: Error): void;
  now(): number;
}

const MAX_GROUP_BYTES = 8 * 1024 * 1024;
const MAX_GROUP_OPS = 256;

export class LocalLog {
  readonly dir: string;
  segments: LogSegment[];
  /** Next offset to assign (includes appends in flight). */
  nextOffset: bigint;
  /** Offset after the last batch whose write completed. */
  logEndOffset: bigint;
  /** Every batch below this offset has been fsynced. */
  recoveryPoint: bigint;
  config: LogConfig;
  readonly tail: TailCache;
  readonly cache: FileHandleCache;
  readonly #hooks: LocalLogHooks;
  readonly #queue = new OpQueue();
  /** The group whose write is in flight. */
  #writing: WriteGroup | null = null;
  /** The last write group of the queue while it still takes appends (not yet submitted). */
  #open: WriteGroup | null = null;
  /** The group the last append joined (`afterLastAppend` attaches to it). */
  #lastGroup: WriteGroup | null = null;
  /** Idle: nothing queued or running; scheduled: waits for `startWrites`; running: an op is in progress. */
  #state: 'idle' | 'scheduled' | 'running' = 'idle';
  #idleWaiters: (() => void)[] = [];
  #unflushedRecords = 0;
  /** Oldest unflushed write (ms), for flush.ms. */
  firstUnflushedMs = 0;
  #failed: Error | null = null;
  #flushing: Promise<void> = Promise.resolve();

  constructor(
    dir: string,
    segments: LogSegment[],
    logEndOffset: bigint,
    recoveryPoint: bigint,
    config: LogConfig,
    cache: FileHandleCache,
    tail: TailCache,
    hooks: LocalLogHooks,
  ) {
    this.dir = dir;
    this.segments = segments;
    this.nextOffset = logEndOffset;
    this.logEndOffset = logEndOffset;
    this.recoveryPoint = recoveryPoint;
    this.config = config;
    this.cache = cache;
    this.tail = tail;
    this.#hooks = hooks;
  }

  get limits(): SegmentLimits {
    return {
      indexIntervalBytes: this.config.indexIntervalBytes,
      segmentIndexBytes: this.config.segmentIndexBytes,
    };
  }

  get active(): LogSegment {
    return this.segments[this.segments.length - 1]!;
  }

  get failed(): Error | null {
    return this.#failed;
  }

  get size(): number {
    let n = 0;
    for (const s of this.segments) n += s.size;
    return n;
  }

  get unflushedRecords(): number {
    return this.#unflushedRecords;
  }

  /** The segment whose base offset is the greatest ≤ `offset` (index into `segments`), or -1. */
  floorIndex(offset: bigint): number {
    let lo = 0;
    let hi = this.segments.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (this.segments[mid]!.baseOffset <= offset) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found;
  }

  ensureWritable(): void {
    if (this.#failed !== null) {
      throw new KafkaError(
        ErrorCode.KAFKA_STORAGE_ERROR,
        `Log ${this.dir} is offline: ${this.#failed.message}`,
      );
    }
  }

  /** Kafka's roll rules: size, relative offsets beyond int32, full indexes, segment.ms. */
  #shouldRoll(size: number, lastOffset: bigint, now: number): boolean {
    const seg = this.active;
    if (seg.assignedSize === 0) return false;
    const cfg = this.config;
    if (seg.assignedSize + size > cfg.segmentBytes) return true;
    if (lastOffset > seg.maxOffset) return true;
    if (seg.assignedIndexEntries >= seg.maxIndexEntries - 1) return true;
    // segment.ms counts from the first batch's timestamp (Kafka's rollingBasedTimestamp), or
    // from the segment's creation when that batch has none (-1: magic-0 messages up-converted).
    const first = seg.firstBatchTimestamp;
    const since = first !== null && first >= 0 ? first : seg.createdMs;
    return now - since > cfg.segmentMs - cfg.segmentJitterMs;
  }

  /**
   * Assigns the file position of a batch whose offsets are already final, rolling first when
   * Kafka's rules say so, and queues its write (`whenLastAppendWritten` tells when it is done).
   */
  append(
    buf: Buffer,
    baseOffset: bigint,
    lastOffset: bigint,
    maxTimestamp: bigint,
    records: number,
    now: number,
  ): void {
    this.ensureWritable();
    if (this.#shouldRoll(buf.length, lastOffset, now)) this.roll(baseOffset);
    const segment = this.active;
    const placed = segment.place(buf, baseOffset, lastOffset, maxTimestamp, this.config.indexIntervalBytes);
    this.nextOffset = placed.nextOffset;
    let group = this.#open;
    if (
      group === null ||
      group.segment !== segment ||
      group.batches.length >= MAX_GROUP_OPS ||
      group.bytes >= MAX_GROUP_BYTES
    ) {
      group = { kind: 'batch', segment, batches: [placed], bytes: buf.length, records, after: null };
      this.#queue.push(group);
      this.#open = group;
    } else {
      group.batches.push(placed);
      group.bytes += buf.length;
      group.records += records;
    }
    this.#lastGroup = group;
    this.#kick();
  }

  /**
   * A promise for the batch of the last `append` (called in this same synchronous run): resolved
   * with `value` once it is written (and fsynced when `flush.messages` asks for it), rejected
   * with KAFKA_STORAGE_ERROR if the log fails first. Groups complete in order, so awaiting the
   * last batch of several awaits them all.
   */
  whenLastAppendWritten<T>(value: T): Promise<T> {
    return settleLast(this.#lastGroup!, value);
  }

  /**
   * Runs `task` once the batch of the last `append` (called in this same synchronous run) is
   * written, before its append resolves: the `.txnindex` entry of an abort marker.
   */
  afterLastAppend(task: (segment: LogSegment) => Promise<void>): void {
    const group = this.#lastGroup!;
    if (group.after === null) group.after = [task];
    else group.after.push(task);
  }

  /** Starts a new active segment at `baseOffset` (≥ next offset), queued behind pending writes. */
  roll(baseOffset: bigint = this.nextOffset): void {
    const previous = this.active;
    if (previous.assignedSize === 0 && previous.baseOffset === baseOffset) return;
    const next = new LogSegment(this.dir, baseOffset, 0, this.cache, this.limits, this.#hooks.now());
    next.markIndexesLoaded();
    // Recovery starts at the last segment based at or below the recovery point; until the
    // roll's flush has persisted the metadata the older segments imply (leader epochs), that
    // must stay the previous segment, so a recovery point equal to the new base steps back.
    if (this.recoveryPoint >= baseOffset && baseOffset > previous.baseOffset)
      this.recoveryPoint = baseOffset - 1n;
    this.segments.push(next);
    this.#open = null;
    this.#queue.push({ kind: 'roll', previous, next });
    const afterRoll = this.#hooks.onRoll(baseOffset);
    if (afterRoll !== null) this.#queue.push({ kind: 'task', run: afterRoll });
    this.#kick();
  }

  #kick(): void {
    if (this.#state === 'idle') {
      this.#state = 'scheduled';
      scheduleWrites(this);
    }
  }

  /**
   * Runs the queue up to its first write (called once per event-loop turn by the scheduler;
   * `stage`: small writes may go through the write worker); the write's completion continues
   * from there. One op at a time, in queue order.
   */
  startWrites(stage: boolean): void {
    const op = this.#queue.shift();
    if (op === undefined) {
      this.#setIdle();
      return;
    }
    this.#state = 'running';
    if (op.kind === 'batch') {
      if (this.#open === op) this.#open = null;
      if (this.#lastGroup === op) this.#lastGroup = null;
      this.#writing = op;
      op.segment.writeBatches(op.batches, stage, this.#onWriteDone);
      return;
    }
    const run = op.kind === 'roll' ? this.#executeRoll(op) : op.run();
    run.then(
      () => this.#continue(),
      (err: unknown) => this.#fail(err),
    );
  }

  /** The op in progress finished: later ops go at the next submission point. */
  #continue(): void {
    if (this.#queue.size === 0) this.#setIdle();
    else {
      this.#state = 'scheduled';
      scheduleWrites(this);
    }
  }

  #setIdle(): void {
    this.#state = 'idle';
    if (this.#idleWaiters.length > 0) for (const w of this.#idleWaiters.splice(0)) w();
  }

  /** The write of the group in flight completed (one bound callback per log, not per write). */
  readonly #onWriteDone = (err: Error | null): void => {
    const group = this.#writing!;
    this.#writing = null;
    group.segment.writeFinished(err);
    this.#onGroupWritten(group, err);
  };

  #onGroupWritten(group: WriteGroup, err: Error | null): void {
    const segment = group.segment;
    if (err !== null) {
      rejectGroup(group, this.#writeFailure(segment, err));
      this.#fail(err);
      return;
    }
    try {
      const { batches } = group;
      segment.applyWritten(batches);
      for (let i = 0; i < batches.length; i++) {
        const b = batches[i]!;
        this.tail.add(b.buf, b.baseOffset, b.lastOffset);
      }
      this.logEndOffset = batches[batches.length - 1]!.nextOffset;
      if (this.#unflushedRecords === 0) this.firstUnflushedMs = this.#hooks.now();
      this.#unflushedRecords += group.records;
    } catch (e) {
      // Runs in an I/O callback: fail the log (as a failed write would), never the process.
      rejectGroup(group, this.#writeFailure(segment, e));
      this.#fail(e);
      return;
    }
    if (group.after !== null || this.#unflushedRecords >= this.config.flushMessages) {
      this.#finishAfterWrite(group).then(
        () => this.#continue(),
        (e: unknown) => this.#fail(e),
      );
      return;
    }
    this.#hooks.onWritten();
    resolveGroup(group);
    this.#continue();
  }

  /** The rare end of a group write that must wait: `.txnindex` entries, flush.messages. */
  async #finishAfterWrite(group: WriteGroup): Promise<void> {
    try {
      if (group.after !== null) for (const task of group.after) await task(group.segment);
      if (this.#unflushedRecords >= this.config.flushMessages) await this.flush();
    } catch (err) {
      // The log goes offline; these appends must settle too, or their requests would wait for ever.
      rejectGroup(group, this.#writeFailure(group.segment, err));
      throw err;
    }
    this.#hooks.onWritten();
    resolveGroup(group);
  }

  #writeFailure(segment: LogSegment, cause: unknown): KafkaError {
    return new KafkaError(ErrorCode.KAFKA_STORAGE_ERROR, `Write to ${segment.file.path} failed`, { cause });
  }

  /** A write, roll or task failed: the log goes offline and every queued append fails. */
  #fail(err: unknown): void {
    const error = err instanceof Error ? err : new Error(String(err));
    this.#failed = error;
    this.#open = null;
    const failure = new KafkaError(
      ErrorCode.KAFKA_STORAGE_ERROR,
      `Write to ${this.dir} failed: ${error.message}`,
      {
        cause: error,
      },
    );
    for (let op = this.#queue.shift(); op !== undefined; op = this.#queue.shift())
      if (op.kind === 'batch') rejectGroup(op, failure);
    this.#hooks.onFailure(error);
    this.#setIdle();
  }

  async #executeRoll(op: RollOp): Promise<void> {
    await op.next.createFiles();
    this.tail.dropBelow(op.next.baseOffset);
    // The old segment's indexes and data go to disk off the append path; the recovery point
    // moves once they are durable.
    const previous = op.previous;
    const upTo = op.next.baseOffset;
    this.#flushing = this.#flushing
      .then(async () => {
        await previous.onBecomeInactive(true);
        await this.#flushSegmentsBelow(upTo);
      })
      .catch((err: unknown) => this.#hooks.onFailure(err instanceof Error ? err : new Error(String(err))));
  }

  async #flushSegmentsBelow(upTo: bigint): Promise<void> {
    // Recovery rescans from the segment holding the recovery point: only a move into a later
    // segment leaves batches unscanned (flush.messages=1 keeps it in the active one).
    let newSegment = false;
    for (const s of this.segments) {
      if (s.baseOffset > this.recoveryPoint && s.baseOffset <= upTo) newSegment = true;
      if (s.baseOffset < upTo) await s.flush();
    }
    await this.#hooks.beforeRecoveryPoint(newSegment);
    if (upTo > this.recoveryPoint) this.recoveryPoint = upTo;
  }

  /** fsync of every segment with unflushed data; the recovery point becomes the LEO. */
  async flush(): Promise<void> {
    const upTo = this.logEndOffset;
    this.#unflushedRecords = 0;
    const run = this.#flushing.then(() =>
      this.#flushSegmentsBelow(upTo + 1n).then(() => {
        if (this.recoveryPoint > upTo) this.recoveryPoint = upTo;
      }),
    );
    this.#flushing = run.catch(() => undefined);
    await run;
  }

  /** Resolves when no write is queued or in flight. */
  whenIdle(): Promise<void> {
    if (this.#state === 'idle' && this.#queue.size === 0) return this.#flushing;
    return new Promise<void>((resolve) => this.#idleWaiters.push(resolve)).then(() => this.whenIdle());
  }

  /**
   * Finds the file position of the first batch whose last offset is ≥ `offset` in `segment`
   * (segment size when there is none), with its base offset.
   */
  async translateOffset(
    segment: LogSegment,
    offset: bigint,
  ): Promise<{ position: number; baseOffset: bigint | null }> {
    await segment.ensureIndexes();
    const start = segment.offsetIndex.lookup(offset).position;
    let found: { position: number; baseOffset: bigint | null } = { position: segment.size, baseOffset: null };
    await this.cache.with(segment.file, (fd) =>
      scanSegment(
        fd,
        start,
        segment.size,
        { verifyCrc: false, chunkSize: 64 * 1024 },
        (buf, pos, _size, filePos) => {
          const base = buf.readBigInt64BE(pos);
          const last = base + BigInt(buf.readInt32BE(pos + LAST_OFFSET_DELTA_OFFSET));
          if (last >= offset) {
            found = { position: filePos, baseOffset: base };
            return false;
          }
          return true;
        },
      ),
    );
    return found;
  }

  /**
   * Reads whole batches starting at the one that contains `fetchOffset`, from the tail cache or
   * from the first segment that has data at or after it (one segment per read, like Kafka).
   */
  async read(
    fetchOffset: bigint,
    maxBytes: number,
    upperBound: bigint,
    minOneBatch: boolean,
    allocate?: (size: number) => Buffer,
  ): Promise<Buffer> {
    const cached = this.tail.read(fetchOffset, maxBytes, upperBound, minOneBatch, allocate);
    if (cached !== null) return cached;
    const { indexIntervalBytes } = this.config;
    const req = { fetchOffset, maxBytes, upperBound, minOneBatch, indexIntervalBytes, allocate };
    for (let i = Math.max(0, this.floorIndex(fetchOffset)); i < this.segments.length; i++) {
      const seg = this.segments[i]!;
      if (seg.baseOffset >= upperBound) break;
      if (seg.size === 0) continue;
      const out = await readSegment(seg, req);
      if (out !== null) return out;
    }
    return Buffer.alloc(0);
  }

  /**
   * Removes every batch at or after `offset` (the caller drained the write queue): later
   * segments are deleted, the one containing `offset` is cut before the first batch whose
   * last offset reaches it. The log end offset becomes `offset`, as in Kafka.
   */
  async truncateTo(offset: bigint): Promise<void> {
    const keep = this.floorIndex(offset);
    if (keep < 0) {
      await this.truncateFullyAndStartAt(offset);
      return;
    }
    const doomed = this.segments.slice(keep + 1);
    this.segments = this.segments.slice(0, keep + 1);
    for (const s of doomed) await s.deleteFiles();
    const seg = this.segments[keep]!;
    const { position } = await this.translateOffset(seg, offset);
    await seg.truncateToPosition(position, offset);
    this.nextOffset = offset;
    this.logEndOffset = offset;
    if (this.recoveryPoint > offset) this.recoveryPoint = offset;
    this.tail.clear();
  }

  /** Deletes every segment and starts an empty one at `offset`. */
  async truncateFullyAndStartAt(offset: bigint): Promise<void> {
    const doomed = this.segments;
    this.segments = [];
    for (const s of doomed) await s.deleteFiles();
    this.segments = [await LogSegment.create(this.dir, offset, this.cache, this.limits, this.#hooks.now())];
    this.nextOffset = offset;
    this.logEndOffset = offset;
    this.recoveryPoint = offset;
    this.#unflushedRecords = 0;
    this.tail.clear();
  }

  /** Removes segments from the list (they must not include the active one) and deletes their files later. */
  detachSegments(remove: readonly LogSegment[]): void {
    const set = new Set(remove);
    this.segments = this.segments.filter((s) => !set.has(s));
  }
}
