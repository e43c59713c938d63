// A bare Kafka wire client for tests: sends typed requests (or raw bytes) over one socket and
// reads size-prefixed frames back, so tests can check exact broker behaviour per API version,
// including hostile input that no real client would send.

import { connect, type Socket } from 'node:net';
import { decodeResponse, encodeRequest } from '../../../src/protocol/messages/frame.js';
import type { ApiDescriptor } from '../../../src/protocol/messages/runtime.js';
import { scaled, TestTimeoutError } from '../../support/timeouts.js';

/**
 * How long a response (or a close) may take before the wait fails, before scaling. Generous:
 * it only bounds a wait that is not going to end (a loaded 2-core machine answers late, not never).
 */
const DEFAULT_TIMEOUT_MS = 120_000;

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

  /**
   * The next response frame (without size prefix), or null if the connection closes first or
   * the (scaled) timeout passes. `request()` tells the two apart in its error.
   */
  async nextFrame(timeoutMs = DEFAULT_TIMEOUT_MS): Promise<Buffer | null> {
    const r = await this.#next(scaled(timeoutMs));
    return typeof r === 'string' ? null : r;
  }

  async #next(timeoutMs: number): Promise<Buffer | 'closed' | 'timed out'> {
    const deadline = Date.now() + timeoutMs;
    while (this.frames.length === 0) {
      if (this.closedFlag) return 'closed';
      const left = deadline - Date.now();
      if (left <= 0) return 'timed out';
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

  /**
   * Sends a request and decodes its response. `timeoutMs` (scaled) is how long the broker may
   * take: a request the broker may park (JoinGroup up to the rebalance timeout, a long-poll
   * Fetch) needs at least that much.
   */
  async request<Req, Res>(
    api: ApiDescriptor<Req, Res>,
    version: number,
    body: Req,
    timeoutMs = DEFAULT_TIMEOUT_MS,
  ): Promise<Res> {
    const id = this.sendRequest(api, version, body);
    const ms = scaled(timeoutMs);
    const frame = await this.#next(ms);
    if (frame === 'closed') throw new Error(`connection closed while waiting for ${api.name} v${version}`);
    if (frame === 'timed out') throw new TestTimeoutError(`the ${api.name} v${version} response`, ms);
    const { correlationId, body: res } = decodeResponse(api, version, frame);
    if (correlationId !== id) throw new Error(`correlation mismatch: sent ${id}, got ${correlationId}`);
    return res;
  }

  /** Resolves true when the broker closes the connection within the timeout. */
  async waitClosed(timeoutMs = DEFAULT_TIMEOUT_MS): Promise<boolean> {
    const deadline = Date.now() + scaled(timeoutMs);
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
