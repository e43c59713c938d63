// A throw-away listener that answers just enough (ApiVersions, Metadata, Produce) for real
// clients to send the requests we want to keep, and records every raw request frame together
// with the socket read that delivered it (kafka-python pipelines two requests in one write).

import { once } from 'node:events';
import { type AddressInfo, createServer, type Server, type Socket } from 'node:net';
import { type MiniHeader, MiniReader, MiniWriter, readMiniHeader } from './mini-wire.js';

/** Ranges of CLIENTS.md §4.1 (plus InitProducerId 0-5); librdkafka needs Produce 0 and FindCoordinator 0. */
export const ADVERTISED: ReadonlyArray<readonly [key: number, min: number, max: number]> = [
  [0, 0, 11], // Produce
  [1, 4, 13], // Fetch
  [2, 0, 9], // ListOffsets
  [3, 0, 12], // Metadata
  [8, 0, 9], // OffsetCommit
  [9, 0, 9], // OffsetFetch
  [10, 0, 6], // FindCoordinator
  [11, 0, 9], // JoinGroup
  [12, 0, 4], // Heartbeat
  [13, 0, 5], // LeaveGroup
  [14, 0, 5], // SyncGroup
  [15, 0, 5], // DescribeGroups
  [16, 0, 5], // ListGroups
  [18, 0, 3], // ApiVersions
  [19, 0, 7], // CreateTopics
  [20, 0, 6], // DeleteTopics
  [22, 0, 5], // InitProducerId
];

export interface CapturedFrame {
  /** Size-prefixed request frame exactly as received. */
  frame: Buffer;
  header: MiniHeader;
  connection: number;
  /** Index (per connection) of the socket reads holding the frame's first and last byte. */
  firstRead: number;
  lastRead: number;
  /** Label of the client run that was active when the frame arrived. */
  run: string;
}

export interface ReadChunk {
  connection: number;
  index: number;
  data: Buffer;
  run: string;
}

const NODE_ID = 1;

function isFlexibleRequest(apiKey: number, version: number): boolean {
  return (apiKey === 18 && version >= 3) || (apiKey === 3 && version >= 9) || (apiKey === 0 && version >= 9);
}

export class FakeBroker {
  readonly frames: CapturedFrame[] = [];
  readonly reads: ReadChunk[] = [];
  run = 'idle';
  /**
   * Delay the first read of each new connection. With kafka-python this makes the kernel hand us
   * both of its back-to-back requests in one read — which also proves that it sent the second
   * before any response — the way a busy broker would see them.
   */
  pauseOnConnectMs = 0;
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  private connections = 0;
  port = 0;

  async start(): Promise<void> {
    // pauseOnConnect: libuv does not read the socket until resume(), so bytes queue in the kernel.
    this.server = createServer({ pauseOnConnect: true }, (s) => this.onConnection(s));
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    this.port = (this.server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    if (this.server === null) return;
    this.server.close();
    await once(this.server, 'close');
  }

  private onConnection(socket: Socket): void {
    const connection = this.connections++;
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    let pending = Buffer.alloc(0);
    let pendingFirstRead = 0;
    let readIndex = 0;
    socket.on('data', (chunk: Buffer) => {
      const index = readIndex++;
      this.reads.push({ connection, index, data: Buffer.from(chunk), run: this.run });
      if (pending.length === 0) pendingFirstRead = index;
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 4) {
        const size = pending.readInt32BE(0);
        if (size < 0 || size > 64 * 1024 * 1024) {
          socket.destroy();
          return;
        }
        if (pending.length < 4 + size) break;
        const frame = Buffer.from(pending.subarray(0, 4 + size));
        pending = pending.subarray(4 + size);
        this.onFrame(socket, frame, connection, pendingFirstRead, index);
        pendingFirstRead = index;
      }
    });
    if (this.pauseOnConnectMs > 0) setTimeout(() => socket.resume(), this.pauseOnConnectMs).unref();
    else socket.resume();
  }

  private onFrame(
    socket: Socket,
    frame: Buffer,
    connection: number,
    firstRead: number,
    lastRead: number,
  ): void {
    const body = frame.subarray(4);
    const apiKey = body.readInt16BE(0);
    const apiVersion = body.readInt16BE(2);
    const header = readMiniHeader(body, isFlexibleRequest(apiKey, apiVersion));
    this.frames.push({ frame, header, connection, firstRead, lastRead, run: this.run });
    const response = this.respond(header, body);
    if (response !== null) socket.write(response);
  }

  private respond(h: MiniHeader, body: Buffer): Buffer | null {
    const r = new MiniReader(body, h.bodyOffset);
    if (h.apiKey === 18) return apiVersionsResponse(h);
    if (h.apiKey === 3 && h.apiVersion <= 8) return this.metadataResponse(h, r);
    if (h.apiKey === 0 && h.apiVersion >= 3 && h.apiVersion <= 8) return produceResponse(h, r);
    return null; // anything else: leave it unanswered, the capture only needs the frame
  }

  private metadataResponse(h: MiniHeader, r: MiniReader): Buffer {
    const v = h.apiVersion;
    const n = r.int32();
    const topics: string[] = [];
    for (let i = 0; i < n; i++) topics.push(r.string() ?? '');
    const w = new MiniWriter().int32(h.correlationId);
    if (v >= 3) w.int32(0); // throttle
    w.int32(1).int32(NODE_ID).string('127.0.0.1').int32(this.port);
    if (v >= 1) w.string(null); // rack
    if (v >= 2) w.string('golden-capture-cluster');
    if (v >= 1) w.int32(NODE_ID); // controller
    w.int32(topics.length);
    for (const t of topics) {
      w.int16(0).string(t);
      if (v >= 1) w.int8(0); // is internal
      w.int32(1).int16(0).int32(0).int32(NODE_ID); // one partition, index 0, leader = us
      if (v >= 7) w.int32(0); // leader epoch
      w.int32Array([NODE_ID]).int32Array([NODE_ID]);
      if (v >= 5) w.int32Array([]); // offline replicas
      if (v >= 8) w.int32(-2147483648);
    }
    if (v >= 8) w.int32(-2147483648);
    return w.frame();
  }
}

function apiVersionsResponse(h: MiniHeader): Buffer {
  // Response header v0 for every ApiVersions version (KIP-511).
  const w = new MiniWriter().int32(h.correlationId).int16(0);
  if (h.apiVersion >= 3) {
    w.uvarint(ADVERTISED.length + 1);
    for (const [k, min, max] of ADVERTISED) w.int16(k).int16(min).int16(max).uvarint(0);
    w.int32(0).uvarint(0);
  } else {
    w.int32(ADVERTISED.length);
    for (const [k, min, max] of ADVERTISED) w.int16(k).int16(min).int16(max);
    if (h.apiVersion >= 1) w.int32(0);
  }
  return w.frame();
}

function produceResponse(h: MiniHeader, r: MiniReader): Buffer | null {
  const v = h.apiVersion;
  r.string(); // transactional id
  const acks = r.int16();
  r.int32(); // timeout
  const topics: Array<[string, number[]]> = [];
  const nt = r.int32();
  for (let i = 0; i < nt; i++) {
    const name = r.string() ?? '';
    const parts: number[] = [];
    const np = r.int32();
    for (let j = 0; j < np; j++) {
      parts.push(r.int32());
      r.bytes();
    }
    topics.push([name, parts]);
  }
  if (acks === 0) return null;
  const w = new MiniWriter().int32(h.correlationId).int32(topics.length);
  for (const [name, parts] of topics) {
    w.string(name).int32(parts.length);
    for (const p of parts) {
      w.int32(p).int16(0).int64(0n).int64(-1n);
      if (v >= 5) w.int64(0n);
      if (v >= 8) w.int32(0).string(null);
    }
  }
  w.int32(0); // throttle
  return w.frame();
}
