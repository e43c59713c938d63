// A bare Kafka wire client for tests: sends typed requests (or raw bytes) over one socket and
// reads size-prefixed frames back, so tests can check exact broker behaviour per API version,
// including hostile input that no real client would send.

import { connect, type Socket } from 'node:net';
import { decodeResponse, encodeRequest } from '../../../src/protocol/messages/frame.js';
import type { ApiDescriptor } from '../../../src/protocol/messages/runtime.js';

export class RawClient {
  private buf = Buffer.alloc(0);
  private frames: Buffer[] = [];
  private waiters: (() => void)[] = [];
  private closedFlag = false;
  private correlation = 1;

  private constructor(readonly socket: Socket) {
    socket.setNoDelay(true);
    socket.on('data', (d: Buffer) => {
      this.buf = Buffer.concat([this.buf, d]);
      while (this.buf.length >= 4) {
        const size = this.buf.readInt32BE(0);
        if (this.buf.length < 4 + size) break;
        this.frames.push(this.buf.subarray(4, 4 + size));
        this.buf = this.buf.subarray(4 + size);
      }
      this.wake();
    });
    socket.on('close', () => {
      this.closedFlag = true;
      this.wake();
    });
    socket.on('error', () => {});
  }

  static connect(port: number, host = '127.0.0.1'): Promise<RawClient> {
    return new Promise((resolve, reject) => {
      const s = connect({ port, host }, () => resolve(new RawClient(s)));
      s.once('error', reject);
    });
  }

  get closed(): boolean {
    return this.closedFlag;
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  send(bytes: Buffer | readonly Buffer[]): void {
    this.socket.write(Array.isArray(bytes) ? Buffer.concat(bytes) : (bytes as Buffer));
  }

  /** Encodes a request; returns its correlation id. */
  sendRequest<Req>(
    api: ApiDescriptor<Req, unknown>,
    version: number,
    body: Req,
    clientId: string | null = 'raw-test',
  ): number {
    const id = this.correlation++;
    this.send(encodeRequest(api, version, id, clientId, body));
    return id;
  }

  /** The next response frame (without size prefix), or null if the connection closes first / times out. */
  async nextFrame(timeoutMs = 5000): Promise<Buffer | null> {
    const deadline = Date.now() + timeoutMs;
    while (this.frames.length === 0) {
      if (this.closedFlag) return null;
      const left = deadline - Date.now();
      if (left <= 0) return null;
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
    return this.frames.shift()!;
  }

  async request<Req, Res>(api: ApiDescriptor<Req, Res>, version: number, body: Req): Promise<Res> {
    const id = this.sendRequest(api, version, body);
    const frame = await this.nextFrame();
    if (!frame) throw new Error(`connection closed while waiting for ${api.name} v${version}`);
    const { correlationId, body: res } = decodeResponse(api, version, frame);
    if (correlationId !== id) throw new Error(`correlation mismatch: sent ${id}, got ${correlationId}`);
    return res;
  }

  /** Resolves true when the broker closes the connection within the timeout. */
  async waitClosed(timeoutMs = 5000): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (!this.closedFlag && Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, Math.max(1, deadline - Date.now()));
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
    return this.closedFlag;
  }

  close(): void {
    this.socket.destroy();
  }
}
