// A deliberately tiny, self-contained encoder/decoder for the capture tool. It knows only the
// few classic (non-flexible) fields the fake broker needs, and it does not use src/protocol on
// purpose: golden frames must be captured independently of the codecs they later test.

export class MiniWriter {
  private readonly parts: Buffer[] = [];

  int8(v: number): this {
    const b = Buffer.alloc(1);
    b.writeInt8(v);
    return this.push(b);
  }
  int16(v: number): this {
    const b = Buffer.alloc(2);
    b.writeInt16BE(v);
    return this.push(b);
  }
  int32(v: number): this {
    const b = Buffer.alloc(4);
    b.writeInt32BE(v);
    return this.push(b);
  }
  int64(v: bigint): this {
    const b = Buffer.alloc(8);
    b.writeBigInt64BE(v);
    return this.push(b);
  }
  uvarint(v: number): this {
    const bytes: number[] = [];
    let n = v >>> 0;
    while (n >= 0x80) {
      bytes.push((n & 0x7f) | 0x80);
      n >>>= 7;
    }
    bytes.push(n);
    return this.push(Buffer.from(bytes));
  }
  /** Classic STRING / NULLABLE_STRING (int16 length, -1 = null). */
  string(s: string | null): this {
    if (s === null) return this.int16(-1);
    const b = Buffer.from(s, 'utf8');
    return this.int16(b.length).push(b);
  }
  int32Array(values: readonly number[]): this {
    this.int32(values.length);
    for (const v of values) this.int32(v);
    return this;
  }
  push(b: Buffer): this {
    this.parts.push(b);
    return this;
  }
  /** Size-prefixed frame. */
  frame(): Buffer {
    const body = Buffer.concat(this.parts);
    const size = Buffer.alloc(4);
    size.writeInt32BE(body.length);
    return Buffer.concat([size, body]);
  }
}

export class MiniReader {
  constructor(
    private readonly buf: Buffer,
    public pos = 0,
  ) {}

  private need(n: number): void {
    if (this.pos + n > this.buf.length) throw new Error(`truncated at ${this.pos} (+${n})`);
  }
  int8(): number {
    this.need(1);
    return this.buf.readInt8(this.pos++);
  }
  int16(): number {
    this.need(2);
    const v = this.buf.readInt16BE(this.pos);
    this.pos += 2;
    return v;
  }
  int32(): number {
    this.need(4);
    const v = this.buf.readInt32BE(this.pos);
    this.pos += 4;
    return v;
  }
  string(): string | null {
    const n = this.int16();
    if (n < 0) return null;
    this.need(n);
    const s = this.buf.toString('utf8', this.pos, this.pos + n);
    this.pos += n;
    return s;
  }
  bytes(): Buffer | null {
    const n = this.int32();
    if (n < 0) return null;
    this.need(n);
    const b = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return b;
  }
}

export interface MiniHeader {
  apiKey: number;
  apiVersion: number;
  correlationId: number;
  clientId: string | null;
  /** Offset of the body inside the frame (size prefix excluded). */
  bodyOffset: number;
}

/** Request header v1/v2 (every request the captured clients send). Tag buffers are skipped. */
export function readMiniHeader(frame: Buffer, flexible: boolean): MiniHeader {
  const r = new MiniReader(frame);
  const apiKey = r.int16();
  const apiVersion = r.int16();
  const correlationId = r.int32();
  const clientId = r.string();
  if (flexible) {
    // Captured clients never send header tags; a non-empty tag buffer would mean a bug here.
    const tags = r.int8();
    if (tags !== 0) throw new Error('unexpected request-header tagged fields');
  }
  return { apiKey, apiVersion, correlationId, clientId, bodyOffset: r.pos };
}
