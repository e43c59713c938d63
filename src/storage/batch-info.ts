// Decoding the header fields storage needs from a batch in a buffer (scan callbacks, follower
// appends), and feeding them to producer state.

import { ErrorCode, KafkaError } from '../protocol/errors.js';
import { RecordBatchError } from '../protocol/record-batch/errors.js';
import {
  BASE_SEQUENCE_OFFSET,
  type BatchHeader,
  isControl,
  isTransactional,
  LAST_OFFSET_DELTA_OFFSET,
  MAX_TIMESTAMP_OFFSET,
  PARTITION_LEADER_EPOCH_OFFSET,
  PRODUCER_EPOCH_OFFSET,
  PRODUCER_ID_OFFSET,
  RECORDS_COUNT_OFFSET,
} from '../protocol/record-batch/header.js';
import { validateBatch } from '../protocol/record-batch/validate.js';
import { type ControlMarker, readControlMarker } from './control-record.js';
import { toKafkaError } from './log-validator.js';
import type { ProducerBatch } from './producer-state.js';

export function baseOffsetOf(buf: Buffer, pos: number): bigint {
  return buf.readBigInt64BE(pos);
}

export function lastOffsetOf(buf: Buffer, pos: number): bigint {
  return buf.readBigInt64BE(pos) + BigInt(buf.readInt32BE(pos + LAST_OFFSET_DELTA_OFFSET));
}

export function leaderEpochOf(buf: Buffer, pos: number): number {
  return buf.readInt32BE(pos + PARTITION_LEADER_EPOCH_OFFSET);
}

export function maxTimestampOf(buf: Buffer, pos: number): bigint {
  return buf.readBigInt64BE(pos + MAX_TIMESTAMP_OFFSET);
}

export function recordCountOf(buf: Buffer, pos: number): number {
  return buf.readInt32BE(pos + RECORDS_COUNT_OFFSET);
}

export function attributesOf(buf: Buffer, pos: number): number {
  return buf.readInt16BE(pos + 21);
}

/**
 * The producer-state view of a validated leader batch (offsets are filled in once assigned).
 */
export function producerBatchOfHeader(
  h: BatchHeader,
  transactional: boolean,
  marker: ControlMarker | null,
): ProducerBatch {
  return {
    producerId: h.producerId,
    producerEpoch: h.producerEpoch,
    baseSequence: h.baseSequence,
    baseOffset: 0n,
    lastOffset: 0n,
    maxTimestamp: h.maxTimestamp,
    transactional,
    marker,
  };
}

/** The producer-state view of the batch `buf[pos, pos + size)`. */
export function producerBatchOf(buf: Buffer, pos: number, size: number): ProducerBatch {
  const attributes = attributesOf(buf, pos);
  return {
    producerId: buf.readBigInt64BE(pos + PRODUCER_ID_OFFSET),
    producerEpoch: buf.readInt16BE(pos + PRODUCER_EPOCH_OFFSET),
    baseSequence: buf.readInt32BE(pos + BASE_SEQUENCE_OFFSET),
    baseOffset: baseOffsetOf(buf, pos),
    lastOffset: lastOffsetOf(buf, pos),
    maxTimestamp: maxTimestampOf(buf, pos),
    transactional: isTransactional(attributes),
    marker: isControl(attributes) ? readControlMarker(buf, pos, size) : null,
  };
}

export function hasProducer(buf: Buffer, pos: number): boolean {
  return buf.readBigInt64BE(pos + PRODUCER_ID_OFFSET) >= 0n;
}

const FROM_REPLICA = { fromClient: false } as const;

/**
 * Checks the batch at `pos` of a follower's fetched `batches` (framing, CRC, offsets after
 * `nextOffset`, size) and returns its size; 0 for a trailing partial batch, which is ignored as
 * Kafka does. Throws the KafkaError the leader would get.
 */
export function followerBatchAt(
  batches: Buffer,
  pos: number,
  nextOffset: bigint,
  segmentBytes: number,
): number {
  if (batches.length - pos < 61) return 0;
  const size = 12 + batches.readInt32BE(pos + 8);
  if (pos + size > batches.length && size >= 61) return 0;
  const checked = validateBatch(batches, pos, batches.length, FROM_REPLICA);
  if (checked instanceof RecordBatchError) throw toKafkaError(checked);
  const base = baseOffsetOf(batches, pos);
  if (base < nextOffset || lastOffsetOf(batches, pos) < base) {
    throw new KafkaError(
      ErrorCode.INVALID_RECORD,
      `Follower batch at offset ${base} does not follow the log end offset ${nextOffset}`,
    );
  }
  if (size > segmentBytes) {
    throw new KafkaError(ErrorCode.RECORD_LIST_TOO_LARGE, `Batch of ${size} bytes exceeds segment.bytes`);
  }
  return size;
}
