// Test helper: a throw-away listener that serves fixed record-batch bytes to one consumer.
// It answers ApiVersions (v0-3), Metadata v0-1 and Fetch v4 — just enough for kcat
// (librdkafka 2.0.2) to fetch partition 0 of one topic from offset 0 and exit at its end.
// Independent of src/protocol's message codecs on purpose: only the batch bytes are ours.
import { once } from 'node:events';
import { type AddressInfo, createServer, type Server, type Socket } from 'node:net';

function i16(v: number): Buffer {
  const b = Buffer.alloc(2);
  b.writeInt16BE(v);
  return b;
}
function i32(v: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeInt32BE(v);
  return b;
}
function i64(v: bigint): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigInt64BE(v);
  return b;
}
function str(s: string | null): Buffer {
  return s === null ? i16(-1) : Buffer.concat([i16(Buffer.byteLength(s)), Buffer.from(s)]);
}

// Produce 0-7 + Fetch 4 enable librdkafka's MSGVER2 feature; FindCoordinator 0 keeps lz4 on.
const RANGES = [
  [0, 0, 7],
  [1, 4, 4],
  [3, 0, 1],
  [10, 0, 0],
  [18, 0, 3],
] as const;

export class FetchBroker {
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  port = 0;

  /** `records`: the partition's whole log (concatenated batches); `endOffset`: its high watermark. */
  constructor(
    readonly topic: string,
    readonly records: Buffer,
    readonly endOffset: bigint,
  ) {
    this.#server = createServer((s) => this.#onConnection(s));
  }

  async start(): Promise<void> {
    this.#server.listen(0, '127.0.0.1');
    await once(this.#server, 'listening');
    this.port = (this.#server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    for (const s of this.#sockets) s.destroy();
    this.#server.close();
    await once(this.#server, 'close');
  }

  #onConnection(socket: Socket): void {
    this.#sockets.add(socket);
    socket.on('close', () => this.#sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    let pending = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 4 && pending.length >= 4 + pending.readInt32BE(0)) {
        const body = pending.subarray(4, 4 + pending.readInt32BE(0));
        pending = pending.subarray(4 + body.length);
        const response = this.#respond(body);
        if (response !== null) socket.write(Buffer.concat([i32(response.length), response]));
      }
    });
  }

  #respond(body: Buffer): Buffer | null {
    const [key, version, corr] = [body.readInt16BE(0), body.readInt16BE(2), body.readInt32BE(4)];
    const bodyStart = 10 + Math.max(body.readInt16BE(8), 0) + (key === 18 && version >= 3 ? 1 : 0);
    const head = i32(corr);
    if (key === 18) return Buffer.concat([head, ...apiVersions(version)]);
    if (key === 3) return Buffer.concat([head, ...this.#metadata(version)]);
    if (key === 1 && version === 4) return Buffer.concat([head, ...this.#fetch(body, bodyStart)]);
    return null;
  }

  #metadata(version: number): Buffer[] {
    const v1 = version >= 1;
    const broker = [i32(1), str('127.0.0.1'), i32(this.port), ...(v1 ? [str(null)] : [])];
    const partition = [i16(0), i32(0), i32(1), i32(1), i32(1), i32(1), i32(1)];
    const topic = [i16(0), str(this.topic), ...(v1 ? [Buffer.from([0])] : []), i32(1), ...partition];
    return [i32(1), ...broker, ...(v1 ? [i32(1)] : []), i32(1), ...topic];
  }

  #fetch(body: Buffer, pos: number): Buffer[] {
    let p = pos + 4 + 4 + 4 + 4 + 1 + 4; // replica, max wait, min bytes, max bytes, isolation, topic count
    p += 2 + body.readInt16BE(p) + 4 + 4; // topic name, partition count, partition index
    const fetchOffset = body.readBigInt64BE(p);
    const data = fetchOffset < this.endOffset ? this.records : Buffer.alloc(0);
    const hw = i64(this.endOffset);
    const partition = [i32(0), i16(0), hw, hw, i32(-1), i32(data.length), data];
    return [i32(0), i32(1), str(this.topic), i32(1), ...partition];
  }
}

function apiVersions(version: number): Buffer[] {
  if (version >= 3) {
    const entries = RANGES.map(([k, lo, hi]) => Buffer.concat([i16(k), i16(lo), i16(hi), Buffer.from([0])]));
    return [i16(0), Buffer.from([RANGES.length + 1]), ...entries, i32(0), Buffer.from([0])];
  }
  const entries = RANGES.map(([k, lo, hi]) => Buffer.concat([i16(k), i16(lo), i16(hi)]));
  return [i16(0), i32(RANGES.length), ...entries, ...(version >= 1 ? [i32(0)] : [])];
}
