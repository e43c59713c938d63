// Deleting whole segments: time- and size-based retention (`retention.ms`, `retention.bytes`,
// delete policy only) and segments left entirely below the log start offset (DeleteRecords,
// any policy). Only inactive segments entirely below the high watermark go; an expired active
// segment is rolled so that the next pass can delete it. Files are renamed `.deleted` and
// removed after `file.delete.delay.ms`, so reads in flight keep working.
import { isDeleteRetained } from './log-config.js';
import type { LogSegment } from './log-segment.js';
import type { UnifiedLog } from './unified-log.js';

export async function deleteSegments(log: UnifiedLog, doomed: readonly LogSegment[]): Promise<void> {
  if (doomed.length === 0) return;
  log.local.detachSegments(doomed);
  log.advanceLogStartOffset(log.local.segments[0]!.baseOffset);
  for (const seg of doomed) {
    await seg.markDeleted();
    log.env.scheduleDelete(seg, log.config.fileDeleteDelayMs);
  }
  await log.snapshots.deleteBelow(log.logStartOffset);
}

export async function deleteSegmentsBelowLogStart(log: UnifiedLog): Promise<number> {
  const segs = log.local.segments;
  const doomed: LogSegment[] = [];
  for (let i = 0; i + 1 < segs.length; i++) {
    if (segs[i + 1]!.baseOffset <= log.logStartOffset) doomed.push(segs[i]!);
    else break;
  }
  await deleteSegments(log, doomed);
  return doomed.length;
}

/** One retention pass; the caller holds the log's maintenance lock. Returns segments deleted. */
export async function applyRetention(log: UnifiedLog): Promise<number> {
  let deleted = await deleteSegmentsBelowLogStart(log);
  const cfg = log.config;
  if (!isDeleteRetained(cfg)) return deleted;
  const now = BigInt(log.env.now());
  const segs = log.local.segments;
  let excess = cfg.retentionBytes >= 0 ? log.local.size - cfg.retentionBytes : -1;
  const doomed: LogSegment[] = [];
  for (let i = 0; i < segs.length; i++) {
    const seg = segs[i]!;
    const isActive = i === segs.length - 1;
    const upper = isActive ? log.local.logEndOffset : segs[i + 1]!.baseOffset;
    if (upper > log.highWatermark || seg.size === 0) break;
    const expired = cfg.retentionMs >= 0 && (await seg.largestTimestamp()) < now - BigInt(cfg.retentionMs);
    const oversize = excess >= 0 && excess - seg.size >= 0;
    if (!expired && !oversize) break;
    if (isActive) {
      if (expired) log.local.roll();
      break;
    }
    doomed.push(seg);
    excess -= seg.size;
  }
  await deleteSegments(log, doomed);
  deleted += doomed.length;
  return deleted;
}
