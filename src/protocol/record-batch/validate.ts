// Structural validation of an untrusted RecordBatch v2 (the produce path and log recovery).
// Mirrors the checks of Kafka's DefaultRecordBatch.ensureValid and LogValidator: framing and
// checksum problems are CORRUPT_MESSAGE, semantically impossible headers are INVALID_RECORD.
import { corrupt, invalidRecord, RecordBatchError } from './errors.js';
import {
  type BatchHeader,
  CURRENT_MAGIC,
  compressionOf,
  computeBatchCrc,
  isControl,
  LENGTH_OFFSET,
  LOG_OVERHEAD,
  MAGIC_OFFSET,
  RECORD_BATCH_OVERHEAD,
  readBatchHeader,
} from './header.js';

/** Smallest possible encoded record: 7 one-byte fields (length .. header count). */
export const MIN_RECORD_SIZE = 7;

export interface ValidateOptions {
  /**
   * Apply the rules for batches a client produces (default true): at least one record,
   * RecordsCount = LastOffsetDelta + 1, no control batches, BaseSequence ≥ 0 when a producer id
   * is set. Pass false for batches read back from a log, which compaction may have thinned.
   */
  fromClient?: boolean;
}

/**
 * Validates the batch that starts at `pos` and must end at or before `end`. Returns its header,
 * or a RecordBatchError (never throws for bad input). Does not decompress or walk records; the
 * record decoder bounds-checks those separately.
 */
export function validateBatch(
  buf: Buffer,
  pos: number,
  end: number = buf.length,
  options?: ValidateOptions,
): BatchHeader | RecordBatchError {
  const limit = Math.min(end, buf.length);
  if (limit - pos < LOG_OVERHEAD)
    return corrupt(`truncated batch: ${limit - pos} bytes, need ${LOG_OVERHEAD}`);
  const length = buf.readInt32BE(pos + LENGTH_OFFSET);
  if (length < RECORD_BATCH_OVERHEAD - LOG_OVERHEAD) {
    return corrupt(
      `batch size ${LOG_OVERHEAD + length} is smaller than the minimum ${RECORD_BATCH_OVERHEAD}`,
    );
  }
  if (pos + LOG_OVERHEAD + length > limit) {
    return corrupt(`truncated batch: Length says ${LOG_OVERHEAD + length} bytes, ${limit - pos} available`);
  }
  const magic = buf.readInt8(pos + MAGIC_OFFSET);
  if (magic !== CURRENT_MAGIC) return corrupt(`unsupported batch magic ${magic}, expected ${CURRENT_MAGIC}`);
  const header = readBatchHeader(buf, pos);
  const actualCrc = computeBatchCrc(buf, pos);
  if (actualCrc !== header.crc) {
    return corrupt(`batch CRC mismatch: stored ${header.crc}, computed ${actualCrc}`);
  }
  const codec = compressionOf(header.attributes);
  if (codec > 4)
    return new RecordBatchError('UNSUPPORTED_COMPRESSION_TYPE', `unknown compression codec ${codec}`);
  const count = header.recordCount;
  if (count < 0) return invalidRecord(`negative record count ${count}`);
  if (count > header.lastOffsetDelta + 1) {
    return invalidRecord(`record count ${count} exceeds LastOffsetDelta + 1 = ${header.lastOffsetDelta + 1}`);
  }
  const recordsBytes = LOG_OVERHEAD + length - RECORD_BATCH_OVERHEAD;
  if (codec === 0 && count * MIN_RECORD_SIZE > recordsBytes) {
    return invalidRecord(`record count ${count} cannot fit in ${recordsBytes} bytes of records`);
  }
  if (options?.fromClient !== false) {
    if (count === 0) return invalidRecord('a produced batch must contain at least one record');
    if (count !== header.lastOffsetDelta + 1) {
      return invalidRecord(`record count ${count} != LastOffsetDelta + 1 = ${header.lastOffsetDelta + 1}`);
    }
    if (isControl(header.attributes))
      return invalidRecord('clients are not allowed to write control records');
    if (header.producerId >= 0n && header.baseSequence < 0) {
      return invalidRecord(
        `invalid base sequence ${header.baseSequence} for producer id ${header.producerId}`,
      );
    }
  }
  return header;
}

/** Like `validateBatch` but throws the RecordBatchError. */
export function assertValidBatch(
  buf: Buffer,
  pos: number,
  end?: number,
  options?: ValidateOptions,
): BatchHeader {
  const result = validateBatch(buf, pos, end, options);
  if (result instanceof RecordBatchError) throw result;
  return result;
}
