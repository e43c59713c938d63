// Legacy message sets, magic 0 and 1 (CLIENTS.md §2.6, Kafka's LegacyRecord.java and
// AbstractLegacyRecordBatch.java), decoded into the same record shape as v2 batches.
//   entry   := Offset int64, MessageSize int32, Message
//   Message := CRC uint32 (CRC-32 IEEE of Magic..end), Magic int8, Attributes int8,
//              [Timestamp int64, v1 only], Key bytes (int32 length, −1 = null), Value bytes
// Compression wraps a whole inner message set in the Value of one message. Inner offsets are
// absolute in v0 and relative (0..n−1) in v1, where the wrapper's offset is that of the *last*
// inner message. Only one level of nesting is legal.
import zlib from 'node:zlib';
import {
  CompressionError,
  decompress,
  decompressSync,
  fixLegacyLz4HeaderChecksum,
} from '../compression/index.js';
import type { DecodedRecord, DecodeOptions } from './decode.js';
import { corrupt, RecordBatchError } from './errors.js';
import { LOG_OVERHEAD, NO_TIMESTAMP, TIMESTAMP_TYPE_MASK } from './header.js';
import { iterateBatches } from './iterate.js';

/** One parsed legacy message (the entry's Offset field included). */
export interface LegacyMessage {
  offset: bigint;
  magic: number;
  attributes: number;
  timestamp: bigint;
  key: Buffer | null;
  value: Buffer | null;
}

function readBytes(buf: Buffer, pos: number, end: number, what: string): Buffer | null {
  if (pos + 4 > end) throw corrupt(`legacy message truncated before its ${what} length`);
  const len = buf.readInt32BE(pos);
  if (len === -1) return null;
  if (len < 0 || pos + 4 + len > end) throw corrupt(`legacy message ${what} length ${len} out of bounds`);
  return buf.subarray(pos + 4, pos + 4 + len);
}

/**
 * Parses and CRC-checks the message of the entry at `pos` (entry size `size`, as
 * `iterateBatches` yields it). Throws RecordBatchError CORRUPT_MESSAGE.
 */
export function parseLegacyMessage(
  buf: Buffer,
  pos: number,
  size: number,
  verifyCrc: boolean,
): LegacyMessage {
  const end = pos + size;
  const magic = buf.readInt8(pos + 16);
  if (magic !== 0 && magic !== 1)
    throw corrupt(`expected a legacy message (magic 0 or 1), found magic ${magic}`);
  if (verifyCrc) {
    const stored = buf.readUInt32BE(pos + LOG_OVERHEAD);
    const actual = zlib.crc32(buf.subarray(pos + 16, end)) >>> 0;
    if (stored !== actual) throw corrupt(`legacy message CRC mismatch: stored ${stored}, computed ${actual}`);
  }
  const attributes = buf.readInt8(pos + 17);
  let p = pos + 18;
  let timestamp = NO_TIMESTAMP;
  if (magic === 1) {
    timestamp = buf.readBigInt64BE(p);
    p += 8;
  }
  const key = readBytes(buf, p, end, 'key');
  p += 4 + (key?.length ?? 0);
  const value = readBytes(buf, p, end, 'value');
  p += 4 + (value?.length ?? 0);
  if (p !== end) throw corrupt(`legacy message has ${end - p} bytes after its value`);
  return { offset: buf.readBigInt64BE(pos), magic, attributes, timestamp, key, value };
}

function toRecord(m: LegacyMessage, offset: bigint, timestamp: bigint): DecodedRecord {
  return { offset, timestamp, key: m.key, value: m.value, headers: [] };
}

/**
 * The codec and compressed payload of a wrapper message (lz4 of magic 0 repaired). Throws
 * UNSUPPORTED_COMPRESSION_TYPE for codecs above 3, CORRUPT_MESSAGE for a null value.
 */
export function legacyCompressedPayload(wrapper: LegacyMessage): { codec: number; data: Uint8Array } {
  const codec = wrapper.attributes & 0x07;
  if (codec > 3) {
    throw new RecordBatchError(
      'UNSUPPORTED_COMPRESSION_TYPE',
      `codec ${codec} is not valid for magic ${wrapper.magic}`,
    );
  }
  if (wrapper.value === null) throw corrupt('compressed legacy wrapper message has a null value');
  // lz4 in magic 0 has the KAFKA-3160 frame-descriptor checksum; repair it before decoding.
  const data = codec === 3 && wrapper.magic === 0 ? fixLegacyLz4HeaderChecksum(wrapper.value) : wrapper.value;
  return { codec, data };
}

/** Expands a wrapper's decompressed inner message set into records. */
function innerRecords(wrapper: LegacyMessage, inner: Buffer, verifyCrc: boolean, out: DecodedRecord[]): void {
  const messages: LegacyMessage[] = [];
  let consumed = 0;
  for (const e of iterateBatches(inner)) {
    const m = parseLegacyMessage(inner, e.position, e.size, verifyCrc);
    if ((m.attributes & 0x07) !== 0) throw corrupt('nested compression in a legacy message set');
    if (m.magic !== wrapper.magic)
      throw corrupt(`inner message magic ${m.magic} in a magic ${wrapper.magic} wrapper`);
    messages.push(m);
    consumed = e.position + e.size;
  }
  if (consumed !== inner.length) throw corrupt('truncated inner message set in a compressed legacy message');
  if (messages.length === 0) throw corrupt('compressed legacy message with no inner messages');
  const logAppendTime = wrapper.magic === 1 && (wrapper.attributes & TIMESTAMP_TYPE_MASK) !== 0;
  // v1: inner offsets are relative and the wrapper carries the absolute offset of the last one.
  const base = wrapper.magic === 0 ? 0n : wrapper.offset - messages[messages.length - 1]!.offset;
  for (const m of messages)
    out.push(toRecord(m, base + m.offset, logAppendTime ? wrapper.timestamp : m.timestamp));
}

function rethrow(err: unknown): never {
  if (err instanceof CompressionError) throw new RecordBatchError(err.errorName, err.message, { cause: err });
  throw err;
}

/**
 * Decodes a buffer of magic 0/1 entries (a truncated tail is ignored, as in a fetch response).
 * Throws RecordBatchError: CORRUPT_MESSAGE for bad CRCs, lengths and nesting, or a magic 2
 * entry (decode those with `decodeRecordBatch`).
 */
export async function decodeLegacyMessageSet(buf: Buffer, options?: DecodeOptions): Promise<DecodedRecord[]> {
  const verify = options?.verifyCrc !== false;
  const out: DecodedRecord[] = [];
  for (const e of iterateBatches(buf)) {
    const m = parseLegacyMessage(buf, e.position, e.size, verify);
    if ((m.attributes & 0x07) === 0) {
      out.push(toRecord(m, m.offset, m.timestamp));
      continue;
    }
    const { codec, data } = legacyCompressedPayload(m);
    let inner: Buffer;
    try {
      inner = await decompress(codec, data, { maxSize: options?.maxDecompressedSize });
    } catch (err) {
      rethrow(err);
    }
    innerRecords(m, inner, verify, out);
  }
  return out;
}

/** Synchronous `decodeLegacyMessageSet` (legacy codecs all have sync implementations). */
export function decodeLegacyMessageSetSync(buf: Buffer, options?: DecodeOptions): DecodedRecord[] {
  const verify = options?.verifyCrc !== false;
  const out: DecodedRecord[] = [];
  for (const e of iterateBatches(buf)) {
    const m = parseLegacyMessage(buf, e.position, e.size, verify);
    if ((m.attributes & 0x07) === 0) {
      out.push(toRecord(m, m.offset, m.timestamp));
      continue;
    }
    const { codec, data } = legacyCompressedPayload(m);
    let inner: Buffer;
    try {
      inner = decompressSync(codec, data, { maxSize: options?.maxDecompressedSize });
    } catch (err) {
      rethrow(err);
    }
    innerRecords(m, inner, verify, out);
  }
  return out;
}
