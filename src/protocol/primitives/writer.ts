// Encoder with a growable scratch buffer and a chunk list. Small values are copied into the
// scratch buffer; byte fields of at least ZERO_COPY_MIN bytes (record batches) are referenced
// as their own chunk, so a Fetch response carrying megabytes of records costs no copy. Growing
// never copies either: the filled part of the scratch buffer becomes a chunk and a new scratch
// buffer starts. `finish()` hands the chunks to `socket.cork()` + `write` (or `writev`).

import { EncodeError } from './errors.js';
import { uvarintSize, writeUVarint, writeVarlong, writeVarlongNumber, zigzag32 } from './varint.js';

/** Byte fields at least this long are referenced instead of copied. */
export const ZERO_COPY_MIN = 1024;

const MIN_SCRATCH = 512;
const MAX_SCRATCH = 1 << 20;
const INT16_MAX = 0x7fff;
const INT32_MAX = 0x7fffffff;
const TWO_POW_32 = 4294967296;
const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/** Position of a reserved int32 size prefix, see `Writer.beginSize`. */
export interface SizeMark {
  readonly buf: Buffer;
  readonly offset: number;
  /** `Writer.length` just after the reserved 4 bytes. */
  readonly start: number;
}

export class Writer {
  private buf: Buffer;
  private pos = 0;
  /** Start of the part of `buf` not yet moved to `chunks`. */
  private segStart = 0;
  private readonly chunks: Buffer[] = [];
  private chunksLength = 0;
  private scratchSize: number;

  constructor(initialSize = MIN_SCRATCH) {
    this.scratchSize = Math.max(64, initialSize);
    this.buf = Buffer.allocUnsafe(this.scratchSize);
  }

  /** Total bytes written so far. */
  get length(): number {
    return this.chunksLength + this.pos - this.segStart;
  }

  /** Makes room for `n` contiguous bytes in the scratch buffer. */
  private ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    this.flushSegment();
    this.scratchSize = Math.min(MAX_SCRATCH, this.scratchSize * 2);
    this.buf = Buffer.allocUnsafe(Math.max(this.scratchSize, n));
    this.pos = 0;
    this.segStart = 0;
  }

  private flushSegment(): void {
    if (this.pos > this.segStart) {
      this.chunks.push(this.buf.subarray(this.segStart, this.pos));
      this.chunksLength += this.pos - this.segStart;
      this.segStart = this.pos;
    }
  }

  // ---- fixed-width ---------------------------------------------------------------------------

  int8(v: number): void {
    this.ensure(1);
    this.buf[this.pos++] = v & 0xff;
  }

  bool(v: boolean): void {
    this.ensure(1);
    this.buf[this.pos++] = v ? 1 : 0;
  }

  int16(v: number): void {
    this.ensure(2);
    const p = this.pos;
    this.buf[p] = (v >>> 8) & 0xff;
    this.buf[p + 1] = v & 0xff;
    this.pos = p + 2;
  }

  uint16(v: number): void {
    this.int16(v);
  }

  int32(v: number): void {
    this.ensure(4);
    const p = this.pos;
    const b = this.buf;
    b[p] = (v >>> 24) & 0xff;
    b[p + 1] = (v >>> 16) & 0xff;
    b[p + 2] = (v >>> 8) & 0xff;
    b[p + 3] = v & 0xff;
    this.pos = p + 4;
  }

  uint32(v: number): void {
    this.int32(v);
  }

  int64(v: bigint): void {
    this.ensure(8);
    const p = this.pos;
    // Offsets, timestamps and ids are almost always safe integers: split them into two 32-bit
    // halves with plain arithmetic, which is several times cheaper than writeBigInt64BE.
    const n = Number(v);
    if (n <= MAX_SAFE && n >= -MAX_SAFE) {
      const hi = Math.floor(n / TWO_POW_32);
      const lo = n - hi * TWO_POW_32;
      const b = this.buf;
      b[p] = (hi >>> 24) & 0xff;
      b[p + 1] = (hi >>> 16) & 0xff;
      b[p + 2] = (hi >>> 8) & 0xff;
      b[p + 3] = hi & 0xff;
      b[p + 4] = lo >>> 24;
      b[p + 5] = (lo >>> 16) & 0xff;
      b[p + 6] = (lo >>> 8) & 0xff;
      b[p + 7] = lo & 0xff;
    } else {
      this.buf.writeBigInt64BE(v, p);
    }
    this.pos = p + 8;
  }

  float64(v: number): void {
    this.ensure(8);
    this.buf.writeDoubleBE(v, this.pos);
    this.pos += 8;
  }

  /** A uuid in Kafka's text form (22 chars of URL-safe base64) as 16 bytes. */
  uuid(v: string): void {
    this.ensure(16);
    if (v.length !== 22 || this.buf.write(v, this.pos, 16, 'base64url') !== 16) {
      throw new EncodeError('INVALID_UUID', `not a Kafka uuid: ${JSON.stringify(v)}`);
    }
    this.pos += 16;
  }

  // ---- varints -------------------------------------------------------------------------------

  uvarint(v: number): void {
    this.ensure(5);
    this.pos = writeUVarint(this.buf, this.pos, v);
  }

  varint(v: number): void {
    this.ensure(5);
    this.pos = writeUVarint(this.buf, this.pos, zigzag32(v));
  }

  varlong(v: bigint): void {
    this.ensure(10);
    this.pos = writeVarlong(this.buf, this.pos, v);
  }

  varlongNumber(v: number): void {
    this.ensure(10);
    this.pos = writeVarlongNumber(this.buf, this.pos, v);
  }

  // ---- strings -------------------------------------------------------------------------------

  /** Classic STRING / NULLABLE_STRING: int16 length (-1 = null). */
  string(v: string): void {
    const maxBytes = v.length * 3;
    if (maxBytes <= INT16_MAX) {
      // Reserve the 2-byte length, encode once, then patch the length in.
      this.ensure(2 + maxBytes);
      const p = this.pos;
      const n = this.buf.write(v, p + 2);
      this.buf[p] = n >>> 8;
      this.buf[p + 1] = n & 0xff;
      this.pos = p + 2 + n;
      return;
    }
    const n = Buffer.byteLength(v, 'utf8');
    if (n > INT16_MAX) throw new EncodeError('STRING_TOO_LONG', `string of ${n} bytes exceeds 32767`);
    this.int16(n);
    this.ensure(n);
    this.pos += this.buf.write(v, this.pos);
  }

  nullableString(v: string | null): void {
    if (v === null) this.int16(-1);
    else this.string(v);
  }

  /** COMPACT_STRING: uvarint N+1. */
  compactString(v: string): void {
    const maxBytes = v.length * 3;
    if (maxBytes < 0x7f) {
      this.ensure(1 + maxBytes);
      const p = this.pos;
      const n = this.buf.write(v, p + 1);
      this.buf[p] = n + 1;
      this.pos = p + 1 + n;
      return;
    }
    const n = Buffer.byteLength(v, 'utf8');
    if (n > INT16_MAX) throw new EncodeError('STRING_TOO_LONG', `string of ${n} bytes exceeds 32767`);
    this.uvarint(n + 1);
    this.ensure(n);
    this.pos += this.buf.write(v, this.pos);
  }

  compactNullableString(v: string | null): void {
    if (v === null) this.uvarint(0);
    else this.compactString(v);
  }

  // ---- bytes ---------------------------------------------------------------------------------

  /** Appends raw bytes: copied when small, referenced when at least ZERO_COPY_MIN long. */
  raw(b: Uint8Array): void {
    const n = b.length;
    if (n >= ZERO_COPY_MIN) {
      this.flushSegment();
      this.chunks.push(Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, n));
      this.chunksLength += n;
      return;
    }
    this.ensure(n);
    this.buf.set(b, this.pos);
    this.pos += n;
  }

  bytes(b: Uint8Array): void {
    if (b.length > INT32_MAX) throw new EncodeError('BYTES_TOO_LONG', 'bytes longer than 2^31-1');
    this.int32(b.length);
    this.raw(b);
  }

  nullableBytes(b: Uint8Array | null): void {
    if (b === null) this.int32(-1);
    else this.bytes(b);
  }

  compactBytes(b: Uint8Array): void {
    if (b.length >= INT32_MAX) throw new EncodeError('BYTES_TOO_LONG', 'bytes longer than 2^31-2');
    this.uvarint(b.length + 1);
    this.raw(b);
  }

  compactNullableBytes(b: Uint8Array | null): void {
    if (b === null) this.uvarint(0);
    else this.compactBytes(b);
  }

  // ---- arrays and tags -----------------------------------------------------------------------

  /** Classic array count; `null` arrays are written as -1. */
  arrayLength(n: number): void {
    this.int32(n);
  }

  /** Compact array count: N+1, or 0 for null (pass -1). */
  compactArrayLength(n: number): void {
    this.uvarint(n + 1);
  }

  /** Writes one tagged field whose value was encoded into `value` (a child Writer). */
  taggedField(tag: number, value: Writer): void {
    this.uvarint(tag);
    this.uvarint(value.length);
    for (const c of value.finish()) this.raw(c);
  }

  // ---- size prefixes -------------------------------------------------------------------------

  /** Reserves an int32 size prefix; `endSize` patches it with the bytes written since. */
  beginSize(): SizeMark {
    this.ensure(4);
    const mark = { buf: this.buf, offset: this.pos, start: this.length + 4 };
    this.pos += 4;
    return mark;
  }

  endSize(mark: SizeMark): void {
    mark.buf.writeInt32BE(this.length - mark.start, mark.offset);
  }

  // ---- output --------------------------------------------------------------------------------

  /** The encoded bytes as a list of chunks (for `writev`/`cork`). The writer stays usable. */
  finish(): Buffer[] {
    this.flushSegment();
    return this.chunks.slice();
  }

  /** The encoded bytes as one Buffer (copies when there is more than one chunk). */
  toBuffer(): Buffer {
    const chunks = this.finish();
    if (chunks.length === 1) return chunks[0]!;
    return Buffer.concat(chunks, this.chunksLength);
  }
}

/** Bytes a COMPACT_STRING length prefix takes for `byteLength` bytes. */
export function compactLengthSize(byteLength: number): number {
  return uvarintSize(byteLength + 1);
}
