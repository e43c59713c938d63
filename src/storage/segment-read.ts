// Reading whole batches from one segment. The first read is sized from the offset index (the
// indexed position at or before the fetch offset) and `maxBytes`; a second read happens only
// when the wanted batch starts beyond, or is larger than, what the first one covered.

import { ErrorCode, KafkaError } from '../protocol/errors.js';
import {
  CURRENT_MAGIC,
  LAST_OFFSET_DELTA_OFFSET,
  LENGTH_OFFSET,
  MAGIC_OFFSET,
  RECORD_BATCH_OVERHEAD,
  verifyBatchCrc,
} from '../protocol/record-batch/header.js';
import type { LogSegment } from './log-segment.js';

/** Bytes up to and including LastOffsetDelta: enough to know a batch's size and offsets. */
const PREFIX = LAST_OFFSET_DELTA_OFFSET + 4;

export interface SegmentReadRequest {
  fetchOffset: bigint;
  maxBytes: number;
  upperBound: bigint;
  minOneBatch: boolean;
  /** Bytes between offset-index entries: the most a read may have to skip. */
  indexIntervalBytes: number;
  /** Where the read bytes go (`ReadOptions.allocate`). */
  allocate?: (size: number) => Buffer;
}

type Step = { done: Buffer | null } | { start: number; want: number };

function corrupt(seg: LogSegment, position: number, why: string): KafkaError {
  return new KafkaError(
    ErrorCode.CORRUPT_MESSAGE,
    `Corrupt batch in ${seg.file.path} at position ${position}: ${why}`,
  );
}

/**
 * Walks `buf` (file bytes from `start`) and decides: return these batches, or read again from
 * another position. `done: null` means the segment holds nothing at or after the fetch offset.
 * Batches past `seg.trustedUpTo` (on disk from before this process and not yet checked) are
 * verified before any of their fields is believed: whole batch read, magic, CRC, and offsets
 * that fit the segment (BaseOffset is not covered by the CRC).
 */
function step(seg: LogSegment, buf: Buffer, start: number, end: number, req: SegmentReadRequest): Step {
  const room = req.maxBytes + req.indexIntervalBytes + RECORD_BATCH_OVERHEAD;
  let pos = 0;
  let first = -1;
  let taken = 0;
  let prevLast = seg.baseOffset - 1n;
  const upper = seg.nextOffset > seg.baseOffset ? seg.nextOffset : null;
  const finish = (): Step => ({ done: buf.subarray(first, first + taken) });
  const fail = (why: string): Step => {
    if (taken > 0) return finish();
    throw corrupt(seg, start + pos, why);
  };
  for (;;) {
    if (start + pos >= end) return first < 0 ? { done: null } : finish();
    if (pos + PREFIX > buf.length) {
      if (taken > 0) return finish();
      if (start + pos + PREFIX > end) return fail('batch header cut by the end of the segment');
      return { start: start + pos, want: Math.min(end - start - pos, Math.max(room, PREFIX)) };
    }
    const size = 12 + buf.readInt32BE(pos + LENGTH_OFFSET);
    if (size < RECORD_BATCH_OVERHEAD || start + pos + size > end) return fail(`batch length ${size}`);
    const trusted = start + pos + size <= seg.trustedUpTo;
    if (!trusted) {
      if (pos + size > buf.length) {
        if (taken > 0) return finish();
        return { start: start + pos, want: Math.min(end - start - pos, Math.max(size, room)) };
      }
      if (buf.readInt8(pos + MAGIC_OFFSET) !== CURRENT_MAGIC || !verifyBatchCrc(buf, pos))
        return fail('CRC mismatch');
    }
    const base = buf.readBigInt64BE(pos);
    const last = base + BigInt(buf.readInt32BE(pos + LAST_OFFSET_DELTA_OFFSET));
    if (!trusted) {
      if (base <= prevLast || last < base || (upper !== null && last >= upper))
        return fail(`offsets ${base}..${last} do not fit the segment`);
      if (start + pos === seg.trustedUpTo) seg.trustedUpTo = start + pos + size;
    }
    prevLast = last;
    if (first < 0 && last < req.fetchOffset) {
      pos += size; // before the fetch offset: skip, even if not fully read
      continue;
    }
    if (first < 0) first = pos;
    if (last >= req.upperBound) return finish();
    if (taken + size > req.maxBytes && !(taken === 0 && req.minOneBatch)) return finish();
    if (pos + size > buf.length) {
      if (taken > 0) return finish();
      // The first wanted batch was cut by the read: read from it, at least all of it.
      return { start: start + pos, want: Math.min(end - start - pos, Math.max(size, req.maxBytes)) };
    }
    taken += size;
    pos += size;
  }
}

/** Reads the batches of `req` from `seg`; null when the segment has none at or after the offset. */
export async function readSegment(seg: LogSegment, req: SegmentReadRequest): Promise<Buffer | null> {
  await seg.ensureIndexes();
  const end = seg.size;
  let start = seg.offsetIndex.lookup(req.fetchOffset).position;
  // Size the read from the index: up to the last indexed batch boundary within maxBytes, so the
  // buffer holds whole batches only; without one, maxBytes plus what the index may skip.
  const boundary =
    end - start <= req.maxBytes ? end : seg.offsetIndex.floorPosition(start + req.maxBytes, start);
  let want =
    boundary > start
      ? boundary - start
      : Math.min(end - start, req.maxBytes + req.indexIntervalBytes + RECORD_BATCH_OVERHEAD);
  while (start < end) {
    const buf = await seg.read(start, Math.max(want, Math.min(PREFIX, end - start)), req.allocate);
    if (buf.length === 0) return null;
    const next = step(
      seg,
      buf,
      start,
      start + buf.length < end && buf.length < want ? start + buf.length : end,
      req,
    );
    if ('done' in next) return next.done;
    // Each step must make progress; anything else means the file changed under us.
    if (next.start < start || (next.start === start && next.want <= want))
      throw corrupt(seg, start, 'unreadable batch');
    start = next.start;
    want = next.want;
  }
  return null;
}
