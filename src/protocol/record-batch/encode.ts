// RecordBatch v2 encoder. The layout is fully determined by the inputs, so for the same records
// and header fields the bytes equal those of Kafka's MemoryRecordsBuilder (and kafkajs's
// encoder). Two passes over the records: the first sizes every record, the second writes into
// one exactly-sized buffer; there are no per-record allocations.
import {
  type CompressionName,
  type CompressOptions,
  codecId,
  compress,
  compressSync,
} from '../compression/index.js';
import { crc32c } from '../crc32c.js';
import { invalidRecord, RecordBatchError } from './errors.js';
import {
  ATTRIBUTES_OFFSET,
  CONTROL_FLAG_MASK,
  CRC_OFFSET,
  CRC_START,
  CURRENT_MAGIC,
  LOG_OVERHEAD,
  NO_PARTITION_LEADER_EPOCH,
  NO_PRODUCER_EPOCH,
  NO_SEQUENCE,
  RECORD_BATCH_OVERHEAD,
  TIMESTAMP_TYPE_MASK,
  TRANSACTIONAL_FLAG_MASK,
} from './header.js';
import { sizeOfUnsigned, sizeOfVarint, sizeOfVarlong, writeVarint, writeVarlong } from './varint.js';

export interface RecordHeaderInput {
  key: string;
  value: Uint8Array | null;
}

export interface RecordInput {
  /** null or undefined = null key. */
  key?: Uint8Array | null;
  /** null or undefined = null value (a tombstone). */
  value?: Uint8Array | null;
  headers?: readonly RecordHeaderInput[];
  /** Milliseconds since the epoch; default: `options.timestamp`, else the time of encoding. */
  timestamp?: bigint | number;
  /** Default: the record's index. Must increase strictly through the batch. */
  offsetDelta?: number;
}

export interface EncodeBatchOptions {
  baseOffset?: bigint | number;
  /** Default −1 (Java's NO_PARTITION_LEADER_EPOCH); the leader overwrites it on append. */
  partitionLeaderEpoch?: number;
  compression?: CompressionName | number;
  /** Snappy: write xerial framing; zstd: level. */
  compressionOptions?: CompressOptions;
  /** Default −1 (not idempotent). */
  producerId?: bigint | number;
  producerEpoch?: number;
  baseSequence?: number;
  transactional?: boolean;
  isControl?: boolean;
  timestampType?: 'CreateTime' | 'LogAppendTime' | 0 | 1;
  /** Timestamp for records without one (default `Date.now()` at encoding). */
  timestamp?: bigint | number;
}

/** What the second pass needs from the first. Reused scratch, so sizing allocates nothing. */
let bodySizes = new Int32Array(1024);

interface Plan {
  recordsSize: number;
  baseTimestamp: number;
  maxTimestamp: number;
  lastOffsetDelta: number;
  defaultTimestamp: number;
}

function toMs(t: bigint | number): number {
  const n = typeof t === 'number' ? t : Number(t);
  if (!Number.isSafeInteger(n)) throw invalidRecord(`timestamp ${t} is not a safe integer`);
  return n;
}

function plan(records: readonly RecordInput[], options: EncodeBatchOptions): Plan {
  const n = records.length;
  if (bodySizes.length < n) bodySizes = new Int32Array(Math.max(n, bodySizes.length * 2));
  const defaultTimestamp = toMs(options.timestamp ?? Date.now());
  const first = records[0];
  const baseTimestamp =
    n === 0 ? -1 : first!.timestamp === undefined ? defaultTimestamp : toMs(first!.timestamp);
  let maxTimestamp = n === 0 ? -1 : baseTimestamp;
  let prevDelta = -1;
  let total = 0;
  for (let i = 0; i < n; i++) {
    const r = records[i]!;
    const ts = r.timestamp === undefined ? defaultTimestamp : toMs(r.timestamp);
    if (ts > maxTimestamp) maxTimestamp = ts;
    const delta = r.offsetDelta ?? i;
    if (!(delta > prevDelta && delta <= 0x7fffffff) || delta !== (delta | 0)) {
      throw invalidRecord(`offsetDelta ${delta} of record ${i} must be an int32 above ${prevDelta}`);
    }
    prevDelta = delta;
    const key = r.key;
    const value = r.value;
    let body = 1 + sizeOfVarlong(ts - baseTimestamp) + sizeOfVarint(delta);
    body += key == null ? 1 : sizeOfUnsigned(key.length * 2) + key.length;
    body += value == null ? 1 : sizeOfUnsigned(value.length * 2) + value.length;
    const headers = r.headers;
    if (headers === undefined || headers.length === 0) {
      body += 1;
    } else {
      body += sizeOfVarint(headers.length);
      for (let h = 0; h < headers.length; h++) {
        const hd = headers[h]!;
        const kl = Buffer.byteLength(hd.key, 'utf8');
        body += sizeOfVarint(kl) + kl;
        body += hd.value == null ? 1 : sizeOfVarint(hd.value.length) + hd.value.length;
      }
    }
    bodySizes[i] = body;
    total += sizeOfVarint(body) + body;
  }
  if (!Number.isSafeInteger(maxTimestamp - baseTimestamp) && n > 0)
    throw invalidRecord('timestamp range too wide');
  return { recordsSize: total, baseTimestamp, maxTimestamp, lastOffsetDelta: prevDelta, defaultTimestamp };
}

function writeRecords(records: readonly RecordInput[], p: Plan, buf: Buffer, start: number): number {
  let pos = start;
  const base = p.baseTimestamp;
  for (let i = 0, n = records.length; i < n; i++) {
    const r = records[i]!;
    pos = writeVarint(buf, pos, bodySizes[i]!);
    buf[pos++] = 0; // record attributes: unused
    const ts =
      r.timestamp === undefined
        ? p.defaultTimestamp
        : typeof r.timestamp === 'number'
          ? r.timestamp
          : Number(r.timestamp);
    pos = writeVarlong(buf, pos, ts - base);
    pos = writeVarint(buf, pos, r.offsetDelta ?? i);
    const key = r.key;
    if (key == null)
      buf[pos++] = 1; // varint −1
    else {
      pos = writeVarint(buf, pos, key.length);
      buf.set(key, pos);
      pos += key.length;
    }
    const value = r.value;
    if (value == null) buf[pos++] = 1;
    else {
      pos = writeVarint(buf, pos, value.length);
      buf.set(value, pos);
      pos += value.length;
    }
    const headers = r.headers;
    if (headers === undefined || headers.length === 0) buf[pos++] = 0;
    else {
      pos = writeVarint(buf, pos, headers.length);
      for (let h = 0; h < headers.length; h++) {
        const hd = headers[h]!;
        const kl = Buffer.byteLength(hd.key, 'utf8');
        pos = writeVarint(buf, pos, kl);
        pos += buf.write(hd.key, pos, kl, 'utf8');
        const hv = hd.value;
        if (hv == null) buf[pos++] = 1;
        else {
          pos = writeVarint(buf, pos, hv.length);
          buf.set(hv, pos);
          pos += hv.length;
        }
      }
    }
  }
  return pos;
}

function attributesOf(options: EncodeBatchOptions, codec: number): number {
  let a = codec;
  const tt = options.timestampType;
  if (tt === 'LogAppendTime' || tt === 1) a |= TIMESTAMP_TYPE_MASK;
  if (options.transactional) a |= TRANSACTIONAL_FLAG_MASK;
  if (options.isControl) a |= CONTROL_FLAG_MASK;
  return a;
}

/** Writes the 61-byte header into `buf` (whose records area is already in place) and the CRC. */
function finishBatch(
  buf: Buffer,
  options: EncodeBatchOptions,
  codec: number,
  p: Plan,
  count: number,
): Buffer {
  buf.writeBigInt64BE(BigInt(options.baseOffset ?? 0), 0);
  buf.writeInt32BE(buf.length - LOG_OVERHEAD, 8);
  buf.writeInt32BE(options.partitionLeaderEpoch ?? NO_PARTITION_LEADER_EPOCH, 12);
  buf[16] = CURRENT_MAGIC;
  buf.writeInt16BE(attributesOf(options, codec), ATTRIBUTES_OFFSET);
  buf.writeInt32BE(p.lastOffsetDelta, 23);
  buf.writeBigInt64BE(BigInt(p.baseTimestamp), 27);
  buf.writeBigInt64BE(BigInt(p.maxTimestamp), 35);
  buf.writeBigInt64BE(BigInt(options.producerId ?? -1), 43);
  buf.writeInt16BE(options.producerEpoch ?? NO_PRODUCER_EPOCH, 51);
  buf.writeInt32BE(options.baseSequence ?? NO_SEQUENCE, 53);
  buf.writeInt32BE(count, 57);
  buf.writeUInt32BE(crc32c(buf.subarray(CRC_START)), CRC_OFFSET);
  return buf;
}

function resolveCodec(options: EncodeBatchOptions): number {
  const codec = codecId(options.compression ?? 0);
  if (codec < 0) {
    throw new RecordBatchError('UNSUPPORTED_COMPRESSION_TYPE', `unknown compression ${options.compression}`);
  }
  return codec;
}

function encodeUncompressed(records: readonly RecordInput[], options: EncodeBatchOptions, p: Plan): Buffer {
  const buf = Buffer.allocUnsafe(RECORD_BATCH_OVERHEAD + p.recordsSize);
  writeRecords(records, p, buf, RECORD_BATCH_OVERHEAD);
  return finishBatch(buf, options, 0, p, records.length);
}

function withCompressed(
  compressed: Buffer,
  options: EncodeBatchOptions,
  codec: number,
  p: Plan,
  n: number,
): Buffer {
  const buf = Buffer.allocUnsafe(RECORD_BATCH_OVERHEAD + compressed.length);
  compressed.copy(buf, RECORD_BATCH_OVERHEAD);
  return finishBatch(buf, options, codec, p, n);
}

function recordsArea(records: readonly RecordInput[], p: Plan): Buffer {
  const raw = Buffer.allocUnsafe(p.recordsSize);
  writeRecords(records, p, raw, 0);
  return raw;
}

/**
 * Encodes one RecordBatch v2 (the whole entry, BaseOffset field first). Throws RecordBatchError
 * INVALID_RECORD for unusable input (non-increasing offset deltas, non-integer timestamps) and
 * UNSUPPORTED_COMPRESSION_TYPE for an unknown codec.
 */
export async function encodeRecordBatch(
  records: readonly RecordInput[],
  options: EncodeBatchOptions = {},
): Promise<Buffer> {
  const codec = resolveCodec(options);
  const p = plan(records, options);
  if (codec === 0) return encodeUncompressed(records, options, p);
  const compressed = await compress(codec, recordsArea(records, p), options.compressionOptions);
  return withCompressed(compressed, options, codec, p, records.length);
}

/** Synchronous `encodeRecordBatch` for none/gzip/snappy/lz4; zstd throws (async-only library). */
export function encodeRecordBatchSync(
  records: readonly RecordInput[],
  options: EncodeBatchOptions = {},
): Buffer {
  const codec = resolveCodec(options);
  const p = plan(records, options);
  if (codec === 0) return encodeUncompressed(records, options, p);
  const compressed = compressSync(codec, recordsArea(records, p), options.compressionOptions);
  return withCompressed(compressed, options, codec, p, records.length);
}
