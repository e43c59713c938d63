// Opening one partition directory (Kafka's LogLoader): clean up leftovers of interrupted
// operations, list the segments, recover everything after the recovery point batch by batch
// (truncating at the first torn or invalid batch and dropping later segments), and rebuild
// indexes, the leader-epoch cache, producer state and the `.txnindex` of what was recovered.
// After a clean shutdown only the tail of the last segment is checked.
import { promises as fsp } from 'node:fs';
import { basename, join } from 'node:path';
import { hasProducer, lastOffsetOf, leaderEpochOf, maxTimestampOf, producerBatchOf } from './batch-info.js';
import {
  CLEANED_SUFFIX,
  DELETED_SUFFIX,
  LEADER_EPOCH_CHECKPOINT_FILE,
  LOG_SUFFIX,
  parseOffsetFileName,
  SNAPSHOT_SUFFIX,
} from './file-names.js';
import { ftruncateFd } from './fs-util.js';
import { LeaderEpochCache } from './leader-epoch-cache.js';
import { LocalLog } from './local-log.js';
import type { LogConfig } from './log-config.js';
import { applyRange, rebuildTxnIndex } from './log-replay.js';
import { isSmallLog, LogSegment } from './log-segment.js';
import { readPartitionMetadata, writePartitionMetadata, ZERO_TOPIC_ID } from './partition-metadata.js';
import { ProducerSnapshots } from './producer-snapshots.js';
import { ProducerStateManager } from './producer-state.js';
import { scanSegment } from './segment-scanner.js';
import { completeSwaps } from './segment-swap.js';
import { TailCache } from './tail-cache.js';
import type { AbortedTxnEntry } from './transaction-index.js';
import { type LogEnvironment, UnifiedLog } from './unified-log.js';

export interface LoadLogParams {
  dir: string;
  topic: string;
  partition: number;
  config: LogConfig;
  env: LogEnvironment;
  /** From `recovery-point-offset-checkpoint`; undefined = recover everything. */
  recoveryPoint: bigint | undefined;
  logStartOffset: bigint | undefined;
  highWatermark: bigint | undefined;
  /** The log dir was closed cleanly (`.kafka_cleanshutdown` present). */
  cleanShutdown: boolean;
  /** Topic id to record when `partition.metadata` is missing. */
  topicId?: string;
  /** A log just created (its partition.metadata is not fsynced yet). */
  created?: boolean;
  /**
   * The log that will adopt these files (a log dir move): the segment list's roll, write and
   * failure hooks go to it, not to the UnifiedLog built here, which only carries the files over.
   */
  owner?: UnifiedLog;
}

export interface LoadReport {
  recoveredSegments: number;
  /** Bytes cut from the end of the log because they did not hold valid batches. */
  truncatedBytes: number;
  problems: string[];
}

/** Removes leftovers of interrupted operations; returns the segments' and snapshots' offsets. */
async function tidy(
  dir: string,
  report: LoadReport,
): Promise<{ bases: bigint[]; snapshots: bigint[]; names: Set<string> }> {
  const names = await completeSwaps(dir);
  const logs = new Set<bigint>();
  for (const name of names) {
    const parsed = parseOffsetFileName(name);
    if (
      name.endsWith('.tmp') ||
      (parsed !== null && (parsed.state === DELETED_SUFFIX || parsed.state === CLEANED_SUFFIX))
    ) {
      await fsp.rm(join(dir, name), { force: true });
      continue;
    }
    if (parsed !== null && parsed.state === '' && parsed.suffix === LOG_SUFFIX) logs.add(parsed.offset);
  }
  // Index files without their `.log` are orphans of a deletion cut short.
  for (const name of names) {
    const parsed = parseOffsetFileName(name);
    if (
      parsed === null ||
      parsed.state !== '' ||
      parsed.suffix === LOG_SUFFIX ||
      parsed.suffix === SNAPSHOT_SUFFIX
    )
      continue;
    if (!logs.has(parsed.offset)) {
      await fsp.rm(join(dir, name), { force: true });
      report.problems.push(`removed orphan ${name}`);
    }
  }
  const snapshots: bigint[] = [];
  for (const name of names) {
    const parsed = parseOffsetFileName(name);
    if (parsed !== null && parsed.state === '' && parsed.suffix === SNAPSHOT_SUFFIX)
      snapshots.push(parsed.offset);
  }
  return { bases: [...logs].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)), snapshots, names: new Set(names) };
}

export async function loadLog(p: LoadLogParams): Promise<{ log: UnifiedLog; report: LoadReport }> {
  const report: LoadReport = { recoveredSegments: 0, truncatedBytes: 0, problems: [] };
  const { dir, env, config } = p;
  const limits = {
    indexIntervalBytes: config.indexIntervalBytes,
    segmentIndexBytes: config.segmentIndexBytes,
  };
  const now = env.now();
  const { bases, snapshots: snapshotList, names } = await tidy(dir, report);
  const segments: LogSegment[] = [];
  for (const base of bases) {
    const st = await fsp.stat(join(dir, `${base.toString().padStart(20, '0')}${LOG_SUFFIX}`));
    segments.push(new LogSegment(dir, base, st.size, env.cache, limits, now));
  }
  if (segments.length === 0) {
    segments.push(await LogSegment.create(dir, p.logStartOffset ?? 0n, env.cache, limits, now));
  }
  for (let i = 0; i + 1 < segments.length; i++) segments[i]!.nextOffset = segments[i + 1]!.baseOffset;

  const { cache: epochs, corrupt: epochsCorrupt } = names.has(LEADER_EPOCH_CHECKPOINT_FILE)
    ? await LeaderEpochCache.load(join(dir, LEADER_EPOCH_CHECKPOINT_FILE))
    : { cache: LeaderEpochCache.empty(join(dir, LEADER_EPOCH_CHECKPOINT_FILE)), corrupt: false };
  if (epochsCorrupt) report.problems.push('leader-epoch-checkpoint is corrupt; rebuilt from the batches');
  const snapshots = new ProducerSnapshots(dir, snapshotList);
  const producers = new ProducerStateManager();
  const logStart =
    p.logStartOffset !== undefined && p.logStartOffset > segments[0]!.baseOffset
      ? p.logStartOffset
      : segments[0]!.baseOffset;

  // Which segments to scan: after a clean shutdown only the last one (from its last index
  // entry); otherwise every segment from the one holding the recovery point.
  const small = isSmallLog(segments);
  let firstToRecover: number;
  if (small) firstToRecover = 0;
  else if (p.cleanShutdown && p.recoveryPoint !== undefined) firstToRecover = segments.length - 1;
  else if (p.recoveryPoint === undefined) firstToRecover = 0;
  else {
    firstToRecover = 0;
    for (let i = 0; i < segments.length; i++)
      if (segments[i]!.baseOffset <= p.recoveryPoint) firstToRecover = i;
  }
  const recoverFrom = segments[firstToRecover]!.baseOffset;

  // Producer state: newest snapshot, then the batches between it and the recovered part.
  const snap = small ? null : await snapshots.readLatest(2n ** 63n - 1n);
  let applyFrom = logStart;
  if (snap !== null && snap.offset >= logStart) {
    producers.loadSnapshot(snap.entries, snap.offset);
    applyFrom = snap.offset;
  } else producers.clear(logStart);

  const local = new LocalLog(dir, segments, 0n, 0n, config, env.cache, new TailCache(env.tailBudget), {
    onRoll: (offset) => (p.owner ?? log).snapshotForRoll(offset),
    onWritten: () => (p.owner ?? log).notify(),
    beforeRecoveryPoint: (newSegment) => (p.owner ?? log).persistMetadata(newSegment),
    onFailure: (err) => {
      env.onError(err, `log ${dir}`);
      env.onStorageFailure?.(p.owner ?? log, err);
    },
    now: env.now,
  });
  const clean = p.cleanShutdown && p.recoveryPoint !== undefined;
  // A corrupt `.txnindex` is rebuilt from the batches (Kafka recovers such a segment at load);
  // emptied, read_committed would serve the transactions aborted in it. Oldest first, before
  // anything loads the segments' indexes: a rebuild replays the segments before its own.
  for (const seg of segments) {
    if (!names.has(basename(seg.txnIndex.path)) || (await seg.txnIndex.load())) continue;
    report.problems.push(`${seg.txnIndex.path} is corrupt; rebuilt from the log`);
    await rebuildTxnIndex(local, snapshots, logStart, seg);
  }
  if (applyFrom < recoverFrom) await applyRange(local, producers, applyFrom, recoverFrom);
  if (epochsCorrupt) await rebuildEpochs(local, epochs, clean ? segments.length : firstToRecover);

  // Scan the segments to recover.
  let tailOnly = false;
  for (let i = firstToRecover; i < segments.length; i++) {
    const seg = segments[i]!;
    let result: { validEnd: number; problem: string | null };
    if (
      clean &&
      !small &&
      (await seg.ensureIndexes().then(
        () => true,
        () => false,
      ))
    ) {
      result = await recoverTail(seg, local, epochs);
      tailOnly = true;
    } else {
      const aborted: AbortedTxnEntry[] = [];
      result = await seg.rebuildIndexes(limits, (buf, pos, size) => {
        const base = buf.readBigInt64BE(pos);
        const epoch = leaderEpochOf(buf, pos);
        if (epoch > epochs.latestEpoch) epochs.assign(epoch, base);
        // Batches without a producer id do not touch producer state (most of a plain log).
        if (base >= applyFrom && hasProducer(buf, pos)) {
          const entry = producers.abortedEntry(producers.apply(producerBatchOf(buf, pos, size)));
          if (entry !== null) aborted.push(entry);
        }
        return true;
      });
      // Entries for markers below `applyFrom` were not replayed: keep them from the file.
      const hasTxnFile = names.has(basename(seg.txnIndex.path));
      if (hasTxnFile && applyFrom > seg.baseOffset) await seg.txnIndex.load();
      const kept = hasTxnFile ? seg.txnIndex.entries.filter((e) => e.lastOffset < applyFrom) : [];
      if (hasTxnFile || aborted.length > 0) await seg.txnIndex.reset([...kept, ...aborted]);
      // After a clean shutdown the files on disk already say this (or are rebuilt next time).
      if (clean && result.problem === null) seg.markIndexesPersisted();
    }
    report.recoveredSegments++;
    if (result.problem !== null) {
      report.problems.push(`${seg.file.path}: ${result.problem} at position ${result.validEnd}; truncated`);
      report.truncatedBytes += seg.size - result.validEnd;
      const validEnd = result.validEnd;
      await env.cache.with(seg.file, (fd) => ftruncateFd(fd, validEnd));
      seg.size = result.validEnd;
      seg.assignedSize = result.validEnd;
      // Entries kept from the file (markers below a snapshot) may describe markers cut here.
      await seg.txnIndex.truncateTo(seg.nextOffset);
      for (const later of segments.slice(i + 1)) {
        report.truncatedBytes += later.size;
        await later.deleteFiles();
      }
      segments.splice(i + 1);
      break;
    }
  }

  const last = segments[segments.length - 1]!;
  // biome-ignore lint/complexity/useMathMinMax: bigint
  let leo = last.nextOffset > last.baseOffset ? last.nextOffset : last.baseOffset;
  if (last.size === 0) leo = last.baseOffset;
  local.nextOffset = leo;
  local.logEndOffset = leo;
  for (const seg of segments) if (seg !== last) seg.assignedSize = seg.size;
  last.assignedSize = last.size;
  last.assignedIndexEntries = last.offsetIndex.entries;

  // The clean path scanned only the tail: replay whatever lies between.
  if (tailOnly) {
    // biome-ignore lint/complexity/useMathMinMax: bigint
    const from = applyFrom > recoverFrom ? applyFrom : recoverFrom;
    if (from < leo) await applyRange(local, producers, from, leo);
  }
  // A snapshot beyond the recovered end describes lost data: start producer state over.
  if (producers.mapEndOffset > leo) {
    await snapshots.deleteAbove(leo);
    producers.clear(logStart);
    await applyRange(local, producers, logStart, leo);
  }
  producers.mapEndOffset = leo;
  epochs.truncateFromEnd(leo);
  epochs.truncateFromStart(logStart);

  // Make what recovery produced durable, so the next start can skip it.
  if (!clean || report.truncatedBytes > 0) {
    for (const seg of segments.slice(firstToRecover)) {
      if (seg.size === 0) continue;
      seg.unflushed = true;
      await seg.flush();
      if (seg !== last) await seg.persistIndexes(true);
    }
  }
  local.recoveryPoint = leo;
  await epochs.flush();

  const topicId = (await readPartitionMetadata(dir)) ?? p.topicId ?? ZERO_TOPIC_ID;
  let hw = p.highWatermark ?? logStart;
  if (hw > leo) hw = leo;
  if (hw < logStart) hw = logStart;
  const log: UnifiedLog = new UnifiedLog(
    {
      topic: p.topic,
      partition: p.partition,
      dir,
      topicId,
      local,
      producers,
      snapshots,
      epochs,
      logStartOffset: logStart,
      highWatermark: hw,
      metadataSynced: p.created !== true,
    },
    env,
  );
  if (logStart > leo) await log.truncateFullyAndStartAt(logStart);
  return { log, report };
}

/** A brand-new, empty log in the (just created, empty) directory `p.dir`. */
export async function createNewLog(p: LoadLogParams & { topicId: string }): Promise<UnifiedLog> {
  const { dir, env, config } = p;
  const limits = {
    indexIntervalBytes: config.indexIntervalBytes,
    segmentIndexBytes: config.segmentIndexBytes,
  };
  await writePartitionMetadata(dir, p.topicId, true);
  const segment = await LogSegment.create(dir, 0n, env.cache, limits, env.now(), true);
  const epochs = LeaderEpochCache.empty(join(dir, LEADER_EPOCH_CHECKPOINT_FILE));
  const producers = new ProducerStateManager();
  const local = new LocalLog(dir, [segment], 0n, 0n, config, env.cache, new TailCache(env.tailBudget), {
    onRoll: (offset) => (p.owner ?? log).snapshotForRoll(offset),
    onWritten: () => (p.owner ?? log).notify(),
    beforeRecoveryPoint: (newSegment) => (p.owner ?? log).persistMetadata(newSegment),
    onFailure: (err) => {
      env.onError(err, `log ${dir}`);
      env.onStorageFailure?.(p.owner ?? log, err);
    },
    now: env.now,
  });
  const log: UnifiedLog = new UnifiedLog(
    {
      topic: p.topic,
      partition: p.partition,
      dir,
      topicId: p.topicId,
      local,
      producers,
      snapshots: new ProducerSnapshots(dir, []),
      epochs,
      logStartOffset: 0n,
      highWatermark: 0n,
      metadataSynced: false,
    },
    env,
  );
  return log;
}

/**
 * After a clean shutdown: check the batches after the last index entry of the last segment
 * (a valid index points at a valid batch) to learn the log end offset.
 */
async function recoverTail(
  seg: LogSegment,
  local: LocalLog,
  epochs: LeaderEpochCache,
): Promise<{ validEnd: number; problem: string | null }> {
  const lastEntry = seg.offsetIndex.entries > 0 ? seg.offsetIndex.lookup(2n ** 62n) : { position: 0 };
  let next = seg.baseOffset;
  const result = await local.cache.with(seg.file, (fd) =>
    scanSegment(fd, lastEntry.position, seg.size, { verifyCrc: true }, (buf, pos) => {
      const base = buf.readBigInt64BE(pos);
      const lastOffset = lastOffsetOf(buf, pos);
      if (lastOffset < base || base < next) return false;
      const epoch = leaderEpochOf(buf, pos);
      if (epoch > epochs.latestEpoch) epochs.assign(epoch, base);
      const ts = maxTimestampOf(buf, pos);
      if (ts > seg.maxTimestamp) {
        seg.maxTimestamp = ts;
        seg.offsetOfMaxTimestamp = lastOffset;
      }
      next = lastOffset + 1n;
      return true;
    }),
  );
  seg.nextOffset = next > seg.baseOffset ? next : seg.nextOffset;
  seg.trustedUpTo = result.validEnd;
  if (result.problem !== null) {
    seg.offsetIndex.truncateToPosition(result.validEnd);
    seg.timeIndex.truncateToOffset(next);
  }
  return result;
}

/** Rebuilds leader epochs from the batch headers of the first `count` segments (checkpoint was corrupt). */
async function rebuildEpochs(local: LocalLog, epochs: LeaderEpochCache, count: number): Promise<void> {
  for (const seg of local.segments.slice(0, count)) {
    await local.cache.with(seg.file, (fd) =>
      scanSegment(fd, 0, seg.size, { verifyCrc: false }, (buf, pos) => {
        const epoch = leaderEpochOf(buf, pos);
        if (epoch > epochs.latestEpoch) epochs.assign(epoch, buf.readBigInt64BE(pos));
        return true;
      }),
    );
  }
}
