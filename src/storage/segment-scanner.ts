// Sequential scan of a `.log` file batch by batch, reading large chunks so that recovering a
// 1 GiB segment costs a few hundred reads, not one per batch. Each batch is checked for framing
// (length, magic) and, optionally, its CRC; the scan stops at the first torn or invalid batch
// and reports where the valid prefix ends. A callback per batch (not an async iterator) keeps
// the per-batch cost to a plain function call.
import {
  CURRENT_MAGIC,
  LENGTH_OFFSET,
  LOG_OVERHEAD,
  MAGIC_OFFSET,
  RECORD_BATCH_OVERHEAD,
  verifyBatchCrc,
} from '../protocol/record-batch/header.js';
import { readInto } from './fs-util.js';

export interface ScanOptions {
  /** Verify each batch's CRC-32C (recovery); header-only scans skip it. */
  verifyCrc: boolean;
  /** Read size; grows automatically for batches larger than it. Default 1 MiB. */
  chunkSize?: number;
  /** Largest batch accepted before the scan calls it corrupt. Default 64 MiB + overhead. */
  maxBatchSize?: number;
}

/**
 * Called per valid batch: `buf[pos, pos + size)` is the whole batch, at `filePosition` in the
 * file. The buffer is reused for the next chunk, so copy what must outlive the call. Return
 * false to stop the scan there (the batch is then counted as invalid).
 */
export type BatchVisitor = (
  buf: Buffer,
  pos: number,
  size: number,
  filePosition: number,
) => boolean | undefined;

export interface ScanResult {
  /** File position after the last valid batch. */
  validEnd: number;
  /** Why the scan stopped before `end`, or null when it reached it cleanly. */
  problem: string | null;
}

/** Checks framing and (optionally) CRC of the batch at `pos`; returns a reason or null. */
export function checkBatch(
  buf: Buffer,
  pos: number,
  avail: number,
  verifyCrc: boolean,
  maxSize: number,
): string | null | 'partial' {
  if (avail < LOG_OVERHEAD) return 'partial';
  const size = LOG_OVERHEAD + buf.readInt32BE(pos + LENGTH_OFFSET);
  if (size < RECORD_BATCH_OVERHEAD) return `batch length ${size} below the minimum ${RECORD_BATCH_OVERHEAD}`;
  if (size > maxSize) return `batch length ${size} above the maximum ${maxSize}`;
  if (avail < size) return 'partial';
  const magic = buf.readInt8(pos + MAGIC_OFFSET);
  if (magic !== CURRENT_MAGIC) return `unsupported magic ${magic}`;
  if (verifyCrc && !verifyBatchCrc(buf, pos)) return 'CRC mismatch';
  return null;
}

export async function scanSegment(
  fd: number,
  start: number,
  end: number,
  options: ScanOptions,
  visit: BatchVisitor,
): Promise<ScanResult> {
  const maxSize = options.maxBatchSize ?? 64 * 1024 * 1024 + RECORD_BATCH_OVERHEAD;
  let chunk = Buffer.allocUnsafeSlow(
    Math.min(Math.max(options.chunkSize ?? 1 << 20, 4096), Math.max(end - start, 4096)),
  );
  let filePos = start;
  while (filePos < end) {
    const want = Math.min(chunk.length, end - filePos);
    const view = want === chunk.length ? chunk : chunk.subarray(0, want);
    const n = await readInto(fd, view, filePos);
    if (n === 0) return { validEnd: filePos, problem: `file ends at ${filePos}, expected ${end}` };
    let pos = 0;
    while (pos < n) {
      const verdict = checkBatch(chunk, pos, n - pos, options.verifyCrc, maxSize);
      if (verdict === 'partial') break;
      if (verdict !== null) return { validEnd: filePos + pos, problem: verdict };
      const size = LOG_OVERHEAD + chunk.readInt32BE(pos + LENGTH_OFFSET);
      if (visit(chunk, pos, size, filePos + pos) === false) {
        return { validEnd: filePos + pos, problem: 'batch rejected by the scan' };
      }
      pos += size;
    }
    if (pos === 0) {
      // Not even one batch fits in what we read: the batch is larger than the chunk (grow) or
      // the file ends inside it (torn tail).
      if (n < want || filePos + n >= end)
        return { validEnd: filePos, problem: 'truncated batch at end of file' };
      const size = n >= LOG_OVERHEAD ? LOG_OVERHEAD + chunk.readInt32BE(LENGTH_OFFSET) : 0;
      if (size <= chunk.length) return { validEnd: filePos, problem: 'unreadable batch' };
      chunk = Buffer.allocUnsafeSlow(size);
      continue;
    }
    filePos += pos;
  }
  return { validEnd: filePos, problem: null };
}
