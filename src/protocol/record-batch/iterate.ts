// Walks a buffer of concatenated log entries: RecordBatch v2 and legacy (magic 0/1) messages
// share the `Offset int64, Length int32` prefix and keep the magic byte at offset 16, so one
// loop serves both. A fetch response (and a segment being recovered) may end with a partial
// entry; the walk stops there instead of failing (CLIENTS.md §2.5).
import { corrupt } from './errors.js';
import { LENGTH_OFFSET, LOG_OVERHEAD, MAGIC_OFFSET, RECORD_BATCH_OVERHEAD } from './header.js';

export interface BatchPosition {
  /** Offset of the entry's first byte (its BaseOffset / Offset field) in the buffer. */
  position: number;
  /** Whole entry size, LOG_OVERHEAD included. */
  size: number;
  /** 0, 1 (legacy message) or 2 (RecordBatch); other values are left to the decoder to reject. */
  magic: number;
}

/** Minimum entry sizes (LOG_OVERHEAD included) per magic: v0 14-byte and v1 22-byte message. */
const MIN_ENTRY_SIZE = [LOG_OVERHEAD + 14, LOG_OVERHEAD + 22, RECORD_BATCH_OVERHEAD];

/**
 * Yields every complete entry in `buf[start, end)`. A truncated tail ends the walk silently;
 * a Length too small for its magic throws RecordBatchError CORRUPT_MESSAGE (no valid writer
 * produces one, and skipping it would desynchronise the walk).
 */
export function* iterateBatches(buf: Buffer, start = 0, end: number = buf.length): Generator<BatchPosition> {
  const limit = Math.min(end, buf.length);
  let pos = start;
  while (limit - pos > MAGIC_OFFSET) {
    const size = LOG_OVERHEAD + buf.readInt32BE(pos + LENGTH_OFFSET);
    const magic = buf.readInt8(pos + MAGIC_OFFSET);
    const min = MIN_ENTRY_SIZE[magic] ?? MAGIC_OFFSET + 1;
    if (size < min)
      throw corrupt(`log entry at ${pos} has size ${size}, below the minimum ${min} for magic ${magic}`);
    if (pos + size > limit) return;
    yield { position: pos, size, magic };
    pos += size;
  }
}

/** End position of the last complete entry in `buf[start, end)` (== start if there is none). */
export function completeBatchesEnd(buf: Buffer, start = 0, end: number = buf.length): number {
  let last = start;
  for (const b of iterateBatches(buf, start, end)) last = b.position + b.size;
  return last;
}
