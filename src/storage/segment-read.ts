// Reading whole batches from one segment. The first read is sized from the offset index (the
// indexed position at or before the fetch offset) and `maxBytes`; a second read happens only
// when the wanted batch starts beyond, or is larger than, what the first one covered.
import { LAST_OFFSET_DELTA_OFFSET, LENGTH_OFFSET, RECORD_BATCH_OVERHEAD, verifyBatchCrc } from '../protocol/record-batch/header.js';
import { ErrorCode, KafkaError } from '../protocol/errors.js';
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
}

type Step = { done: Buffer | null } | { start: number; want: number };

function corrupt(seg: LogSegment, position: number, why: string): KafkaError {
  return new KafkaError(ErrorCode.CORRUPT_MESSAGE, `Corrupt batch in ${seg.file.path} at position ${position}: ${why}`);
}

/**
 * Walks `buf` (file bytes from `start`) and decides: return these batches, or read again from
 * another position. `done: null` means the segment holds nothing at or after the fetch offset.
 */
function step(seg: LogSegment, buf: Buffer, start: number, end: number, req: SegmentReadRequest): Step {
  const room = req.maxBytes + req.indexIntervalBytes + RECORD_BATCH_OVERHEAD;
  let pos = 0;
  let first = -1;
  let taken = 0;
  const finish = (): Step => ({ done: buf.subarray(first, first + taken) });
  for (;;) {
    if (start + pos >= end) return first < 0 ? { done: null } : finish();
    if (pos + PREFIX > buf.length) {
      if (taken > 0) return finish();
      return { start: start + pos, want: Math.min(end - start - pos, Math.max(room, PREFIX)) };
    }
    const size = 12 + buf.readInt32BE(pos + LENGTH_OFFSET);
    if (size < RECORD_BATCH_OVERHEAD || start + pos + size > end) {
      if (taken > 0) return finish();
      throw corrupt(seg, start + pos, `batch length ${size}`);
    }
    const last = buf.readBigInt64BE(pos) + BigInt(buf.readInt32BE(pos + LAST_OFFSET_DELTA_OFFSET));
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
    if (start + pos + size > seg.trustedUpTo && !verifyBatchCrc(buf, pos)) {
      if (taken > 0) return finish();
      throw corrupt(seg, start + pos, 'CRC mismatch');
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
  let want = Math.min(end - start, req.maxBytes + req.indexIntervalBytes + RECORD_BATCH_OVERHEAD);
  for (let attempt = 0; start < end; attempt++) {
    const buf = await seg.read(start, Math.max(want, Math.min(PREFIX, end - start)));
    if (buf.length === 0) return null;
    const next = step(seg, buf, start, start + buf.length < end && buf.length < want ? start + buf.length : end, req);
    if ('done' in next) {
      if (next.done !== null && next.done.length > 0) {
        // Every batch from the first returned one on was verified: extend the trusted prefix
        // when it is contiguous with it.
        const firstPos = start + (next.done.byteOffset - buf.byteOffset);
        const endPos = firstPos + next.done.length;
        if (seg.trustedUpTo >= firstPos && endPos > seg.trustedUpTo) seg.trustedUpTo = endPos;
      }
      return next.done;
    }
    start = next.start;
    want = next.want;
  }
  return null;
}
