// One segment: a `.log` file of record batches and its `.index`, `.timeindex` and `.txnindex`,
// named by the base offset. The segment knows two sizes: `assignedSize` (bytes handed out to
// appends, some possibly still being written) and `size` (bytes whose write completed; the only
// part readers see). Index entries are decided when a batch is assigned and applied when its
// write completes, so the indexes never point past `size`.
import { promises as fsp } from 'node:fs';
import { join } from 'node:path';
import { LAST_OFFSET_DELTA_OFFSET, MAX_TIMESTAMP_OFFSET } from '../protocol/record-batch/header.js';
import { type FileHandleCache, FileRef } from './file-handle-cache.js';
import {
  DELETED_SUFFIX,
  INDEX_SUFFIX,
  LOG_SUFFIX,
  segmentFileName,
  TIME_INDEX_SUFFIX,
  TXN_INDEX_SUFFIX,
} from './file-names.js';
import {
  fdatasyncFd,
  ftruncateFd,
  openFd,
  readAt,
  readFileOrNull,
  syncFile,
  writevFully,
} from './fs-util.js';
import { OffsetIndex } from './offset-index.js';
import { scanSegment } from './segment-scanner.js';
import { TimeIndex } from './time-index.js';
import { TransactionIndex } from './transaction-index.js';
import { STAGED_WRITE_MAX_BYTES, writeWorker } from './write-worker.js';

export interface SegmentLimits {
  indexIntervalBytes: number;
  segmentIndexBytes: number;
}

/**
 * A log of one segment up to this size is rescanned in full at every start (recovery, indexes,
 * epochs and producer state all come from the scan): cheaper than loading its indexes and
 * snapshot, which is what dominates opening 10,000 small partitions. Its clean shutdown
 * therefore writes no snapshot and no epoch checkpoint.
 */
export const SMALL_LOG_BYTES = 1024 * 1024;

export function isSmallLog(segments: readonly LogSegment[]): boolean {
  return segments.length === 1 && segments[0]!.size <= SMALL_LOG_BYTES;
}

/** What the writer decided for one batch at assignment time, and who awaits its write. */
export interface PlacedBatch {
  buf: Buffer;
  position: number;
  baseOffset: bigint;
  lastOffset: bigint;
  /** `lastOffset + 1n`, computed once (the log's next and end offsets share it). */
  nextOffset: bigint;
  maxTimestamp: bigint;
  indexEntry: boolean;
  /** The promise of the append awaiting this batch (`LocalLog.whenLastAppendWritten`), if any. */
  resolve: ((value: unknown) => void) | null;
  reject: ((err: unknown) => void) | null;
  value: unknown;
}

export class LogSegment {
  readonly dir: string;
  readonly baseOffset: bigint;
  readonly file: FileRef;
  readonly offsetIndex: OffsetIndex;
  readonly timeIndex: TimeIndex;
  readonly txnIndex: TransactionIndex;
  readonly #cache: FileHandleCache;

  /** The largest offset this segment can hold (offsets are stored relative to the base, as int32). */
  readonly maxOffset: bigint;
  /** Entries the smaller of the offset and time indexes can hold. */
  readonly maxIndexEntries: number;
  /** Bytes visible to readers (writes completed). */
  size: number;
  /** Offset after the last written batch; the base offset while empty. */
  nextOffset: bigint;
  /** Largest batch max-timestamp seen and the last offset of that batch (-1n when unknown). */
  maxTimestamp = -1n;
  offsetOfMaxTimestamp = -1n;
  /** Bytes handed out to appends, including those still being written. */
  assignedSize: number;
  bytesSinceIndex = 0;
  assignedIndexEntries = 0;
  /** Max timestamp (ms) of the first batch (segment.ms counts from it), null while empty. */
  firstBatchTimestamp: number | null = null;
  readonly createdMs: number;
  /** Written since the last fsync. */
  unflushed = false;
  /** Bytes [0, trustedUpTo) are known to hold valid batches (written or verified here). */
  trustedUpTo: number;
  #indexesLoaded: Promise<void> | null = null;
  /** Renamed to `.deleted` (or removed): nothing may write its files any more. */
  deleted = false;

  constructor(
    dir: string,
    baseOffset: bigint,
    size: number,
    cache: FileHandleCache,
    limits: SegmentLimits,
    nowMs: number,
  ) {
    this.dir = dir;
    this.baseOffset = baseOffset;
    this.file = new FileRef(join(dir, segmentFileName(baseOffset, LOG_SUFFIX)));
    this.offsetIndex = new OffsetIndex(
      join(dir, segmentFileName(baseOffset, INDEX_SUFFIX)),
      baseOffset,
      limits.segmentIndexBytes,
    );
    this.timeIndex = new TimeIndex(
      join(dir, segmentFileName(baseOffset, TIME_INDEX_SUFFIX)),
      baseOffset,
      limits.segmentIndexBytes,
    );
    this.txnIndex = new TransactionIndex(join(dir, segmentFileName(baseOffset, TXN_INDEX_SUFFIX)));
    this.maxOffset = baseOffset + 0x7fffffffn;
    this.maxIndexEntries = Math.min(this.offsetIndex.maxEntries, this.timeIndex.maxEntries);
    this.#cache = cache;
    this.size = size;
    this.assignedSize = size;
    this.nextOffset = baseOffset;
    this.createdMs = nowMs;
    this.trustedUpTo = 0;
  }

  /** Creates an empty segment (replacing any leftover files) and keeps its descriptor. */
  static async create(
    dir: string,
    baseOffset: bigint,
    cache: FileHandleCache,
    limits: SegmentLimits,
    nowMs: number,
    freshDir = false,
  ): Promise<LogSegment> {
    const seg = new LogSegment(dir, baseOffset, 0, cache, limits, nowMs);
    await seg.createFiles(freshDir);
    return seg;
  }

  /** Creates the (empty) files of a segment constructed in memory by a roll. */
  async createFiles(freshDir = false): Promise<void> {
    if (!freshDir) {
      await Promise.all([
        fsp.rm(this.offsetIndex.path, { force: true }),
        fsp.rm(this.timeIndex.path, { force: true }),
        fsp.rm(this.txnIndex.path, { force: true }),
      ]);
    }
    const fd = await openFd(this.file.path, 'w+');
    this.#cache.adopt(this.file, fd);
    this.#indexesLoaded = Promise.resolve();
  }

  get isEmpty(): boolean {
    return this.size === 0;
  }

  get indexesLoaded(): boolean {
    return this.#indexesLoaded !== null;
  }

  /** Marks the indexes as current (built by recovery or just created). */
  markIndexesLoaded(): void {
    this.#indexesLoaded = Promise.resolve();
  }

  /**
   * Loads `.index`/`.timeindex`/`.txnindex` on first use; any that is missing or fails its
   * sanity check is rebuilt by scanning this segment (so corruption costs time, not data).
   */
  ensureIndexes(): Promise<void> {
    this.#indexesLoaded ??= this.#loadIndexes();
    return this.#indexesLoaded;
  }

  async #loadIndexes(): Promise<void> {
    const [okOffset, okTime, okTxn] = await Promise.all([
      this.offsetIndex.load(this.size),
      this.timeIndex.load(this.size),
      this.txnIndex.load(),
    ]);
    const lastTime = this.timeIndex.lastEntry;
    const timeBeyond =
      lastTime !== null && this.nextOffset > this.baseOffset && lastTime.offset >= this.nextOffset;
    if (!okOffset || !okTime || timeBeyond) await this.rebuildIndexes();
    if (!okTxn) await this.txnIndex.reset();
    const last = this.timeIndex.lastEntry;
    if (last !== null && last.timestamp > this.maxTimestamp) {
      this.maxTimestamp = last.timestamp;
      this.offsetOfMaxTimestamp = last.offset;
    }
  }

  /**
   * Rebuilds the offset and time indexes by scanning the file (CRC-checked). Returns the end of
   * the valid prefix, which callers doing recovery truncate to.
   */
  async rebuildIndexes(
    limits?: SegmentLimits,
    onBatch?: (buf: Buffer, pos: number, size: number, filePos: number) => boolean | undefined,
  ): Promise<{ validEnd: number; problem: string | null }> {
    this.offsetIndex.reset();
    this.timeIndex.reset();
    const interval = limits?.indexIntervalBytes ?? 4096;
    let sinceIndex = 0;
    let maxTs = -1n;
    let maxTsOffset = -1n;
    let next = this.baseOffset;
    const result = await this.#cache.with(this.file, (fd) =>
      scanSegment(fd, 0, this.size, { verifyCrc: true }, (buf, pos, size, filePos) => {
        const base = buf.readBigInt64BE(pos);
        const last = base + BigInt(buf.readInt32BE(pos + LAST_OFFSET_DELTA_OFFSET));
        if (base < next || last < base || last - this.baseOffset > 0x7fffffffn) return false;
        if (onBatch !== undefined && onBatch(buf, pos, size, filePos) === false) return false;
        const ts = buf.readBigInt64BE(pos + MAX_TIMESTAMP_OFFSET);
        if (ts > maxTs) {
          maxTs = ts;
          maxTsOffset = last;
        }
        if (sinceIndex > interval) {
          this.offsetIndex.append(last, filePos);
          this.timeIndex.maybeAppend(maxTs, maxTsOffset);
          sinceIndex = 0;
        }
        sinceIndex += size;
        next = last + 1n;
        return true;
      }),
    );
    // Like Kafka's recovery: the time index ends with the segment's largest timestamp.
    if (maxTs >= 0n) this.timeIndex.maybeAppend(maxTs, maxTsOffset);
    this.nextOffset = next;
    this.maxTimestamp = maxTs;
    this.offsetOfMaxTimestamp = maxTsOffset;
    this.bytesSinceIndex = sinceIndex;
    this.assignedIndexEntries = this.offsetIndex.entries;
    this.trustedUpTo = result.validEnd;
    this.#indexesLoaded = Promise.resolve();
    return result;
  }

  /** Reads `length` bytes at `position` into a fresh buffer (shorter at end of file). */
  read(position: number, length: number, allocate?: (size: number) => Buffer): Promise<Buffer> {
    return this.#cache.with(this.file, (fd) => readAt(fd, length, position, allocate));
  }

  /**
   * Writes placed batches contiguously at their assigned positions with one (p)writev and calls
   * `done` (a callback, not a promise: no microtask hops on the append path), which must call
   * `writeFinished` first. `stage`: a small write may go through the write worker
   * (`write-worker.ts`). A log writes one group at a time, so a segment has one write in flight.
   */
  writeBatches(batches: readonly PlacedBatch[], stage: boolean, done: (err: Error | null) => void): void {
    const pending = this.#cache.acquire(this.file);
    // Already open (the usual case): the write is issued at once.
    if (typeof pending === 'number') this.#writeWith(pending, batches, stage, done);
    else
      pending.then(
        (fd) => this.#writeWith(fd, batches, stage, done),
        (err: unknown) => done(err instanceof Error ? err : new Error(String(err))),
      );
  }

  #writeWith(
    fd: number,
    batches: readonly PlacedBatch[],
    stage: boolean,
    done: (err: Error | null) => void,
  ): void {
    const position = batches[0]!.position;
    const bufs = new Array<Buffer>(batches.length);
    let bytes = 0;
    for (let i = 0; i < batches.length; i++) {
      bufs[i] = batches[i]!.buf;
      bytes += bufs[i]!.length;
    }
    this.#writePinned = true;
    if (stage && bytes <= STAGED_WRITE_MAX_BYTES && writeWorker().tryWrite(fd, bufs, bytes, position, done))
      return;
    writevFully(fd, bufs, position, done);
  }

  /** The descriptor is pinned by the write in flight (not when opening the file failed). */
  #writePinned = false;

  /**
   * The write of `writeBatches` completed (`err` null) or failed: unpins the descriptor. (The
   * caller's callback does this rather than a closure of the segment's: one fewer object per
   * segment, of which 10,000 partitions have many.)
   */
  writeFinished(err: Error | null): void {
    if (this.#writePinned) {
      this.#writePinned = false;
      this.#cache.release(this.file);
    }
    if (err === null) this.unflushed = true;
  }

  /** Makes a group of written batches visible: index entries and timestamps, then size and next offset. */
  applyWritten(batches: readonly PlacedBatch[]): void {
    for (let i = 0; i < batches.length; i++) {
      const b = batches[i]!;
      if (b.maxTimestamp > this.maxTimestamp) {
        this.maxTimestamp = b.maxTimestamp;
        this.offsetOfMaxTimestamp = b.lastOffset;
      }
      if (b.indexEntry) {
        this.offsetIndex.append(b.lastOffset, b.position);
        this.timeIndex.maybeAppend(this.maxTimestamp, this.offsetOfMaxTimestamp);
      }
    }
    const last = batches[batches.length - 1]!;
    this.size = last.position + last.buf.length;
    this.trustedUpTo = this.size;
    this.nextOffset = last.nextOffset;
  }

  /**
   * Decides where the next batch goes (its file position and whether it gets an index entry),
   * Kafka's rule: an entry once more than `index.interval.bytes` were written since the last.
   */
  place(
    buf: Buffer,
    baseOffset: bigint,
    lastOffset: bigint,
    maxTimestamp: bigint,
    indexIntervalBytes: number,
  ): PlacedBatch {
    const indexEntry = this.bytesSinceIndex > indexIntervalBytes;
    if (indexEntry) {
      this.bytesSinceIndex = 0;
      this.assignedIndexEntries++;
    }
    const position = this.assignedSize;
    this.bytesSinceIndex += buf.length;
    this.assignedSize += buf.length;
    this.firstBatchTimestamp ??= Number(maxTimestamp);
    const nextOffset = lastOffset + 1n;
    return {
      buf,
      position,
      baseOffset,
      lastOffset,
      nextOffset,
      maxTimestamp,
      indexEntry,
      resolve: null,
      reject: null,
      value: null,
    };
  }

  /** fsync of the data (metadata such as mtime is not needed for recovery). */
  async flush(): Promise<void> {
    if (!this.unflushed || this.deleted) return;
    this.unflushed = false;
    try {
      await this.#cache.with(this.file, (fd) => fdatasyncFd(fd));
    } catch (err) {
      this.unflushed = true;
      throw err;
    }
  }

  /** The segment stops being active: final time-index entry, indexes written and synced. */
  async onBecomeInactive(sync: boolean): Promise<void> {
    if (this.maxTimestamp >= 0n) this.timeIndex.maybeAppend(this.maxTimestamp, this.offsetOfMaxTimestamp);
    await this.persistIndexes(sync);
  }

  /** The in-memory indexes need not be written (they match the files, or are cheap to rebuild). */
  markIndexesPersisted(): void {
    this.offsetIndex.markClean();
    this.timeIndex.markClean();
  }

  async persistIndexes(sync: boolean): Promise<void> {
    if (!this.indexesLoaded || this.deleted) return;
    await Promise.all([this.offsetIndex.persist(sync), this.timeIndex.persist(sync)]);
    // `.txnindex` entries are appended unsynced as markers arrive; make them durable with the
    // data once the segment is behind the recovery point (it will not be rescanned).
    if (sync && this.txnIndex.entries.length > 0) await syncFile(this.txnIndex.path);
  }

  /** Cuts the file at `position` (a batch boundary) and drops index entries beyond it. */
  async truncateToPosition(position: number, nextOffset: bigint): Promise<void> {
    await this.ensureIndexes();
    await this.#cache.with(this.file, (fd) => ftruncateFd(fd, position));
    this.offsetIndex.truncateToPosition(position);
    this.timeIndex.truncateToOffset(nextOffset);
    await this.txnIndex.truncateTo(nextOffset);
    this.size = position;
    this.assignedSize = position;
    this.trustedUpTo = Math.min(this.trustedUpTo, position);
    this.nextOffset = nextOffset;
    this.bytesSinceIndex = 0;
    this.assignedIndexEntries = this.offsetIndex.entries;
    const last = this.timeIndex.lastEntry;
    this.maxTimestamp = last?.timestamp ?? -1n;
    this.offsetOfMaxTimestamp = last?.offset ?? -1n;
    if (position === 0) this.firstBatchTimestamp = null;
    this.offsetIndex.markDirty();
    this.timeIndex.markDirty();
  }

  /**
   * The segment's largest timestamp for time-based retention, without loading whole indexes:
   * the in-memory value, else the last `.timeindex` entry, else the file's mtime (Kafka's rule).
   */
  async largestTimestamp(): Promise<bigint> {
    if (this.maxTimestamp >= 0n) return this.maxTimestamp;
    if (this.size === 0) return -1n; // no records: as old as can be
    const raw = await readFileOrNull(this.timeIndex.path);
    if (raw !== null && raw.length >= 12 && raw.length % 12 === 0) {
      const ts = raw.readBigInt64BE(raw.length - 12);
      if (ts >= 0n) return ts;
    }
    try {
      return BigInt(Math.floor((await fsp.stat(this.file.path)).mtimeMs));
    } catch {
      return -1n;
    }
  }

  /** Renames every file to `*.deleted` (readers holding the fd keep working). */
  async markDeleted(): Promise<void> {
    this.deleted = true;
    const paths = [this.offsetIndex.path, this.timeIndex.path, this.txnIndex.path];
    const from = this.file.path;
    await fsp.rename(from, from + DELETED_SUFFIX).catch(() => undefined);
    this.file.path = from + DELETED_SUFFIX;
    await Promise.all(paths.map((p) => fsp.rename(p, p + DELETED_SUFFIX).catch(() => undefined)));
    this.offsetIndex.path += DELETED_SUFFIX;
    this.timeIndex.path += DELETED_SUFFIX;
    this.txnIndex.path += DELETED_SUFFIX;
  }

  /** Closes the descriptor and removes the files. */
  async deleteFiles(): Promise<void> {
    this.deleted = true;
    this.#cache.forget(this.file);
    await Promise.all(
      [this.file.path, this.offsetIndex.path, this.timeIndex.path, this.txnIndex.path].map((p) =>
        fsp.rm(p, { force: true }),
      ),
    );
  }

  close(): void {
    this.#cache.forget(this.file);
  }
}
