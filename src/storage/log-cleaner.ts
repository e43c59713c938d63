// Log compaction for `cleanup.policy=compact` (Kafka's LogCleaner, one pass per log). Keeps the
// latest record per key, drops records of aborted transactions, drops tombstones that an
// earlier pass already kept and that are older than `delete.retention.ms`, and drops a
// transaction marker once no batch of its transaction is left (see MarkerRetention). Offsets
// never change: a batch whose records all survive is copied byte for byte; a thinned batch is
// re-encoded with the same base offset, producer fields and codec, each record keeping its
// offset delta. Only inactive segments below the high watermark, the first unstable offset and
// `min.compaction.lag.ms` are cleaned.
import { promises as fsp } from 'node:fs';
import { join } from 'node:path';
import { decodeRecordBatch, type RecordCursor } from '../protocol/record-batch/decode.js';
import { encodeRecordBatch, type RecordInput } from '../protocol/record-batch/encode.js';
import {
  compressionOf,
  isControl,
  isTransactional,
  readBatchHeader,
  setMaxTimestampAndLogAppendTime,
  TIMESTAMP_TYPE_MASK,
} from '../protocol/record-batch/header.js';
import { ControlType, readControlMarker } from './control-record.js';
import { CLEANED_SUFFIX, LOG_SUFFIX, SWAP_SUFFIX, segmentFileName, TXN_INDEX_SUFFIX } from './file-names.js';
import { closeFd, fsyncDir, fsyncFd, openFd, writeAt } from './fs-util.js';
import { LogSegment } from './log-segment.js';
import { forEachBatch } from './segment-batches.js';
import { type AbortedTxnEntry, TransactionIndex } from './transaction-index.js';
import type { LogEnvironment, UnifiedLog } from './unified-log.js';

interface Plan {
  /** Segments [0, end) may be cleaned. */
  end: number;
  firstDirty: bigint;
  cleanableEnd: bigint;
}

function isAborted(aborted: readonly AbortedTxnEntry[], producerId: bigint, offset: bigint): boolean {
  for (const t of aborted)
    if (t.producerId === producerId && offset >= t.firstOffset && offset <= t.lastOffset) return true;
  return false;
}

interface RemovableMarker {
  producerId: bigint;
  /** When a pass first found the marker removable (ms). */
  since: number;
}

/**
 * Which transaction markers a cleaning pass may drop (Kafka's CleanedTransactionMetadata plus
 * the delete horizon of KIP-534). A pass walks the log from its first segment in offset order,
 * so every batch of a transaction is seen before its marker, whatever segment or group it lies
 * in: a marker whose producer had a transactional batch since its previous marker is kept (the
 * batches are still there, or are being dropped by this very pass). A marker with no batch left
 * is dropped only by a later pass, at least `delete.retention.ms` after the first pass that
 * found it removable — a consumer that fetched the transaction's last batches has that long to
 * read the marker (an ABORT marker is where a read_committed consumer stops skipping). The
 * time of that first pass is kept in memory; after a restart the wait starts over.
 */
class MarkerRetention {
  /** Producers with a transactional batch since their last marker, in this pass. */
  readonly #open = new Set<bigint>();
  readonly #removableSince: ReadonlyMap<bigint, RemovableMarker>;
  /** Marker offset → when a pass first found it removable (carried to the next pass). */
  readonly next = new Map<bigint, RemovableMarker>();
  /** Offsets of the markers this pass drops. */
  readonly dropped = new Set<bigint>();
  readonly #now: number;
  readonly #retentionMs: number;

  constructor(removableSince: ReadonlyMap<bigint, RemovableMarker>, now: number, retentionMs: number) {
    this.#removableSince = removableSince;
    this.#now = now;
    this.#retentionMs = retentionMs;
  }

  onTransactionalBatch(producerId: bigint): void {
    this.#open.add(producerId);
  }

  /** Whether to keep the marker batch at `offset` of `producerId`. */
  keepMarker(producerId: bigint, offset: bigint): boolean {
    if (this.#open.delete(producerId)) return true;
    const seen = this.#removableSince.get(offset);
    // (The producer check: a truncated log may hold another marker at that offset by now.)
    const since = seen !== undefined && seen.producerId === producerId ? seen.since : undefined;
    if (since === undefined || this.#now - since < this.#retentionMs) {
      this.next.set(offset, { producerId, since: since ?? this.#now });
      return true;
    }
    this.dropped.add(offset);
    return false;
  }
}

export class LogCleaner {
  readonly #env: LogEnvironment;
  readonly #firstDirty = new WeakMap<UnifiedLog, bigint>();
  /** Per log: markers found removable by a pass (offset → when), see MarkerRetention. */
  readonly #removableMarkers = new WeakMap<UnifiedLog, Map<bigint, RemovableMarker>>();
  #stopped = false;

  constructor(env: LogEnvironment) {
    this.#env = env;
  }

  firstDirtyOffset(log: UnifiedLog): bigint | undefined {
    return this.#firstDirty.get(log);
  }

  stop(): void {
    this.#stopped = true;
  }

  async #plan(log: UnifiedLog, force: boolean): Promise<Plan | null> {
    const segs = log.local.segments;
    const cfg = log.config;
    const now = BigInt(this.#env.now());
    let limit = segs[segs.length - 1]!.baseOffset;
    if (log.highWatermark < limit) limit = log.highWatermark;
    const unstable = log.producers.firstUnstableOffset();
    if (unstable !== null && unstable < limit) limit = unstable;
    let end = 0;
    while (end < segs.length - 1 && segs[end + 1]!.baseOffset <= limit) {
      if ((await segs[end]!.largestTimestamp()) > now - BigInt(cfg.minCompactionLagMs)) break;
      end++;
    }
    if (end === 0) return null;
    const cleanableEnd = segs[end]!.baseOffset;
    let firstDirty = this.#firstDirty.get(log) ?? log.logStartOffset;
    if (firstDirty < log.logStartOffset) firstDirty = log.logStartOffset;
    if (firstDirty > cleanableEnd) firstDirty = cleanableEnd;
    if (force) return { end, firstDirty, cleanableEnd };
    if (firstDirty >= cleanableEnd) return null;
    let dirty = 0;
    let total = 0;
    for (let i = 0; i < end; i++) {
      total += segs[i]!.size;
      if (segs[i + 1]!.baseOffset > firstDirty) dirty += segs[i]!.size;
    }
    const dirtySeg = segs[Math.max(0, log.local.floorIndex(firstDirty))]!;
    const overdue =
      Number.isFinite(cfg.maxCompactionLagMs) &&
      (await dirtySeg.largestTimestamp()) < now - BigInt(cfg.maxCompactionLagMs);
    if (!overdue && (total === 0 || dirty / total < cfg.minCleanableDirtyRatio)) return null;
    return { end, firstDirty, cleanableEnd };
  }

  /** Compacts `log` if it is dirty enough (always when `force`). Returns true when it cleaned. */
  async maybeClean(log: UnifiedLog, force = false): Promise<boolean> {
    if (this.#stopped) return false;
    return log.withMaintenance(async () => {
      const plan = await this.#plan(log, force);
      if (plan === null || this.#stopped) return false;
      await this.#clean(log, plan);
      this.#firstDirty.set(log, plan.cleanableEnd);
      return true;
    });
  }

  async #clean(log: UnifiedLog, plan: Plan): Promise<void> {
    const segs = log.local.segments.slice(0, plan.end);
    const aborted: AbortedTxnEntry[] = [];
    for (const s of log.local.segments) {
      await s.ensureIndexes();
      aborted.push(...s.txnIndex.entries);
    }
    // Latest offset of every key in the dirty range.
    const latest = new Map<string, bigint>();
    for (let i = 0; i < segs.length; i++) {
      const seg = segs[i]!;
      if (log.local.segments[i + 1]!.baseOffset <= plan.firstDirty) continue; // wholly clean
      await forEachBatch(log.local.cache, seg, async (batch) => {
        const attrs = batch.readInt16BE(21);
        if (isControl(attrs)) return;
        const h = readBatchHeader(batch, 0);
        if (isTransactional(attrs) && isAborted(aborted, h.producerId, h.baseOffset)) return;
        const cursor = await decodeRecordBatch(batch, { verifyCrc: false });
        while (cursor.next()) {
          const key = cursor.key();
          if (key !== null && cursor.offset >= plan.firstDirty)
            latest.set(key.toString('latin1'), cursor.offset);
        }
      });
    }
    // Recopy, in groups that fit one segment.
    const cfg = log.config;
    let group: LogSegment[] = [];
    let groupSize = 0;
    const groups: LogSegment[][] = [];
    for (const seg of segs) {
      if (group.length > 0 && groupSize + seg.size > cfg.segmentBytes) {
        groups.push(group);
        group = [];
        groupSize = 0;
      }
      group.push(seg);
      groupSize += seg.size;
    }
    if (group.length > 0) groups.push(group);
    const horizon = BigInt(this.#env.now()) - BigInt(cfg.deleteRetentionMs);
    const markers = new MarkerRetention(
      this.#removableMarkers.get(log) ?? new Map(),
      this.#env.now(),
      cfg.deleteRetentionMs,
    );
    for (const g of groups) {
      if (this.#stopped) return;
      await this.#cleanGroup(log, g, latest, aborted, plan.firstDirty, horizon, markers);
    }
    this.#removableMarkers.set(log, markers.next);
  }

  async #cleanGroup(
    log: UnifiedLog,
    group: LogSegment[],
    latest: Map<string, bigint>,
    aborted: readonly AbortedTxnEntry[],
    firstDirty: bigint,
    horizon: bigint,
    markers: MarkerRetention,
  ): Promise<void> {
    const base = group[0]!.baseOffset;
    const dir = log.dir;
    const cleanedPath = join(dir, segmentFileName(base, LOG_SUFFIX) + CLEANED_SUFFIX);
    const fd = await openFd(cleanedPath, 'w');
    let position = 0;
    const keep = (c: RecordCursor, maxTimestamp: bigint): boolean => {
      const key = c.key();
      if (key === null) return true;
      const last = latest.get(key.toString('latin1'));
      if (last !== undefined && last > c.offset) return false;
      // A tombstone survives its first pass and then delete.retention.ms.
      if (c.valueLength < 0 && c.offset < firstDirty && maxTimestamp < horizon) return false;
      return true;
    };
    try {
      for (const seg of group) {
        await forEachBatch(log.local.cache, seg, async (batch) => {
          const out = await this.#filterBatch(batch, keep, aborted, markers);
          if (out === null) return;
          await writeAt(fd, out, position);
          position += out.length;
        });
      }
      await fsyncFd(fd);
    } finally {
      await closeFd(fd);
    }
    // An aborted transaction's entry goes with its marker (no batch of it is left to filter).
    const txnEntries: AbortedTxnEntry[] = [];
    for (const seg of group)
      for (const e of seg.txnIndex.entries) if (!markers.dropped.has(e.lastOffset)) txnEntries.push(e);
    const txnCleaned = new TransactionIndex(
      join(dir, segmentFileName(base, TXN_INDEX_SUFFIX) + CLEANED_SUFFIX),
    );
    await txnCleaned.reset(txnEntries);
    // Commit point: the `.swap` rename. Recovery completes anything after it.
    if (txnEntries.length > 0)
      await fsp.rename(txnCleaned.path, join(dir, segmentFileName(base, TXN_INDEX_SUFFIX) + SWAP_SUFFIX));
    const swapPath = join(dir, segmentFileName(base, LOG_SUFFIX) + SWAP_SUFFIX);
    await fsp.rename(cleanedPath, swapPath);
    await fsyncDir(dir);
    for (const seg of group) await seg.markDeleted();
    await fsp.rename(swapPath, join(dir, segmentFileName(base, LOG_SUFFIX)));
    if (txnEntries.length > 0) {
      await fsp.rename(
        join(dir, segmentFileName(base, TXN_INDEX_SUFFIX) + SWAP_SUFFIX),
        join(dir, segmentFileName(base, TXN_INDEX_SUFFIX)),
      );
    }
    await fsyncDir(dir);
    const cfg = log.config;
    const limits = { indexIntervalBytes: cfg.indexIntervalBytes, segmentIndexBytes: cfg.segmentIndexBytes };
    const fresh = new LogSegment(dir, base, position, log.local.cache, limits, this.#env.now());
    await fresh.rebuildIndexes(limits);
    await fresh.txnIndex.load();
    await fresh.onBecomeInactive(true);
    const segs = log.local.segments;
    const at = segs.indexOf(group[0]!);
    segs.splice(at, group.length, fresh);
    fresh.nextOffset = segs[at + 1]!.baseOffset;
    for (const seg of group) this.#env.scheduleDelete(seg, cfg.fileDeleteDelayMs);
  }

  /** The batch to write for `batch` (itself when untouched), or null to drop it entirely. */
  async #filterBatch(
    batch: Buffer,
    keep: (c: RecordCursor, maxTimestamp: bigint) => boolean,
    aborted: readonly AbortedTxnEntry[],
    markers: MarkerRetention,
  ): Promise<Buffer | null> {
    const h = readBatchHeader(batch, 0);
    if (isControl(h.attributes)) {
      const type = readControlMarker(batch, 0, batch.length)?.type;
      if (type !== ControlType.ABORT && type !== ControlType.COMMIT) return batch;
      return markers.keepMarker(h.producerId, h.baseOffset) ? batch : null;
    }
    if (isTransactional(h.attributes)) markers.onTransactionalBatch(h.producerId);
    if (isTransactional(h.attributes) && isAborted(aborted, h.producerId, h.baseOffset)) return null;
    const cursor = await decodeRecordBatch(batch, { verifyCrc: false });
    const kept: RecordInput[] = [];
    let dropped = false;
    const baseTs = h.baseTimestamp;
    while (cursor.next()) {
      if (!keep(cursor, h.maxTimestamp)) {
        dropped = true;
        continue;
      }
      kept.push({
        key: cursor.key(),
        value: cursor.value(),
        headers: cursor.headerCount > 0 ? cursor.headers() : undefined,
        timestamp: baseTs + BigInt(cursor.timestampDelta),
        offsetDelta: cursor.offsetDelta,
      });
    }
    if (!dropped) return batch;
    if (kept.length === 0) return null;
    const logAppendTime = (h.attributes & TIMESTAMP_TYPE_MASK) !== 0;
    const out = await encodeRecordBatch(kept, {
      baseOffset: h.baseOffset,
      partitionLeaderEpoch: h.partitionLeaderEpoch,
      compression: compressionOf(h.attributes),
      producerId: h.producerId,
      producerEpoch: h.producerEpoch,
      baseSequence: h.baseSequence,
      transactional: isTransactional(h.attributes),
    });
    if (logAppendTime) setMaxTimestampAndLogAppendTime(out, 0, h.maxTimestamp);
    return out;
  }
}
