// The segment list of one partition and the physical operations on it: placing and writing
// batches (the write pipeline), rolling, reading raw batch bytes, truncation and segment
// deletion (Kafka's LocalLog). Offsets and positions are assigned synchronously by `place`;
// a single drain loop writes queued batches in order with one `writev` per group, so several
// appends can be in flight while their order and file positions are fixed at call time.

import { ErrorCode, KafkaError } from '../protocol/errors.js';
import { LAST_OFFSET_DELTA_OFFSET } from '../protocol/record-batch/header.js';
import type { FileHandleCache } from './file-handle-cache.js';
import type { LogConfig } from './log-config.js';
import { LogSegment, type PlacedBatch, type SegmentLimits } from './log-segment.js';
import { readSegment } from './segment-read.js';
import { scanSegment } from './segment-scanner.js';
import type { TailCache } from './tail-cache.js';

interface BatchOp {
  kind: 'batch';
  segment: LogSegment;
  placed: PlacedBatch;
  records: number;
  /**
   * Runs after the write (e.g. `.txnindex` entry for an abort marker); returns null when it had
   * nothing to do, so ordinary appends cost no extra await.
   */
  after: ((segment: LogSegment) => Promise<void> | null) | null;
  resolve: () => void;
  reject: (err: unknown) => void;
}

interface RollOp {
  kind: 'roll';
  previous: LogSegment;
  next: LogSegment;
}

/** Work that must happen at this point of the write order (e.g. a producer snapshot). */
interface TaskOp {
  kind: 'task';
  run: () => Promise<void>;
}

type Op = BatchOp | RollOp | TaskOp;

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
const INT32_MAX = 0x7fffffffn;

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
  #queue: Op[] = [];
  #draining = false;
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
    if (lastOffset - seg.baseOffset > INT32_MAX) return true;
    const maxEntries = Math.min(seg.offsetIndex.maxEntries, seg.timeIndex.maxEntries);
    if (seg.assignedIndexEntries >= maxEntries - 1) return true;
    // segment.ms counts from the first batch's timestamp (Kafka's rollingBasedTimestamp), or
    // from the segment's creation when that batch has none (-1: magic-0 messages up-converted).
    const first = seg.firstBatchTimestamp;
    const since = first !== null && first >= 0 ? first : seg.createdMs;
    return now - since > cfg.segmentMs - cfg.segmentJitterMs;
  }

  /**
   * Assigns the file position of a batch whose offsets are already final, rolling first when
   * Kafka's rules say so, and queues its write. Resolves once written (and fsynced when
   * `flush.messages` asks for it).
   */
  append(
    buf: Buffer,
    baseOffset: bigint,
    lastOffset: bigint,
    maxTimestamp: bigint,
    records: number,
    after: ((segment: LogSegment) => Promise<void> | null) | null,
  ): Promise<void> {
    this.ensureWritable();
    const now = this.#hooks.now();
    if (this.#shouldRoll(buf.length, lastOffset, now)) this.roll(baseOffset);
    const segment = this.active;
    const placed = segment.place(buf, baseOffset, lastOffset, maxTimestamp, this.config.indexIntervalBytes);
    this.nextOffset = lastOffset + 1n;
    return new Promise<void>((resolve, reject) => {
      this.#queue.push({ kind: 'batch', segment, placed, records, after, resolve, reject });
      this.#kick();
    });
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
    this.#queue.push({ kind: 'roll', previous, next });
    const afterRoll = this.#hooks.onRoll(baseOffset);
    if (afterRoll !== null) this.#queue.push({ kind: 'task', run: afterRoll });
    this.#kick();
  }

  /** Starts the drain loop if idle; it runs synchronously up to its first write. */
  #kick(): void {
    if (!this.#draining) {
      this.#draining = true;
      void this.#drain();
    }
  }

  async #drain(): Promise<void> {
    try {
      while (this.#queue.length > 0) {
        const op = this.#queue[0]!;
        if (op.kind === 'roll') {
          this.#queue.shift();
          await this.#executeRoll(op);
          continue;
        }
        if (op.kind === 'task') {
          this.#queue.shift();
          await op.run();
          continue;
        }
        const group: BatchOp[] = [];
        let bytes = 0;
        while (group.length < MAX_GROUP_OPS && bytes < MAX_GROUP_BYTES && this.#queue.length > 0) {
          const next = this.#queue[0]!;
          if (next.kind !== 'batch' || next.segment !== op.segment) break;
          this.#queue.shift();
          group.push(next);
          bytes += next.placed.buf.length;
        }
        await this.#writeGroup(group);
      }
    } catch (err) {
      const error = err instanceof Error ? err : new Error(String(err));
      this.#failed = error;
      const failure = new KafkaError(
        ErrorCode.KAFKA_STORAGE_ERROR,
        `Write to ${this.dir} failed: ${error.message}`,
        { cause: error },
      );
      for (const op of this.#queue.splice(0)) if (op.kind === 'batch') op.reject(failure);
      this.#hooks.onFailure(error);
    } finally {
      this.#draining = false;
      for (const w of this.#idleWaiters.splice(0)) w();
    }
  }

  async #writeGroup(group: BatchOp[]): Promise<void> {
    const segment = group[0]!.segment;
    try {
      await segment.write(group.map((g) => g.placed));
    } catch (err) {
      const failure = new KafkaError(ErrorCode.KAFKA_STORAGE_ERROR, `Write to ${segment.file.path} failed`, {
        cause: err,
      });
      for (const g of group) g.reject(failure);
      throw err;
    }
    let records = 0;
    for (const g of group) {
      segment.applyWritten(g.placed);
      this.tail.add(g.placed.buf, g.placed.baseOffset, g.placed.lastOffset);
      records += g.records;
    }
    this.logEndOffset = group[group.length - 1]!.placed.lastOffset + 1n;
    if (this.#unflushedRecords === 0) this.firstUnflushedMs = this.#hooks.now();
    this.#unflushedRecords += records;
    try {
      for (const g of group) {
        const done = g.after === null ? null : g.after(segment);
        if (done !== null) await done;
      }
      if (this.#unflushedRecords >= this.config.flushMessages) await this.flush();
    } catch (err) {
      // The log goes offline (the caller rethrows); these appends must settle too, or their
      // requests would wait for ever.
      const failure = new KafkaError(ErrorCode.KAFKA_STORAGE_ERROR, `Write to ${segment.file.path} failed`, {
        cause: err,
      });
      for (const g of group) g.reject(failure);
      throw err;
    }
    this.#hooks.onWritten();
    for (const g of group) g.resolve();
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
    if (!this.#draining && this.#queue.length === 0) return this.#flushing;
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
