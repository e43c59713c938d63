// Builds one RecordBatch v2 in place: records are encoded straight into a buffer sized for
// batch.size, leaving room for the 61-byte header, so the hot path allocates nothing per record
// beyond what the caller passed in. The header fields that depend on send time (producer id,
// epoch, base sequence) and the CRC are written by `seal()` when the batch is drained, because
// under idempotence sequences are assigned at drain and reassigned after an epoch bump.
// Layout: CLIENTS.md §2.1 (DefaultRecordBatch / DefaultRecord).
import { crc32c } from '../../protocol/crc32c.js';

export const BATCH_HEADER_SIZE = 61;

export type HeaderValue = string | Buffer | null;
export type RecordHeaders = Record<string, HeaderValue> | ReadonlyArray<readonly [string, HeaderValue]>;

export function varintSize(v: number): number {
  // zig-zag, int32 range
  let u = ((v << 1) ^ (v >> 31)) >>> 0;
  let n = 1;
  while (u >= 0x80) {
    u >>>= 7;
    n++;
  }
  return n;
}

/** Size of a zig-zag varlong for a safe-integer number (timestamp deltas). */
export function varlongSize(v: number): number {
  let u = v >= 0 ? v * 2 : -v * 2 - 1;
  let n = 1;
  while (u >= 128) {
    u = Math.floor(u / 128);
    n++;
  }
  return n;
}

function writeVarint(buf: Buffer, off: number, v: number): number {
  let u = ((v << 1) ^ (v >> 31)) >>> 0;
  while (u >= 0x80) {
    buf[off++] = (u & 0x7f) | 0x80;
    u >>>= 7;
  }
  buf[off++] = u;
  return off;
}

function writeVarlong(buf: Buffer, off: number, v: number): number {
  let u = v >= 0 ? v * 2 : -v * 2 - 1;
  while (u >= 128) {
    buf[off++] = (u % 128) | 0x80;
    u = Math.floor(u / 128);
  }
  buf[off++] = u;
  return off;
}

function toBytes(v: HeaderValue | undefined): Buffer | null {
  if (v === null || v === undefined) return null;
  return typeof v === 'string' ? Buffer.from(v) : v;
}

function headerEntries(h: RecordHeaders | undefined): [Buffer, Buffer | null][] | null {
  if (h === undefined) return null;
  const list: [Buffer, Buffer | null][] = [];
  const pairs = Array.isArray(h) ? h : Object.entries(h as Record<string, HeaderValue>);
  for (const [k, v] of pairs as Iterable<readonly [string, HeaderValue]>)
    list.push([Buffer.from(k), toBytes(v)]);
  return list.length === 0 ? null : list;
}

export interface EncodedHeaders {
  list: [Buffer, Buffer | null][] | null;
  size: number;
}

/** Converts user headers once, so size estimation and encoding share the work. */
const NO_HEADERS: EncodedHeaders = Object.freeze({ list: null, size: 1 });

export function encodeHeaders(h: RecordHeaders | undefined): EncodedHeaders {
  if (h === undefined) return NO_HEADERS;
  const list = headerEntries(h);
  if (list === null) return NO_HEADERS;
  let size = varintSize(list.length);
  for (const [k, v] of list) {
    size += varintSize(k.length) + k.length + (v === null ? 1 : varintSize(v.length) + v.length);
  }
  return { list, size };
}

/** Upper bound of one record's encoded size, used to size a new batch for an oversized record. */
export function recordSizeUpperBound(
  key: Buffer | null,
  value: Buffer | null,
  headers: EncodedHeaders,
): number {
  const k = key === null ? 1 : 5 + key.length;
  const v = value === null ? 1 : 5 + value.length;
  return 5 + 1 + 10 + 5 + k + v + headers.size;
}

export class BatchBuilder {
  buf: Buffer;
  /** Write position (end of the last record). */
  size = BATCH_HEADER_SIZE;
  count = 0;
  baseTimestamp = 0;
  maxTimestamp = -1;

  /** `buf` may come from the accumulator's free list; otherwise a new buffer of `capacity`. */
  constructor(capacity: number, buf?: Buffer) {
    this.buf = buf ?? Buffer.allocUnsafe(Math.max(capacity, BATCH_HEADER_SIZE + 64));
  }

  get capacity(): number {
    return this.buf.length;
  }

  /**
   * Appends a record if it fits; returns false (and writes nothing) if it does not. A batch
   * always accepts its first record: the caller sizes the buffer for it.
   */
  tryAppend(timestamp: number, key: Buffer | null, value: Buffer | null, headers: EncodedHeaders): boolean {
    if (this.count === 0) this.baseTimestamp = timestamp;
    const tsDelta = timestamp - this.baseTimestamp;
    const offsetDelta = this.count;
    const keyLen = key === null ? -1 : key.length;
    const valueLen = value === null ? -1 : value.length;
    const bodySize =
      1 +
      varlongSize(tsDelta) +
      varintSize(offsetDelta) +
      varintSize(keyLen) +
      Math.max(keyLen, 0) +
      varintSize(valueLen) +
      Math.max(valueLen, 0) +
      headers.size;
    const total = varintSize(bodySize) + bodySize;
    if (this.size + total > this.buf.length) {
      if (this.count > 0) return false;
      const bigger = Buffer.allocUnsafe(BATCH_HEADER_SIZE + total);
      this.buf = bigger;
    }
    const buf = this.buf;
    let off = writeVarint(buf, this.size, bodySize);
    buf[off++] = 0; // record attributes (unused)
    off = writeVarlong(buf, off, tsDelta);
    off = writeVarint(buf, off, offsetDelta);
    off = writeVarint(buf, off, keyLen);
    // TypedArray#set: Buffer#copy adds argument checks and a subarray around the same call.
    if (keyLen > 0) {
      buf.set(key!, off);
      off += keyLen;
    }
    off = writeVarint(buf, off, valueLen);
    if (valueLen > 0) {
      buf.set(value!, off);
      off += valueLen;
    }
    if (headers.list === null) buf[off++] = 0;
    else {
      off = writeVarint(buf, off, headers.list.length);
      for (const [k, v] of headers.list) {
        off = writeVarint(buf, off, k.length);
        off += k.copy(buf, off);
        if (v === null) off = writeVarint(buf, off, -1);
        else {
          off = writeVarint(buf, off, v.length);
          off += v.copy(buf, off);
        }
      }
    }
    this.size = off;
    this.count++;
    if (timestamp > this.maxTimestamp) this.maxTimestamp = timestamp;
    return true;
  }

  /** Continues in `buf` (at least as large), which receives the bytes written so far. */
  moveTo(buf: Buffer): void {
    buf.set(this.buf.subarray(0, this.size), 0);
    this.buf = buf;
  }

  /** The encoded records (no header), e.g. as input for compression. */
  records(): Buffer {
    return this.buf.subarray(BATCH_HEADER_SIZE, this.size);
  }
}

export interface SealOptions {
  producerId: bigint;
  producerEpoch: number;
  baseSequence: number;
  transactional: boolean;
}

/**
 * Writes the fixed header of a batch whose records area (compressed or not) already follows
 * the first 61 bytes of `batch`, then the CRC-32C. Cheap enough to run again after a sequence
 * or epoch change.
 */
export function sealBatch(
  batch: Buffer,
  count: number,
  codec: number,
  baseTimestamp: number,
  maxTimestamp: number,
  o: SealOptions,
): void {
  batch.writeBigInt64BE(0n, 0); // base offset: assigned by the leader
  batch.writeInt32BE(batch.length - 12, 8);
  batch.writeInt32BE(-1, 12); // partition leader epoch: set by the leader
  batch.writeInt8(2, 16); // magic
  batch.writeInt16BE(codec | (o.transactional ? 0x10 : 0), 21);
  batch.writeInt32BE(count - 1, 23);
  batch.writeBigInt64BE(BigInt(baseTimestamp), 27);
  batch.writeBigInt64BE(BigInt(maxTimestamp), 35);
  batch.writeBigInt64BE(o.producerId, 43);
  batch.writeInt16BE(o.producerEpoch, 51);
  batch.writeInt32BE(o.baseSequence, 53);
  batch.writeInt32BE(count, 57);
  batch.writeUInt32BE(crc32c(batch.subarray(21)), 17);
}
