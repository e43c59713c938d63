// Zig-zag varint/varlong code private to the record codec. The shared primitives
// (`../primitives/varint.ts`) serve the generic Reader/Writer; records are the hot path (millions
// per second), so these work directly on a Buffer and a position, return the new position, and
// never allocate. Varlongs are handled as JS numbers: record timestamp deltas are far below 2^53.
import { invalidRecord } from './errors.js';

/** Bytes needed for the unsigned varint `u` (0 ≤ u < 2^32). */
export function sizeOfUnsigned(u: number): number {
  return u < 0x80 ? 1 : u < 0x4000 ? 2 : u < 0x200000 ? 3 : u < 0x10000000 ? 4 : 5;
}

/** Bytes needed for the zig-zag varint of the int32 `v`. */
export function sizeOfVarint(v: number): number {
  return sizeOfUnsigned(((v << 1) ^ (v >> 31)) >>> 0);
}

/** Bytes needed for the zig-zag varlong of the safe integer `v`. */
export function sizeOfVarlong(v: number): number {
  if (v === (v | 0)) return sizeOfVarint(v);
  let u = v >= 0 ? v * 2 : -v * 2 - 1;
  let n = 1;
  while (u >= 0x80) {
    u = Math.floor(u / 0x80);
    n++;
  }
  return n;
}

export function writeVarint(buf: Uint8Array, pos: number, v: number): number {
  let u = ((v << 1) ^ (v >> 31)) >>> 0;
  while (u >= 0x80) {
    buf[pos++] = (u & 0x7f) | 0x80;
    u >>>= 7;
  }
  buf[pos++] = u;
  return pos;
}

export function writeVarlong(buf: Uint8Array, pos: number, v: number): number {
  if (v === (v | 0)) return writeVarint(buf, pos, v);
  let u = v >= 0 ? v * 2 : -v * 2 - 1;
  while (u >= 0x80) {
    buf[pos++] = (u % 0x80) | 0x80;
    u = Math.floor(u / 0x80);
  }
  buf[pos++] = u;
  return pos;
}

/**
 * Decoder state: `readVarint`/`readVarlong` return the value and leave the position after it
 * in `cursor.pos`, so the record loop needs no tuple allocations.
 */
export interface VarintCursor {
  pos: number;
}

/** Reads a zig-zag varint (≤ 5 bytes, 32 bits) from `buf[c.pos, end)`; throws INVALID_RECORD. */
export function readVarint(buf: Uint8Array, c: VarintCursor, end: number): number {
  let pos = c.pos;
  if (pos < end) {
    const b0 = buf[pos]!;
    if (b0 < 0x80) {
      c.pos = pos + 1;
      return (b0 >>> 1) ^ -(b0 & 1);
    }
  }
  let u = 0;
  for (let shift = 0; shift < 35; shift += 7) {
    if (pos >= end) throw invalidRecord('varint runs past the end of the record data');
    const b = buf[pos++]!;
    if (shift === 28 && b > 0x0f) throw invalidRecord('varint longer than 32 bits');
    u |= (b & 0x7f) << shift;
    if (b < 0x80) {
      c.pos = pos;
      u >>>= 0;
      return (u >>> 1) ^ -(u & 1);
    }
  }
  throw invalidRecord('unreachable varint state');
}

/** Reads a zig-zag varlong (≤ 10 bytes); values beyond ±2^53 are rejected as INVALID_RECORD. */
export function readVarlong(buf: Uint8Array, c: VarintCursor, end: number): number {
  let pos = c.pos;
  let u = 0;
  let mul = 1;
  for (let i = 0; i < 10; i++) {
    if (pos >= end) throw invalidRecord('varlong runs past the end of the record data');
    const b = buf[pos++]!;
    u += (b & 0x7f) * mul;
    if (b < 0x80) {
      if (u > Number.MAX_SAFE_INTEGER) throw invalidRecord('varlong beyond the safe integer range');
      c.pos = pos;
      // Zig-zag decode without 32-bit operators: even → u/2, odd → -(u+1)/2.
      return u % 2 === 0 ? u / 2 : -(u + 1) / 2;
    }
    mul *= 0x80;
  }
  throw invalidRecord('varlong longer than 10 bytes');
}
