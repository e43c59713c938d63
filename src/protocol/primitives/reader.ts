// Bounds-checked reader over one frame. Every failure is a DecodeError: lengths and counts are
// checked against the bytes left before anything is allocated, strings are validated as UTF-8,
// and `bytes`/`records` return subarrays of the frame (no copy) so record batches travel on
// untouched.

import { isUtf8 } from 'node:buffer';
import { DecodeError } from './errors.js';
import { readUVarint, readVarint, readVarlong, readVarlongNumber } from './varint.js';

/** Kafka's "no id" uuid in its text form (16 zero bytes, URL-safe base64 without padding). */
export const ZERO_UUID = 'AAAAAAAAAAAAAAAAAAAAAA';

/** Shared zero-length buffer (immutable in practice: it has no bytes to change). */
export const EMPTY_BYTES = Buffer.alloc(0);
// Short ASCII strings (topic names, client ids) decode faster in JS than through a native call,
// but only below V8's cons-string length (13): from there on each `+=` adds a node to a chain
// that the first Map lookup of the string (group and member ids, topic names) must flatten into
// a copy. Those are checked in JS and made by one latin1 slice (ASCII is latin1) instead.
const CONCAT_MAX = 12;
const ASCII_FAST_PATH_MAX = 256;

export class Reader {
  buf: Buffer;
  pos: number;
  end: number;

  constructor(buf: Buffer, offset = 0, end = buf.length) {
    if (offset < 0 || end > buf.length || offset > end) {
      throw new DecodeError('TRUNCATED', `bad reader window ${offset}..${end} of ${buf.length}`, offset);
    }
    this.buf = buf;
    this.pos = offset;
    this.end = end;
  }

  get remaining(): number {
    return this.end - this.pos;
  }

  /** Throws TRUNCATED unless `n` more bytes are available. */
  need(n: number): void {
    if (n > this.end - this.pos) {
      throw new DecodeError('TRUNCATED', `need ${n} bytes, ${this.end - this.pos} left`, this.pos);
    }
  }

  skip(n: number): void {
    this.need(n);
    this.pos += n;
  }

  int8(): number {
    if (this.pos >= this.end) this.need(1);
    return this.buf.readInt8(this.pos++);
  }

  bool(): boolean {
    if (this.pos >= this.end) this.need(1);
    return this.buf[this.pos++] !== 0;
  }

  int16(): number {
    const p = this.pos;
    if (p + 2 > this.end) this.need(2);
    this.pos = p + 2;
    const v = (this.buf[p]! << 8) | this.buf[p + 1]!;
    return (v << 16) >> 16;
  }

  uint16(): number {
    const p = this.pos;
    if (p + 2 > this.end) this.need(2);
    this.pos = p + 2;
    return (this.buf[p]! << 8) | this.buf[p + 1]!;
  }

  int32(): number {
    const p = this.pos;
    if (p + 4 > this.end) this.need(4);
    this.pos = p + 4;
    const b = this.buf;
    return (b[p]! << 24) | (b[p + 1]! << 16) | (b[p + 2]! << 8) | b[p + 3]!;
  }

  uint32(): number {
    return this.int32() >>> 0;
  }

  int64(): bigint {
    const p = this.pos;
    if (p + 8 > this.end) this.need(8);
    this.pos = p + 8;
    const b = this.buf;
    const hi = (b[p]! << 24) | (b[p + 1]! << 16) | (b[p + 2]! << 8) | b[p + 3]!;
    // |hi| < 2^21 means the value is a safe integer: one BigInt conversion instead of bigint math.
    if (hi < 0x200000 && hi > -0x200000) {
      const lo = ((b[p + 4]! << 24) | (b[p + 5]! << 16) | (b[p + 6]! << 8) | b[p + 7]!) >>> 0;
      return BigInt(hi * 4294967296 + lo);
    }
    return b.readBigInt64BE(p);
  }

  float64(): number {
    const p = this.pos;
    if (p + 8 > this.end) this.need(8);
    this.pos = p + 8;
    return this.buf.readDoubleBE(p);
  }

  /** 16 bytes rendered as Kafka's text form (URL-safe base64, 22 chars). */
  uuid(): string {
    const p = this.pos;
    if (p + 16 > this.end) this.need(16);
    this.pos = p + 16;
    return this.buf.toString('base64url', p, p + 16);
  }

  uvarint(): number {
    return readUVarint(this);
  }

  varint(): number {
    return readVarint(this);
  }

  varlong(): bigint {
    return readVarlong(this);
  }

  varlongNumber(): number {
    return readVarlongNumber(this);
  }

  // ---- strings -------------------------------------------------------------------------------

  /** Decodes `len` bytes at the current position as UTF-8, rejecting invalid sequences. */
  utf8(len: number): string {
    const start = this.pos;
    if (len > this.end - start) this.need(len);
    const end = start + len;
    const buf = this.buf;
    this.pos = end;
    if (len <= CONCAT_MAX) {
      let s = '';
      for (let i = start; i < end; i++) {
        const c = buf[i]!;
        if (c >= 0x80) return this.utf8Slow(start, end);
        s += String.fromCharCode(c);
      }
      return s;
    }
    if (len <= ASCII_FAST_PATH_MAX) {
      for (let i = start; i < end; i++) if (buf[i]! >= 0x80) return this.utf8Slow(start, end);
      return buf.toString('latin1', start, end);
    }
    return this.utf8Slow(start, end);
  }

  private utf8Slow(start: number, end: number): string {
    if (!isUtf8(this.buf.subarray(start, end))) {
      throw new DecodeError('INVALID_UTF8', 'string is not valid UTF-8', start);
    }
    return this.buf.toString('utf8', start, end);
  }

  /** Classic STRING: int16 length, never null. */
  string(): string {
    const len = this.int16();
    if (len < 0) throw this.nullOrNegative(len, 'string');
    return this.utf8(len);
  }

  /** Classic NULLABLE_STRING: int16 length, -1 = null. */
  nullableString(): string | null {
    const len = this.int16();
    if (len < 0) {
      if (len === -1) return null;
      throw this.negative(len);
    }
    return this.utf8(len);
  }

  compactString(): string {
    const n = this.uvarint();
    if (n === 0) throw new DecodeError('NULL_NOT_ALLOWED', 'non-nullable string is null', this.pos);
    return this.utf8(n - 1);
  }

  compactNullableString(): string | null {
    const n = this.uvarint();
    return n === 0 ? null : this.utf8(n - 1);
  }

  // ---- bytes (subarrays of the frame, never copied) ------------------------------------------

  slice(len: number): Buffer {
    const p = this.pos;
    if (len > this.end - p) this.need(len);
    this.pos = p + len;
    return len === 0 ? EMPTY_BYTES : this.buf.subarray(p, p + len);
  }

  bytes(): Buffer {
    const len = this.int32();
    if (len < 0) throw this.nullOrNegative(len, 'bytes');
    return this.slice(len);
  }

  nullableBytes(): Buffer | null {
    const len = this.int32();
    if (len < 0) {
      if (len === -1) return null;
      throw this.negative(len);
    }
    return this.slice(len);
  }

  compactBytes(): Buffer {
    const n = this.uvarint();
    if (n === 0) throw new DecodeError('NULL_NOT_ALLOWED', 'non-nullable bytes are null', this.pos);
    return this.slice(n - 1);
  }

  compactNullableBytes(): Buffer | null {
    const n = this.uvarint();
    return n === 0 ? null : this.slice(n - 1);
  }

  // ---- arrays ----------------------------------------------------------------------------------

  /**
   * Classic ARRAY count (int32, -1 = null → returned as -1). `minElementSize` is the fewest bytes
   * one element can take; the count is rejected before allocation if it cannot fit in what is left.
   */
  arrayLength(minElementSize: number): number {
    const n = this.int32();
    if (n < 0) {
      if (n === -1) return -1;
      throw this.negative(n);
    }
    this.checkCount(n, minElementSize);
    return n;
  }

  /** COMPACT_ARRAY count (uvarint N+1, 0 = null → -1). */
  compactArrayLength(minElementSize: number): number {
    const n = this.uvarint() - 1;
    if (n > 0) this.checkCount(n, minElementSize);
    return n;
  }

  private checkCount(n: number, minElementSize: number): void {
    if (n * (minElementSize > 0 ? minElementSize : 1) > this.end - this.pos) {
      throw new DecodeError(
        'COUNT_TOO_LARGE',
        `array count ${n} exceeds the ${this.end - this.pos} bytes left`,
        this.pos,
      );
    }
  }

  // ---- tagged fields (KIP-482) ---------------------------------------------------------------

  /** Skips a whole tagged-field section. */
  skipTaggedFields(): void {
    const count = this.uvarint();
    for (let i = 0; i < count; i++) {
      this.uvarint();
      this.skip(this.uvarint());
    }
  }

  /**
   * Narrows the readable window to the next `size` bytes (one tagged field's value) and returns the
   * previous end, to be passed to `endTag`. A value that overruns its declared size is a
   * TRUNCATED error instead of silently eating the next field.
   */
  beginTag(size: number): number {
    this.need(size);
    const saved = this.end;
    this.end = this.pos + size;
    return saved;
  }

  /** Restores the window after a tagged value; bytes the value did not consume are skipped. */
  endTag(savedEnd: number): void {
    this.pos = this.end;
    this.end = savedEnd;
  }

  /** Thrown by generated code for a version it has no layout for. */
  static unsupportedVersion(what: string, version: number): DecodeError {
    return new DecodeError('UNSUPPORTED_VERSION', `${what} has no version ${version}`);
  }

  private negative(len: number): DecodeError {
    return new DecodeError('NEGATIVE_LENGTH', `negative length ${len}`, this.pos);
  }

  private nullOrNegative(len: number, what: string): DecodeError {
    return len === -1
      ? new DecodeError('NULL_NOT_ALLOWED', `non-nullable ${what} is null`, this.pos)
      : this.negative(len);
  }
}
