// Decoding the header fields storage needs from a batch in a buffer (scan callbacks, follower
// appends), and feeding them to producer state.
import {
  BASE_SEQUENCE_OFFSET,
  isControl,
  isTransactional,
  LAST_OFFSET_DELTA_OFFSET,
  MAX_TIMESTAMP_OFFSET,
  PARTITION_LEADER_EPOCH_OFFSET,
  PRODUCER_EPOCH_OFFSET,
  PRODUCER_ID_OFFSET,
  RECORDS_COUNT_OFFSET,
} from '../protocol/record-batch/header.js';
import { readControlMarker } from './control-record.js';
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
