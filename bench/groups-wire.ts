// The load generator's side of bench/groups-e2e.ts: a raw Kafka connection built on the
// generated codecs only (no client library), with any number of requests in flight, plus the
// "consumer" embedded protocol a group leader needs to hand out partitions.
import { connect, type Socket } from 'node:net';
import { decodeResponse, encodeRequest } from '../src/protocol/messages/frame.js';
import {
  type ConsumerProtocolAssignment,
  readConsumerProtocolAssignment,
  writeConsumerProtocolAssignment,
} from '../src/protocol/messages/generated/data/consumer-protocol-assignment.js';
import { writeConsumerProtocolSubscription } from '../src/protocol/messages/generated/data/consumer-protocol-subscription.js';
import type { ApiDescriptor } from '../src/protocol/messages/runtime.js';
import { Reader } from '../src/protocol/primitives/reader.js';
import { Writer } from '../src/protocol/primitives/writer.js';

interface Pending {
  id: number;
  decode(frame: Buffer): void;
  fail(err: Error): void;
}

/**
 * One TCP connection. Responses come back in request order (the broker guarantees it), so a
 * FIFO of pending requests is enough; the correlation id is still checked.
 */
export class WireConn {
  #nextId = 1;
  #queue: Pending[] = [];
  #head = 0;
  #chunks: Buffer[] = [];
  #buffered = 0;
  #closed = false;
  #corked = false;

  private constructor(
    private readonly socket: Socket,
    private readonly clientId: string,
  ) {
    socket.setNoDelay(true);
    socket.on('data', (d: Buffer) => this.#onData(d));
    socket.on('error', () => {});
    socket.on('close', () => this.#failAll(new Error('connection closed')));
  }

  static connect(port: number, clientId = 'bench'): Promise<WireConn> {
    return new Promise((resolve, reject) => {
      const s = connect({ port, host: '127.0.0.1' }, () => resolve(new WireConn(s, clientId)));
      s.once('error', reject);
    });
  }

  request<Req, Res>(api: ApiDescriptor<Req, Res>, version: number, body: Req): Promise<Res> {
    if (this.#closed) return Promise.reject(new Error('connection closed'));
    const id = this.#nextId++;
    return new Promise<Res>((resolve, reject) => {
      this.#queue.push({
        id,
        decode: (frame) => {
          const { correlationId, body: res } = decodeResponse(api, version, frame);
          if (correlationId !== id) reject(new Error(`correlation ${correlationId}, expected ${id}`));
          else resolve(res);
        },
        fail: reject,
      });
      const chunks = encodeRequest(api, version, id, this.clientId, body);
      // Requests written in the same tick leave in one writev (pipelining); a lone request
      // still costs one syscall, as before.
      if (!this.#corked) {
        this.#corked = true;
        this.socket.cork();
        process.nextTick(() => {
          this.#corked = false;
          this.socket.uncork();
        });
      }
      for (const c of chunks) this.socket.write(c);
    });
  }

  close(): void {
    this.#closed = true;
    this.socket.destroy();
  }

  #onData(d: Buffer): void {
    this.#chunks.push(d);
    this.#buffered += d.length;
    for (;;) {
      if (this.#buffered < 4) return;
      let head = this.#chunks[0] as Buffer;
      if (head.length < 4) {
        head = Buffer.concat(this.#chunks);
        this.#chunks = [head];
      }
      const size = head.readInt32BE(0);
      if (this.#buffered < 4 + size) return;
      if (head.length < 4 + size) {
        head = Buffer.concat(this.#chunks);
        this.#chunks = [head];
      }
      const frame = head.subarray(4, 4 + size);
      if (head.length === 4 + size) this.#chunks.shift();
      else this.#chunks[0] = head.subarray(4 + size);
      this.#buffered -= 4 + size;
      const p = this.#queue[this.#head++];
      if (this.#head > 1024) {
        this.#queue = this.#queue.slice(this.#head);
        this.#head = 0;
      }
      p?.decode(frame);
    }
  }

  #failAll(err: Error): void {
    this.#closed = true;
    const left = this.#queue.slice(this.#head);
    this.#queue = [];
    this.#head = 0;
    for (const p of left) p.fail(err);
  }
}

/** ConsumerProtocolSubscription v1 for `topics`, with its int16 version prefix. */
export function subscription(topics: string[]): Buffer {
  const w = new Writer();
  w.int16(1);
  writeConsumerProtocolSubscription(w, 1, {
    topics,
    userData: null,
    ownedPartitions: [],
    generationId: -1,
    rackId: null,
  });
  return w.toBuffer();
}

export function encodeAssignment(a: ConsumerProtocolAssignment): Buffer {
  const w = new Writer();
  w.int16(1);
  writeConsumerProtocolAssignment(w, 1, a);
  return w.toBuffer();
}

export function decodeAssignment(b: Buffer): ConsumerProtocolAssignment {
  const r = new Reader(b);
  const version = r.int16();
  return readConsumerProtocolAssignment(r, Math.min(version, 3));
}

/** The range assignor over one topic: member i of n (sorted ids) gets a contiguous block. */
export function rangeAssign(
  memberIds: readonly string[],
  topic: string,
  partitions: number,
): Map<string, Buffer> {
  const ids = [...memberIds].sort();
  const per = Math.floor(partitions / ids.length);
  const extra = partitions % ids.length;
  const out = new Map<string, Buffer>();
  let next = 0;
  ids.forEach((id, i) => {
    const n = per + (i < extra ? 1 : 0);
    const parts = Array.from({ length: n }, (_, k) => next + k);
    next += n;
    out.set(id, encodeAssignment({ assignedPartitions: [{ topic, partitions: parts }], userData: null }));
  });
  return out;
}
