// Legacy message-set encoder, magic 0 and 1 (Kafka's MemoryRecordsBuilder with a magic < 2 and
// LegacyRecord.write), for brokers answering old fetchers and for tests speaking old produce
// versions. Layout as `legacy.ts` reads it:
//   uncompressed: one entry per record, Offset = the record's absolute offset;
//   compressed:   one wrapper entry, Offset = the last record's offset, null key, the value the
//                 compressed inner message set; inner offsets absolute (magic 0) or relative to
//                 the first record (magic 1). Wrapper timestamp (magic 1): the LogAppendTime, or
//                 the largest inner timestamp.
// With LogAppendTime (magic 1 only) every message carries the timestamp-type bit and the append
// time, as Kafka writes them. Snappy is written with xerial framing and magic-0 lz4 with the
// KAFKA-3160 header checksum (computed over the frame magic too), as Java writes them, so
// clients of that era read what they expect. zstd does not exist before magic 2.
import zlib from 'node:zlib';
import {
  CompressionCodec,
  type CompressionName,
  codecId,
  compress,
  compressSync,
} from '../compression/index.js';
import { xxhash32 } from '../compression/xxhash32.js';
import { RecordBatchError } from './errors.js';
import { LOG_OVERHEAD, NO_TIMESTAMP, TIMESTAMP_TYPE_MASK } from './header.js';

export interface LegacyRecordInput {
  /** Absolute offset. */
  offset: bigint;
  /** Ignored for magic 0; −1 = no timestamp. */
  timestamp?: bigint;
  key: Uint8Array | null;
  value: Uint8Array | null;
}

export interface LegacyEncodeOptions {
  magic: 0 | 1;
  /** none, gzip, snappy or lz4 (ids 0-3). */
  compression?: CompressionName | number;
  /** Magic 1 only. */
  timestampType?: 'CreateTime' | 'LogAppendTime';
  /** The broker's append time for LogAppendTime. */
  logAppendTime?: bigint;
}

const LZ4_FRAME_MAGIC = 0x184d2204;

/** Message size (after the entry's Offset and Size fields) for a key and value. */
function messageSize(magic: number, key: Uint8Array | null, value: Uint8Array | null): number {
  return 4 + 1 + 1 + (magic === 1 ? 8 : 0) + 4 + (key?.length ?? 0) + 4 + (value?.length ?? 0);
}

/** Writes one entry at `pos`; returns the next position. */
function writeEntry(
  buf: Buffer,
  pos: number,
  offset: bigint,
  magic: number,
  attributes: number,
  timestamp: bigint,
  key: Uint8Array | null,
  value: Uint8Array | null,
): number {
  const size = messageSize(magic, key, value);
  buf.writeBigInt64BE(offset, pos);
  buf.writeInt32BE(size, pos + 8);
  const crcAt = pos + LOG_OVERHEAD;
  let p = crcAt + 4;
  buf.writeInt8(magic, p++);
  buf.writeInt8(attributes, p++);
  if (magic === 1) {
    buf.writeBigInt64BE(timestamp, p);
    p += 8;
  }
  for (const field of [key, value]) {
    if (field === null) {
      buf.writeInt32BE(-1, p);
      p += 4;
    } else {
      buf.writeInt32BE(field.length, p);
      buf.set(field, p + 4);
      p += 4 + field.length;
    }
  }
  buf.writeUInt32BE(zlib.crc32(buf.subarray(crcAt + 4, p)) >>> 0, crcAt);
  return p;
}

function resolve(records: readonly LegacyRecordInput[], options: LegacyEncodeOptions) {
  const codec = codecId(options.compression ?? 0);
  if (codec < 0 || codec > CompressionCodec.LZ4) {
    throw new RecordBatchError(
      'UNSUPPORTED_COMPRESSION_TYPE',
      `compression ${options.compression} does not exist for magic ${options.magic}`,
    );
  }
  if (records.length === 0) throw new RecordBatchError('INVALID_RECORD', 'a message set needs a record');
  const logAppend = options.magic === 1 && options.timestampType === 'LogAppendTime';
  const typeBit = logAppend ? TIMESTAMP_TYPE_MASK : 0;
  const ts = (r: LegacyRecordInput): bigint =>
    options.magic === 0
      ? NO_TIMESTAMP
      : logAppend
        ? (options.logAppendTime ?? NO_TIMESTAMP)
        : (r.timestamp ?? NO_TIMESTAMP);
  return { codec, typeBit, ts, logAppend };
}

/** The uncompressed entries; `relative`: inner offsets of a magic-1 wrapper. */
function plainEntries(
  records: readonly LegacyRecordInput[],
  magic: number,
  typeBit: number,
  ts: (r: LegacyRecordInput) => bigint,
  relative: boolean,
): Buffer {
  let total = 0;
  for (const r of records) total += LOG_OVERHEAD + messageSize(magic, r.key, r.value);
  const buf = Buffer.allocUnsafe(total);
  const base = records[0]!.offset;
  let pos = 0;
  for (const r of records) {
    pos = writeEntry(buf, pos, relative ? r.offset - base : r.offset, magic, typeBit, ts(r), r.key, r.value);
  }
  return buf;
}

/** Kafka < 0.10's lz4 header checksum (KAFKA-3160): xxhash over magic + descriptor. */
function breakLz4HeaderChecksum(frame: Buffer): Buffer {
  if (frame.length < 7 || frame.readUInt32LE(0) !== LZ4_FRAME_MAGIC) return frame;
  const flg = frame[4]!;
  const descEnd = 6 + ((flg & 0x08) !== 0 ? 8 : 0) + ((flg & 0x01) !== 0 ? 4 : 0);
  if (descEnd >= frame.length) return frame;
  frame[descEnd] = (xxhash32(frame, 0, descEnd) >>> 8) & 0xff;
  return frame;
}

function wrap(
  records: readonly LegacyRecordInput[],
  options: LegacyEncodeOptions,
  codec: number,
  typeBit: number,
  ts: (r: LegacyRecordInput) => bigint,
  logAppend: boolean,
  compressed: Buffer,
): Buffer {
  const magic = options.magic;
  const payload =
    codec === CompressionCodec.LZ4 && magic === 0 ? breakLz4HeaderChecksum(compressed) : compressed;
  let timestamp = NO_TIMESTAMP;
  if (logAppend) timestamp = options.logAppendTime ?? NO_TIMESTAMP;
  else for (const r of records) if (ts(r) > timestamp) timestamp = ts(r);
  const out = Buffer.allocUnsafe(LOG_OVERHEAD + messageSize(magic, null, payload));
  const last = records[records.length - 1]!.offset;
  writeEntry(out, 0, last, magic, codec | typeBit, timestamp, null, payload);
  return out;
}

/** Encodes records as a magic 0/1 message set (see the file comment). */
export async function encodeLegacyMessageSet(
  records: readonly LegacyRecordInput[],
  options: LegacyEncodeOptions,
): Promise<Buffer> {
  const { codec, typeBit, ts, logAppend } = resolve(records, options);
  if (codec === 0) return plainEntries(records, options.magic, typeBit, ts, false);
  const inner = plainEntries(records, options.magic, typeBit, ts, options.magic === 1);
  const compressed = await compress(codec, inner, { xerial: true });
  return wrap(records, options, codec, typeBit, ts, logAppend, compressed);
}

/** Synchronous `encodeLegacyMessageSet` (every legacy codec has a sync implementation). */
export function encodeLegacyMessageSetSync(
  records: readonly LegacyRecordInput[],
  options: LegacyEncodeOptions,
): Buffer {
  const { codec, typeBit, ts, logAppend } = resolve(records, options);
  if (codec === 0) return plainEntries(records, options.magic, typeBit, ts, false);
  const inner = plainEntries(records, options.magic, typeBit, ts, options.magic === 1);
  return wrap(records, options, codec, typeBit, ts, logAppend, compressSync(codec, inner, { xerial: true }));
}
