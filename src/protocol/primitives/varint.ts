// Kafka's variable-length integers (ByteUtils.java): unsigned base-128 (compact lengths, tag
// buffers) and zig-zag signed varint/varlong (record fields). Shared by the message codecs and
// the record-batch code, so everything works on a plain cursor `{ buf, pos, end }` (a Reader is
// one) or on raw buffer offsets, without allocating.

import { DecodeError } from './errors.js';

/** A read position inside a buffer; `end` is exclusive. `Reader` satisfies this shape. */
export interface ByteCursor {
  buf: Buffer;
  pos: number;
  end: number;
}

const TWO_POW_28 = 0x10000000;
const TWO_POW_52 = 2 ** 52;

function truncated(c: ByteCursor): DecodeError {
  return new DecodeError('TRUNCATED', 'varint runs past the end of the buffer', c.pos);
}

/** Unsigned varint of at most 5 bytes, value 0..2^32-1. */
export function readUVarint(c: ByteCursor): number {
  const buf = c.buf;
  let pos = c.pos;
  const end = c.end;
  if (pos >= end) throw truncated(c);
  let b = buf[pos++]!;
  if (b < 0x80) {
    c.pos = pos;
    return b;
  }
  let value = b & 0x7f;
  for (let shift = 7; shift < 28; shift += 7) {
    if (pos >= end) throw truncated(c);
    b = buf[pos++]!;
    value |= (b & 0x7f) << shift;
    if (b < 0x80) {
      c.pos = pos;
      return value >>> 0;
    }
  }
  if (pos >= end) throw truncated(c);
  b = buf[pos++]!;
  // The fifth byte may only carry the top 4 bits of a 32-bit value and must end the varint.
  if (b > 0x0f) throw new DecodeError('VARINT_TOO_LONG', 'unsigned varint longer than 32 bits', c.pos);
  c.pos = pos;
  return (value >>> 0) + b * TWO_POW_28;
}

/** Zig-zag signed varint (int32). */
export function readVarint(c: ByteCursor): number {
  const u = readUVarint(c);
  return (u >>> 1) ^ -(u & 1);
}

/**
 * Zig-zag varlong as a number. Exact for |v| < 2^53; longer encodings throw UNSAFE_INTEGER so a
 * silently rounded offset or timestamp can never escape. Use `readVarlong` when full 64-bit range
 * is legal.
 */
export function readVarlongNumber(c: ByteCursor): number {
  const buf = c.buf;
  let pos = c.pos;
  const end = c.end;
  let value = 0;
  let mul = 1;
  // 7 bytes carry 49 bits: always exact in a double.
  for (let i = 0; i < 7; i++) {
    if (pos >= end) throw truncated(c);
    const b = buf[pos++]!;
    value += (b & 0x7f) * mul;
    if (b < 0x80) {
      c.pos = pos;
      return value % 2 === 0 ? value / 2 : -(value + 1) / 2;
    }
    mul *= 128;
  }
  const big = readVarlong(c);
  if (big > 9007199254740991n || big < -9007199254740991n) {
    throw new DecodeError('UNSAFE_INTEGER', 'varlong does not fit a safe integer', c.pos);
  }
  return Number(big);
}

/** Zig-zag varlong (int64) as a bigint, at most 10 bytes. */
export function readVarlong(c: ByteCursor): bigint {
  const buf = c.buf;
  let pos = c.pos;
  const end = c.end;
  // Low 28 bits in a number, then the rest in a bigint: most varlongs are short.
  let low = 0;
  for (let shift = 0; shift < 28; shift += 7) {
    if (pos >= end) throw truncated(c);
    const b = buf[pos++]!;
    low |= (b & 0x7f) << shift;
    if (b < 0x80) {
      c.pos = pos;
      const u = low >>> 0;
      return BigInt((u >>> 1) ^ -(u & 1));
    }
  }
  let u = BigInt(low >>> 0);
  for (let shift = 28n; shift < 70n; shift += 7n) {
    if (pos >= end) throw truncated(c);
    const b = buf[pos++]!;
    u |= BigInt(b & 0x7f) << shift;
    if (b < 0x80) {
      if (shift === 63n && b > 1) break;
      c.pos = pos;
      return (u >> 1n) ^ -(u & 1n);
    }
  }
  throw new DecodeError('VARINT_TOO_LONG', 'varlong longer than 64 bits', c.pos);
}

/** Bytes needed for an unsigned varint (value taken as uint32). */
export function uvarintSize(value: number): number {
  const v = value >>> 0;
  if (v < 0x80) return 1;
  if (v < 0x4000) return 2;
  if (v < 0x200000) return 3;
  if (v < 0x10000000) return 4;
  return 5;
}

export function zigzag32(value: number): number {
  return ((value << 1) ^ (value >> 31)) >>> 0;
}

export function varintSize(value: number): number {
  return uvarintSize(zigzag32(value));
}

export function zigzag64(value: bigint): bigint {
  return BigInt.asUintN(64, (value << 1n) ^ (value >> 63n));
}

export function varlongSize(value: bigint): number {
  let u = zigzag64(value);
  let n = 1;
  while (u >= 0x80n) {
    u >>= 7n;
    n++;
  }
  return n;
}

/** Size of a zig-zag varlong given as a safe-integer number. */
export function varlongNumberSize(value: number): number {
  if (value >= TWO_POW_52 || value <= -TWO_POW_52) return varlongSize(BigInt(value));
  let u = value >= 0 ? value * 2 : -value * 2 - 1;
  let n = 1;
  while (u >= 128) {
    u = Math.floor(u / 128);
    n++;
  }
  return n;
}

/** Writes an unsigned varint (value taken as uint32) at `pos`; returns the offset after it. */
export function writeUVarint(buf: Buffer, pos: number, value: number): number {
  let v = value >>> 0;
  while (v >= 0x80) {
    buf[pos++] = (v & 0x7f) | 0x80;
    v >>>= 7;
  }
  buf[pos++] = v;
  return pos;
}

export function writeVarint(buf: Buffer, pos: number, value: number): number {
  return writeUVarint(buf, pos, zigzag32(value));
}

export function writeVarlong(buf: Buffer, pos: number, value: bigint): number {
  let u = zigzag64(value);
  if (u < 0x100000000n) return writeUVarint(buf, pos, Number(u));
  while (u >= 0x80n) {
    buf[pos++] = Number(u & 0x7fn) | 0x80;
    u >>= 7n;
  }
  buf[pos++] = Number(u);
  return pos;
}

/** Zig-zag varlong from a safe-integer number (timestamps, offset deltas) without bigint. */
export function writeVarlongNumber(buf: Buffer, pos: number, value: number): number {
  // Zig-zag doubles the magnitude: beyond 2^52 the doubled value is no longer exact.
  if (value >= TWO_POW_52 || value <= -TWO_POW_52) return writeVarlong(buf, pos, BigInt(value));
  let u = value >= 0 ? value * 2 : -value * 2 - 1;
  while (u >= 128) {
    buf[pos++] = (u % 128) | 0x80;
    u = Math.floor(u / 128);
  }
  buf[pos++] = u;
  return pos;
}
