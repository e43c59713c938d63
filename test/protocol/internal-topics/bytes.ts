// Hand-assembles expected record bytes from the schema layout, independently of the codecs.

export const i16 = (n: number): Buffer => {
  const b = Buffer.alloc(2);
  b.writeInt16BE(n);
  return b;
};
export const i32 = (n: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n);
  return b;
};
export const i64 = (n: bigint): Buffer => {
  const b = Buffer.alloc(8);
  b.writeBigInt64BE(n);
  return b;
};
export const i8 = (n: number): Buffer => Buffer.from([n & 0xff]);
/** Classic STRING / NULLABLE_STRING. */
export const str = (s: string | null): Buffer =>
  s === null ? i16(-1) : Buffer.concat([i16(Buffer.byteLength(s)), Buffer.from(s)]);
/** Classic BYTES. */
export const bytes = (b: Buffer): Buffer => Buffer.concat([i32(b.length), b]);
/** COMPACT_STRING (lengths < 127 only, enough for tests). */
export const cstr = (s: string): Buffer =>
  Buffer.concat([Buffer.from([Buffer.byteLength(s) + 1]), Buffer.from(s)]);
export const cat = (...parts: Buffer[]): Buffer => Buffer.concat(parts);
