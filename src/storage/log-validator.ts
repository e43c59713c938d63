// Checks a batch a leader is about to append (Kafka's LogValidator, for v2 batches): framing and
// CRC, exactly one batch, size limits, client/coordinator rules for control batches, record
// structure of uncompressed batches, and CreateTime timestamp bounds. Bad input becomes a
// KafkaError with the code Kafka would answer.
import { ErrorCode, KafkaError } from '../protocol/errors.js';
import { checkRecords, RecordCursor } from '../protocol/record-batch/decode.js';
import { RecordBatchError } from '../protocol/record-batch/errors.js';
import {
  type BatchHeader,
  compressionOf,
  isControl,
  isTransactional,
  LOG_OVERHEAD,
  RECORDS_OFFSET,
  readBatchHeader,
} from '../protocol/record-batch/header.js';
import { validateBatch } from '../protocol/record-batch/validate.js';
import { type ControlMarker, readControlMarker } from './control-record.js';
import type { LogConfig } from './log-config.js';
import type { AppendOrigin } from './types.js';

export interface ValidatedBatch {
  header: BatchHeader;
  transactional: boolean;
  marker: ControlMarker | null;
}

// Option objects of the per-batch checks, allocated once (this runs for every produced batch).
const FROM_CLIENT = { fromClient: true } as const;
const FROM_REPLICA = { fromClient: false } as const;
const SEQUENTIAL_OFFSETS = { sequentialOffsets: true } as const;

export function toKafkaError(err: unknown): KafkaError {
  if (err instanceof KafkaError) return err;
  if (err instanceof RecordBatchError) return new KafkaError(err.code, err.message, { cause: err });
  return new KafkaError(ErrorCode.CORRUPT_MESSAGE, err instanceof Error ? err.message : String(err), {
    cause: err,
  });
}

/**
 * Batches a network thread checked before the event loop saw them (`num.network.threads` > 1),
 * by the request frame's ArrayBuffer: [byteOffset, length] pairs. The frame arrives as a
 * transferred ArrayBuffer, a new object per request that nothing else writes into, so a pair
 * names bytes the thread verified; each pair is good for one check (a second look at the same
 * bytes checks them again).
 */
const verifiedBatches = new WeakMap<ArrayBufferLike, number[]>();
let anyVerified = false;
let skipped = 0;

/** How many appends used a network thread's checks instead of their own (for tests). */
export function batchesCheckedByNetworkThreads(): number {
  return skipped;
}

/** A network thread verified these ranges of `frame` with `checkClientBatch`. */
export function markVerifiedBatches(frame: ArrayBuffer, ranges: number[]): void {
  anyVerified = true;
  verifiedBatches.set(frame, ranges);
}

/** Whether `buf` is exactly a range a network thread verified; the mark is used up. */
function takeVerified(buf: Buffer): boolean {
  const ranges = verifiedBatches.get(buf.buffer);
  if (ranges === undefined) return false;
  for (let i = 0; i < ranges.length; i += 2) {
    if (ranges[i] === buf.byteOffset && ranges[i + 1] === buf.length) {
      ranges[i + 1] = -1;
      skipped++;
      return true;
    }
  }
  return false;
}

/**
 * The config-free checks of a batch a client produced: framing, CRC-32C, exactly one batch, no
 * control batch, and the record walk of uncompressed records. Runs on the event loop, or in a
 * network thread before the frame is handed over (`markVerifiedBatches`).
 */
export function checkClientBatch(buf: Buffer): BatchHeader {
  return checkStructure(buf, 'client');
}

function checkStructure(buf: Buffer, origin: AppendOrigin): BatchHeader {
  const result = validateBatch(buf, 0, buf.length, FROM_CLIENT);
  let header: BatchHeader;
  if (result instanceof RecordBatchError) {
    // Coordinators write control batches; the client rule against them does not apply.
    const controlFromCoordinator =
      origin === 'coordinator' &&
      buf.length >= RECORDS_OFFSET &&
      isControl(buf.readInt16BE(21)) &&
      result.code === ErrorCode.INVALID_RECORD;
    if (!controlFromCoordinator) throw toKafkaError(result);
    const retry = validateBatch(buf, 0, buf.length, FROM_REPLICA);
    if (retry instanceof RecordBatchError) throw toKafkaError(retry);
    header = retry;
  } else header = result;
  if (LOG_OVERHEAD + header.length !== buf.length) {
    throw new KafkaError(
      ErrorCode.INVALID_RECORD,
      'A produce request must carry exactly one record batch per partition',
    );
  }
  // Control batches are checked by the caller (their marker); uncompressed records are walked
  // cheaply; compressed ones are kept as sent (decompressing every produced batch would cost
  // more than the write itself).
  if (!isControl(header.attributes) && compressionOf(header.attributes) === 0) {
    try {
      checkRecords(new RecordCursor(header, buf.subarray(RECORDS_OFFSET)), SEQUENTIAL_OFFSETS);
    } catch (err) {
      throw toKafkaError(err);
    }
  }
  return header;
}

export function validateLeaderBatch(
  buf: Buffer,
  config: LogConfig,
  origin: AppendOrigin,
  nowMs: number,
): ValidatedBatch {
  if (buf.length > config.maxMessageBytes) {
    throw new KafkaError(
      ErrorCode.MESSAGE_TOO_LARGE,
      `Batch of ${buf.length} bytes exceeds max.message.bytes ${config.maxMessageBytes}`,
    );
  }
  if (buf.length > config.segmentBytes) {
    throw new KafkaError(
      ErrorCode.RECORD_LIST_TOO_LARGE,
      `Batch of ${buf.length} bytes exceeds segment.bytes ${config.segmentBytes}`,
    );
  }
  // A batch a network thread verified passed `checkClientBatch` on these very bytes.
  const header =
    anyVerified && origin === 'client' && takeVerified(buf)
      ? readBatchHeader(buf, 0)
      : checkStructure(buf, origin);
  let marker: ControlMarker | null = null;
  if (isControl(header.attributes)) {
    marker = readControlMarker(buf, 0, buf.length);
    if (marker === null || header.recordCount !== 1 || header.producerId < 0n) {
      throw new KafkaError(ErrorCode.INVALID_RECORD, 'Malformed control batch');
    }
  }
  if (config.messageTimestampType === 'CreateTime' && !isControl(header.attributes)) {
    checkTimestamps(header, config, nowMs);
  }
  return { header, transactional: isTransactional(header.attributes), marker };
}

function checkTimestamps(h: BatchHeader, config: LogConfig, nowMs: number): void {
  const before = config.messageTimestampBeforeMaxMs;
  const after = config.messageTimestampAfterMaxMs;
  if (Number.isFinite(before) && h.baseTimestamp >= 0n && BigInt(nowMs) - h.baseTimestamp > BigInt(before)) {
    throw new KafkaError(
      ErrorCode.INVALID_TIMESTAMP,
      `Timestamp ${h.baseTimestamp} is more than ${before} ms before the broker time`,
    );
  }
  if (Number.isFinite(after) && h.maxTimestamp - BigInt(nowMs) > BigInt(after)) {
    throw new KafkaError(
      ErrorCode.INVALID_TIMESTAMP,
      `Timestamp ${h.maxTimestamp} is more than ${after} ms after the broker time`,
    );
  }
}
