// Async walk over every batch of a segment for work that must await per batch (decompression
// in the cleaner). Reads in large chunks; each callback gets a buffer holding exactly one
// CRC-checked batch, valid until its promise settles. A corrupt batch stops the walk with a
// KafkaError rather than let its bytes be copied anywhere.
import { ErrorCode, KafkaError } from '../protocol/errors.js';
import { LENGTH_OFFSET, LOG_OVERHEAD } from '../protocol/record-batch/header.js';
import type { FileHandleCache } from './file-handle-cache.js';
import { readInto } from './fs-util.js';
import type { LogSegment } from './log-segment.js';
import { checkBatch } from './segment-scanner.js';

const CHUNK = 1 << 20;
const MAX_BATCH = 64 * 1024 * 1024 + 61;

export async function forEachBatch(
  cache: FileHandleCache,
  seg: LogSegment,
  visit: (batch: Buffer) => Promise<void>,
): Promise<void> {
  const end = seg.size;
  let chunk = Buffer.allocUnsafeSlow(Math.min(CHUNK, Math.max(end, LOG_OVERHEAD)));
  let filePos = 0;
  while (filePos < end) {
    const want = Math.min(chunk.length, end - filePos);
    const n = await cache.with(seg.file, (fd) => readInto(fd, chunk.subarray(0, want), filePos));
    let pos = 0;
    while (pos < n) {
      const verdict = checkBatch(chunk, pos, n - pos, true, MAX_BATCH);
      if (verdict === 'partial') break;
      if (verdict !== null) {
        throw new KafkaError(ErrorCode.CORRUPT_MESSAGE, `${seg.file.path} at ${filePos + pos}: ${verdict}`);
      }
      const size = LOG_OVERHEAD + chunk.readInt32BE(pos + LENGTH_OFFSET);
      await visit(chunk.subarray(pos, pos + size));
      pos += size;
    }
    if (pos === 0) {
      const size = n >= LOG_OVERHEAD ? LOG_OVERHEAD + chunk.readInt32BE(LENGTH_OFFSET) : 0;
      if (n < want || size <= chunk.length || filePos + size > end) {
        throw new KafkaError(ErrorCode.CORRUPT_MESSAGE, `${seg.file.path} at ${filePos}: truncated batch`);
      }
      chunk = Buffer.allocUnsafeSlow(size);
      continue;
    }
    filePos += pos;
  }
}
