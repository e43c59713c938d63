// ListOffsets by timestamp: the first record whose timestamp is ≥ the target (Kafka's
// findOffsetByTimestamp), and the record holding the largest timestamp (MAX_TIMESTAMP, KIP-734).
// The time index narrows the scan to a few batches; only the one batch found is decoded.
import { decodeRecordBatch } from '../protocol/record-batch/decode.js';
import { lastOffsetOf, leaderEpochOf, maxTimestampOf } from './batch-info.js';
import type { LeaderEpochCache } from './leader-epoch-cache.js';
import type { LocalLog } from './local-log.js';
import type { LogSegment } from './log-segment.js';
import { scanSegment } from './segment-scanner.js';
import { EARLIEST_TIMESTAMP, LATEST_TIMESTAMP, MAX_TIMESTAMP, type TimestampOffset } from './types.js';

/** Copies the first batch at or after `fromPosition` in `seg` that satisfies `want`. */
async function findBatch(
  local: LocalLog,
  seg: LogSegment,
  fromPosition: number,
  want: (buf: Buffer, pos: number) => boolean,
): Promise<Buffer | null> {
  let found: Buffer | null = null;
  await local.cache.with(seg.file, (fd) =>
    scanSegment(fd, fromPosition, seg.size, { verifyCrc: false, chunkSize: 256 * 1024 }, (buf, pos, size) => {
      if (!want(buf, pos)) return true;
      found = Buffer.from(buf.subarray(pos, pos + size));
      return false;
    }),
  );
  return found;
}

async function firstRecordAtOrAfter(
  batch: Buffer,
  timestamp: bigint,
  minOffset: bigint,
): Promise<TimestampOffset | null> {
  const cursor = await decodeRecordBatch(batch, { verifyCrc: true });
  while (cursor.next()) {
    if (cursor.timestamp >= timestamp && cursor.offset >= minOffset) {
      return { offset: cursor.offset, timestamp: cursor.timestamp, leaderEpoch: leaderEpochOf(batch, 0) };
    }
  }
  return null;
}

export async function offsetForTimestamp(
  local: LocalLog,
  timestamp: bigint,
  logStartOffset: bigint,
): Promise<TimestampOffset | null> {
  const segments = local.segments;
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i]!;
    const next = segments[i + 1];
    if (seg.size === 0 || (next !== undefined && next.baseOffset <= logStartOffset)) continue;
    if ((await seg.largestTimestamp()) < timestamp) continue;
    await seg.ensureIndexes();
    if (seg.maxTimestamp < timestamp) continue;
    let from = seg.timeIndex.lookup(timestamp);
    if (from < logStartOffset) from = logStartOffset;
    const position = seg.offsetIndex.lookup(from).position;
    const batch = await findBatch(
      local,
      seg,
      position,
      (buf, pos) => lastOffsetOf(buf, pos) >= logStartOffset && maxTimestampOf(buf, pos) >= timestamp,
    );
    if (batch === null) continue;
    const hit = await firstRecordAtOrAfter(batch, timestamp, logStartOffset);
    if (hit !== null) return hit;
  }
  return null;
}

/** The record with the largest timestamp (first such record), or null for an empty log. */
export async function offsetOfMaxTimestamp(
  local: LocalLog,
  logStartOffset: bigint,
): Promise<TimestampOffset | null> {
  let best: LogSegment | null = null;
  let bestTs = -1n;
  for (const seg of local.segments) {
    if (seg.size === 0) continue;
    const ts = await seg.largestTimestamp();
    if (ts > bestTs || best === null) {
      best = seg;
      bestTs = ts;
    }
  }
  if (best === null) return null;
  await best.ensureIndexes();
  const target = best.maxTimestamp;
  const batch = await findBatch(
    local,
    best,
    0,
    (buf, pos) => maxTimestampOf(buf, pos) >= target && lastOffsetOf(buf, pos) >= logStartOffset,
  );
  if (batch === null) return null;
  return firstRecordAtOrAfter(batch, target, logStartOffset);
}

/**
 * ListOffsets for one log: the special timestamps (latest, earliest, max) or the first record at
 * or after `timestamp`; null for other negative timestamps.
 */
export async function listOffset(
  local: LocalLog,
  epochs: LeaderEpochCache,
  logStartOffset: bigint,
  timestamp: bigint,
): Promise<TimestampOffset | null> {
  if (timestamp === LATEST_TIMESTAMP) {
    return { offset: local.logEndOffset, timestamp: -1n, leaderEpoch: epochs.latestEpoch };
  }
  if (timestamp === EARLIEST_TIMESTAMP) {
    return { offset: logStartOffset, timestamp: -1n, leaderEpoch: epochs.epochForOffset(logStartOffset) };
  }
  if (timestamp === MAX_TIMESTAMP) return offsetOfMaxTimestamp(local, logStartOffset);
  if (timestamp < 0n) return null;
  return offsetForTimestamp(local, timestamp, logStartOffset);
}
