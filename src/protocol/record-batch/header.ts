// RecordBatch v2 header layout and in-place access (CLIENTS.md §2.1, Kafka's
// DefaultRecordBatch.java). Storage and the produce path work on raw batch bytes: they read
// the header, validate it, and patch BaseOffset / PartitionLeaderEpoch in place without
// re-encoding anything.
import { crc32c } from '../crc32c.js';

export const BASE_OFFSET_OFFSET = 0;
export const LENGTH_OFFSET = 8;
export const PARTITION_LEADER_EPOCH_OFFSET = 12;
export const MAGIC_OFFSET = 16;
export const CRC_OFFSET = 17;
export const ATTRIBUTES_OFFSET = 21;
export const LAST_OFFSET_DELTA_OFFSET = 23;
export const BASE_TIMESTAMP_OFFSET = 27;
export const MAX_TIMESTAMP_OFFSET = 35;
export const PRODUCER_ID_OFFSET = 43;
export const PRODUCER_EPOCH_OFFSET = 51;
export const BASE_SEQUENCE_OFFSET = 53;
export const RECORDS_COUNT_OFFSET = 57;
export const RECORDS_OFFSET = 61;

/** Size of a batch header, i.e. of an empty batch. */
export const RECORD_BATCH_OVERHEAD = 61;
/** BaseOffset + Length: the prefix every log entry (v0, v1, v2) shares. */
export const LOG_OVERHEAD = 12;
/** The CRC covers Attributes .. end of batch. */
export const CRC_START = ATTRIBUTES_OFFSET;
export const CURRENT_MAGIC = 2;

export const COMPRESSION_CODEC_MASK = 0x07;
export const TIMESTAMP_TYPE_MASK = 0x08;
export const TRANSACTIONAL_FLAG_MASK = 0x10;
export const CONTROL_FLAG_MASK = 0x20;
export const DELETE_HORIZON_FLAG_MASK = 0x40;

export const NO_PRODUCER_ID = -1n;
export const NO_PRODUCER_EPOCH = -1;
export const NO_SEQUENCE = -1;
export const NO_PARTITION_LEADER_EPOCH = -1;
export const NO_TIMESTAMP = -1n;

export const TimestampType = { CREATE_TIME: 0, LOG_APPEND_TIME: 1 } as const;
export type TimestampTypeId = (typeof TimestampType)[keyof typeof TimestampType];

export interface BatchHeader {
  baseOffset: bigint;
  /** Bytes after the Length field; the whole batch is `LOG_OVERHEAD + length` bytes. */
  length: number;
  partitionLeaderEpoch: number;
  magic: number;
  /** Stored CRC-32C, unsigned. */
  crc: number;
  attributes: number;
  lastOffsetDelta: number;
  baseTimestamp: bigint;
  maxTimestamp: bigint;
  producerId: bigint;
  producerEpoch: number;
  baseSequence: number;
  recordCount: number;
}

/**
 * Reads the 61-byte header at `pos`. The caller guarantees `pos + 61 <= buf.length` (use
 * `validateBatch` for untrusted input); this performs no semantic checks.
 */
export function readBatchHeader(buf: Buffer, pos = 0): BatchHeader {
  return {
    baseOffset: readInt64(buf, pos + BASE_OFFSET_OFFSET),
    length: buf.readInt32BE(pos + LENGTH_OFFSET),
    partitionLeaderEpoch: buf.readInt32BE(pos + PARTITION_LEADER_EPOCH_OFFSET),
    magic: buf.readInt8(pos + MAGIC_OFFSET),
    crc: buf.readUInt32BE(pos + CRC_OFFSET),
    attributes: buf.readInt16BE(pos + ATTRIBUTES_OFFSET),
    lastOffsetDelta: buf.readInt32BE(pos + LAST_OFFSET_DELTA_OFFSET),
    baseTimestamp: readInt64(buf, pos + BASE_TIMESTAMP_OFFSET),
    maxTimestamp: readInt64(buf, pos + MAX_TIMESTAMP_OFFSET),
    producerId: readInt64(buf, pos + PRODUCER_ID_OFFSET),
    producerEpoch: buf.readInt16BE(pos + PRODUCER_EPOCH_OFFSET),
    baseSequence: buf.readInt32BE(pos + BASE_SEQUENCE_OFFSET),
    recordCount: buf.readInt32BE(pos + RECORDS_COUNT_OFFSET),
  };
}

const TWO_32 = 0x1_0000_0000;

/**
 * A big-endian int64 (`readBigInt64BE`'s value) with one BigInt conversion, and none for 0 and
 * -1 (a producer's BaseOffset, "no producer id"): `readBigInt64BE` builds each value from two
 * BigInts, a shift and an add, four heap numbers for every field of every produced batch.
 */
export function readInt64(buf: Buffer, pos: number): bigint {
  const hi = buf.readInt32BE(pos);
  const lo = buf.readUInt32BE(pos + 4);
  if (hi === 0 && lo === 0) return 0n;
  if (hi === -1 && lo === 0xffffffff) return -1n;
  // |value| < 2^53: the number is exact.
  if (hi >= -0x20_0000 && hi < 0x20_0000) return BigInt(hi * TWO_32 + lo);
  return (BigInt(hi) << 32n) | BigInt(lo);
}

/** `writeBigInt64BE` without BigInt arithmetic for values a number holds exactly. */
export function writeInt64(buf: Buffer, value: bigint, pos: number): void {
  const n = Number(value);
  if (!Number.isSafeInteger(n)) {
    buf.writeBigInt64BE(value, pos);
    return;
  }
  const hi = Math.floor(n / TWO_32);
  buf.writeInt32BE(hi, pos);
  buf.writeUInt32BE(n - hi * TWO_32, pos + 4);
}

/** Size in bytes of the whole batch at `pos` (LOG_OVERHEAD + Length). */
export function batchSize(buf: Buffer, pos = 0): number {
  return LOG_OVERHEAD + buf.readInt32BE(pos + LENGTH_OFFSET);
}

export function compressionOf(attributes: number): number {
  return attributes & COMPRESSION_CODEC_MASK;
}

export function isTransactional(attributes: number): boolean {
  return (attributes & TRANSACTIONAL_FLAG_MASK) !== 0;
}

export function isControl(attributes: number): boolean {
  return (attributes & CONTROL_FLAG_MASK) !== 0;
}

export function timestampTypeOf(attributes: number): TimestampTypeId {
  return attributes & TIMESTAMP_TYPE_MASK ? TimestampType.LOG_APPEND_TIME : TimestampType.CREATE_TIME;
}

export function hasDeleteHorizon(attributes: number): boolean {
  return (attributes & DELETE_HORIZON_FLAG_MASK) !== 0;
}

/** CRC-32C of Attributes .. end for the batch at `pos` (whose Length must be in bounds). */
export function computeBatchCrc(buf: Buffer, pos = 0): number {
  return crc32c(buf.subarray(pos + CRC_START, pos + batchSize(buf, pos)));
}

/** True if the stored CRC matches the batch bytes (the batch must lie within `buf`). */
export function verifyBatchCrc(buf: Buffer, pos = 0): boolean {
  return computeBatchCrc(buf, pos) === buf.readUInt32BE(pos + CRC_OFFSET);
}

/** Rewrites BaseOffset in place. Not covered by the CRC, so nothing else changes. */
export function setBaseOffset(buf: Buffer, pos: number, baseOffset: bigint): void {
  writeInt64(buf, baseOffset, pos + BASE_OFFSET_OFFSET);
}

/** Rewrites PartitionLeaderEpoch in place. Not covered by the CRC. */
export function setPartitionLeaderEpoch(buf: Buffer, pos: number, epoch: number): void {
  buf.writeInt32BE(epoch, pos + PARTITION_LEADER_EPOCH_OFFSET);
}

/**
 * For topics with `message.timestamp.type=LogAppendTime`: sets MaxTimestamp to the broker's
 * append time, sets the timestamp-type attribute bit, and recomputes the CRC (both fields are
 * covered by it), as Kafka's `DefaultRecordBatch.setMaxTimestamp` does.
 */
export function setMaxTimestampAndLogAppendTime(buf: Buffer, pos: number, timestamp: bigint): void {
  buf.writeBigInt64BE(timestamp, pos + MAX_TIMESTAMP_OFFSET);
  buf.writeInt16BE(buf.readInt16BE(pos + ATTRIBUTES_OFFSET) | TIMESTAMP_TYPE_MASK, pos + ATTRIBUTES_OFFSET);
  buf.writeUInt32BE(computeBatchCrc(buf, pos), pos + CRC_OFFSET);
}
