// One client connection: length-prefixed framing, admission against the memory budget, and
// responses written strictly in request order.
//
// Framing (`frame-reader.ts`): `int32 size` + `size` bytes. The size is checked before any of the
// body is buffered (negative or above `socket.request.max.bytes` closes the connection, as Kafka
// does). A plain TCP socket reads into buffers the reader picks (`socket-reads.ts`): the rest of a
// large frame directly, else a staging buffer from which each frame is copied once. Large frames
// come from a shared `BufferPool` and go back to it when the handler said it keeps no reference to
// the request bytes (Produce: the log has written them by the time the request finishes).
//
// Ordering: requests start in arrival order. A request starts only when every earlier request
// of this connection has finished (Kafka mutes a channel while it has a request in flight),
// except that pipelinable requests (Produce: offsets are assigned synchronously at call time)
// may overlap other pipelinable ones. Outcomes are written in arrival order whatever order the
// handlers finish in; a request may produce no response (acks=0) or ask to close the connection
// after the earlier responses have gone out.
//
// Writes: the first response written in a tick corks the socket until `process.nextTick`, so that
// every response finishing in the same tick (pipelined requests read together, appends completed
// together) leaves in one `writev`. A lone response waits for nothing but the end of the current
// callback: no timer.

import type { Socket } from 'node:net';
import type { Logger } from '../logger.js';
import type { BufferPool } from './buffer-pool.js';
import { FrameReader } from './frame-reader.js';
import type { MemoryPool } from './memory-pool.js';
import type { RejectionLog } from './rejection-log.js';
import type { SaslSession } from './sasl/sasl-session.js';
import { readIntoOwnBuffers } from './socket-reads.js';

const EMPTY = Buffer.alloc(0);

/** An outcome that will never be written. */
function discarded(outcome: RequestOutcome): void {
  if (outcome.kind === 'respond') outcome.onSent?.();
}

export type RequestOutcome =
  | {
      readonly kind: 'respond';
      readonly chunks: readonly Buffer[];
      /**
       * Called once the connection no longer needs `chunks`: handed to the kernel, or dropped
       * because the connection closed. Lets a handler reuse buffers its response references.
       */
      readonly onSent?: () => void;
      /** Close the connection once this response has gone out (a failed SASL exchange). */
      readonly closeAfter?: string;
      /** A quota was violated: mute the connection this long once the response is written. */
      readonly throttleMs?: number;
    }
  | { readonly kind: 'none'; readonly throttleMs?: number }
  | {
      readonly kind: 'close';
      readonly reason: string;
      /** The request was refused as malformed or hostile: worth a (rate-limited) warning. */
      readonly rejected?: boolean;
    };

/** The listener a connection came through and who the peer is (Kafka's RequestContext fields). */
export interface ConnectionSecurity {
  /** Upper-case listener name, e.g. `PLAINTEXT`, `SSL`, `INTERNAL`. */
  readonly listenerName: string;
  readonly securityProtocol: string;
  /**
   * `User:ANONYMOUS`, `User:<mapped certificate subject>` for a TLS client certificate, or
   * `User:<name>` once a SASL exchange succeeded.
   */
  readonly principal: string;
}

/** Per-connection facts handlers may read (and state they may keep, e.g. the client name). */
export interface ConnectionContext {
  readonly id: number;
  readonly remoteAddress: string;
  /**
   * Absent only in hand-made contexts (tests): a PLAINTEXT listener and an anonymous peer.
   * Replaced (never mutated) when a SASL exchange authenticates the peer.
   */
  security?: ConnectionSecurity;
  /** The SASL exchange of a SASL_PLAINTEXT / SASL_SSL connection (`sasl/sasl-session.ts`). */
  readonly sasl?: SaslSession;
  clientSoftwareName: string;
  clientSoftwareVersion: string;
}

export interface RequestHandler {
  /** Whether this request may run concurrently with other pipelinable requests. */
  canPipeline(frame: Buffer, conn?: ConnectionContext): boolean;
  /**
   * Whether the frame may be reused once `handle` has resolved: nothing (log, caches, state,
   * the response) may reference its bytes after that. Absent = never.
   */
  releasesFrame?(frame: Buffer): boolean;
  /**
   * A lower size limit for the next frame than `socket.request.max.bytes` (before SASL
   * authentication: `sasl.server.max.receive.size`); absent = no lower limit.
   */
  maxFrameBytes?(conn?: ConnectionContext): number;
  handle(frame: Buffer, conn: ConnectionContext): Promise<RequestOutcome>;
}

export interface ConnectionOptions {
  readonly maxRequestBytes: number;
  readonly idleMs: number;
  readonly pool: MemoryPool;
  /** Where large frames come from; absent = plain allocations. */
  readonly buffers?: BufferPool;
  /** See `DEFAULT_MAX_BACKLOG_BYTES`. */
  readonly maxBacklogBytes?: number;
  readonly handler: RequestHandler;
  readonly logger: Logger;
  /** Where refused requests are reported (rate-limited warnings); absent = debug log only. */
  readonly rejections?: RejectionLog;
  /** The listener and the peer's principal (see `ConnectionContext.security`). */
  readonly security?: ConnectionSecurity;
  /** Set on SASL listeners; `handler` is then the session's gate. */
  readonly sasl?: SaslSession;
}

type PauseReason = 'memory' | 'drain' | 'shutdown' | 'backlog' | 'throttle';

/**
 * Received-but-unanswered request bytes above which a connection stops reading. A producer that
 * pipelines (librdkafka keeps up to a million requests in flight) gains nothing from the broker
 * reading tens of MB ahead of its log: appends are written in order anyway. Bounding the backlog
 * keeps memory flat and the frame pool's working set small (warm buffers, no page faults).
 */
export const DEFAULT_MAX_BACKLOG_BYTES = 8 * 1024 * 1024;

interface Slot {
  frame: Buffer;
  readonly bytes: number;
  readonly pipelinable: boolean;
  readonly reusable: boolean;
  outcome: RequestOutcome | null;
  released: boolean;
}

export class Connection {
  readonly context: ConnectionContext;
  private readonly reader: FrameReader;
  /** Requests received and not yet written, in arrival order. */
  private readonly slots: Slot[] = [];
  /** Index in `slots` of the next request to start. */
  private nextToStart = 0;
  private running = 0;
  /** Bytes of the requests in `slots` not yet released. */
  private backlogBytes = 0;
  private runningBlocking = 0;
  private readonly pauseReasons = new Set<PauseReason>();
  private cancelMemoryWait: (() => void) | null = null;
  private closed = false;
  private idleListeners: (() => void)[] = [];
  /** `onSent` of the responses written this tick (see `reportSent`). */
  private sentCallbacks: (() => void)[] = [];
  /** The socket is corked until the end of the tick (see `flush`). */
  private corkedForTick = false;
  private readonly endTickCallback = (): void => this.endTick();
  /** Ends a quota throttle (KIP-219 mute); null while not throttled. */
  private throttleTimer: NodeJS.Timeout | null = null;

  constructor(
    readonly socket: Socket,
    id: number,
    private readonly opts: ConnectionOptions,
    private readonly onClose: (c: Connection) => void,
  ) {
    this.context = {
      id,
      remoteAddress: `${socket.remoteAddress ?? '?'}:${socket.remotePort ?? '?'}`,
      ...(opts.security ? { security: opts.security } : {}),
      ...(opts.sasl ? { sasl: opts.sasl } : {}),
      clientSoftwareName: '',
      clientSoftwareVersion: '',
    };
    this.reader = new FrameReader({
      refuse: (size) => this.refuseSize(size),
      admit: (size) => this.admit(size),
      reject: (reason) => {
        this.opts.rejections?.report(this.context.remoteAddress, reason);
        this.close(reason);
      },
      frame: (frame) => this.enqueue(frame),
    });
    socket.setNoDelay(true);
    socket.setTimeout(opts.idleMs);
    const ownBuffers = readIntoOwnBuffers(
      socket,
      () => this.reader.readTarget(),
      (n, buffer) => {
        this.reader.read(n, buffer);
        return true;
      },
    );
    if (!ownBuffers) socket.on('data', (chunk: Buffer) => this.reader.push(chunk, 0, chunk.length));
    socket.on('timeout', () => this.onIdle());
    socket.on('error', () => this.close('socket error'));
    socket.on('close', () => this.close('peer closed'));
    socket.on('end', () => this.onPeerEnd());
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Requests received but not yet answered. */
  get inFlight(): number {
    return this.slots.length;
  }

  /** Why a frame of `size` bytes is refused, or null. */
  private refuseSize(size: number): string | null {
    const lower = this.opts.handler.maxFrameBytes?.(this.context) ?? Number.POSITIVE_INFINITY;
    if (size >= 0 && size <= this.opts.maxRequestBytes && size <= lower) return null;
    const limit =
      size > lower
        ? `sasl.server.max.receive.size ${lower} before authentication`
        : `socket.request.max.bytes ${this.opts.maxRequestBytes}`;
    return `invalid request size ${size} (${limit})`;
  }

  /** A buffer for the next frame, or null (reading paused) while the memory budget is spent. */
  private admit(size: number): Buffer | null {
    if (!this.opts.pool.tryAllocate(size)) {
      this.waitForMemory();
      return null;
    }
    return this.opts.buffers?.acquire(size) ?? Buffer.allocUnsafe(size);
  }

  private waitForMemory(): void {
    if (this.cancelMemoryWait) return;
    this.pause('memory');
    this.cancelMemoryWait = this.opts.pool.waitForMemory(() => {
      this.cancelMemoryWait = null;
      this.resume('memory');
      this.reader.resume();
    });
  }

  private enqueue(frame: Buffer): void {
    const { handler } = this.opts;
    const pipelinable = handler.canPipeline(frame, this.context);
    const reusable = this.opts.buffers !== undefined && handler.releasesFrame?.(frame) === true;
    this.slots.push({ frame, bytes: frame.length, pipelinable, reusable, outcome: null, released: false });
    this.backlogBytes += frame.length;
    if (this.backlogBytes >= (this.opts.maxBacklogBytes ?? DEFAULT_MAX_BACKLOG_BYTES)) this.pause('backlog');
    this.startRequests();
  }

  private startRequests(): void {
    while (!this.closed && this.nextToStart < this.slots.length) {
      // A throttled connection is muted: requests it sent meanwhile wait, as in Kafka's socket.
      if (this.throttleTimer !== null) return;
      const slot = this.slots[this.nextToStart]!;
      const mayStart = this.running === 0 || (slot.pipelinable && this.runningBlocking === 0);
      if (!mayStart) return;
      this.nextToStart++;
      this.run(slot);
    }
  }

  private run(slot: Slot): void {
    this.running++;
    if (!slot.pipelinable) this.runningBlocking++;
    let p: Promise<RequestOutcome>;
    try {
      p = this.opts.handler.handle(slot.frame, this.context);
    } catch (e) {
      p = Promise.reject(e);
    }
    p.then(
      (outcome) => this.finished(slot, outcome, true),
      (e: unknown) => {
        this.opts.logger.log('error', 'request handler failed', {
          error: String(e),
          conn: this.context.remoteAddress,
        });
        this.finished(slot, { kind: 'close', reason: 'handler failure' }, false);
      },
    );
  }

  private finished(slot: Slot, outcome: RequestOutcome, handled: boolean): void {
    this.running--;
    if (!slot.pipelinable) this.runningBlocking--;
    slot.outcome = outcome;
    // Only after a normal completion: a handler that threw may have left work (e.g. a queued
    // log write) that still reads the frame.
    if (handled && slot.reusable) this.recycle(slot);
    if (this.closed) {
      this.release(slot);
      discarded(outcome);
      return;
    }
    this.flush();
    this.startRequests();
  }

  private recycle(slot: Slot): void {
    const frame = slot.frame;
    slot.frame = EMPTY;
    this.opts.buffers!.release(frame);
  }

  /**
   * Writes every finished outcome at the head of the queue, in order. The first write of a tick
   * corks the socket until the tick ends (`endTick`): responses finishing together leave in one
   * `writev` (no Nagle: noDelay).
   */
  private flush(): void {
    const head = this.slots[0];
    if (head !== undefined && head.outcome !== null && !this.corkedForTick && !this.socket.destroyed) {
      this.corkedForTick = true;
      this.socket.cork();
      process.nextTick(this.endTickCallback);
    }
    this.flushOutcomes();
    if (this.slots.length === 0) {
      const listeners = this.idleListeners;
      this.idleListeners = [];
      for (const l of listeners) l();
    }
  }

  /**
   * Sends what this tick wrote, then stops reading while the client leaves it unread: the socket
   * kept bytes the kernel did not take, more than its high-water mark.
   */
  private endTick(): void {
    this.corkedForTick = false;
    this.socket.uncork();
    this.reportSent();
    const socket = this.socket;
    if (this.closed || socket.writableLength === 0 || !socket.writableNeedDrain) return;
    if (this.pauseReasons.has('drain')) return;
    this.pause('drain');
    socket.once('drain', () => this.resume('drain'));
  }

  private flushOutcomes(): void {
    while (this.slots.length > 0 && this.slots[0]!.outcome !== null && !this.closed) {
      const slot = this.slots.shift()!;
      this.nextToStart--;
      this.release(slot);
      const outcome = slot.outcome!;
      if (outcome.kind !== 'close' && outcome.throttleMs !== undefined && outcome.throttleMs > 0)
        this.throttle(outcome.throttleMs);
      if (outcome.kind === 'respond') {
        this.write(outcome);
        if (outcome.closeAfter !== undefined) {
          this.closeAfterFlush(outcome.closeAfter);
          return;
        }
      } else if (outcome.kind === 'close') {
        if (outcome.rejected) this.opts.rejections?.report(this.context.remoteAddress, outcome.reason);
        this.opts.logger.log('debug', 'closing connection', {
          conn: this.context.remoteAddress,
          reason: outcome.reason,
        });
        this.closeAfterFlush(outcome.reason);
        return;
      }
    }
  }

  private closeAfterFlush(reason: string): void {
    // What is corked goes out before the FIN.
    this.socket.uncork();
    this.endGracefully();
    this.close(reason);
  }

  /**
   * Runs the `onSent` of the responses written this tick: at once if the socket took every byte
   * synchronously (nothing left in its buffer, the usual case), else once what it buffered is
   * written (a write callback runs then, or with an error if the socket is destroyed first:
   * either way the bytes are no longer needed). Not a write callback per response: each costs a
   * closure and a process.nextTick, about 1 % of a small produce request (bench/metrics-overhead.ts).
   */
  private reportSent(): void {
    const callbacks = this.sentCallbacks;
    if (callbacks.length === 0) return;
    this.sentCallbacks = [];
    if (this.socket.writableLength === 0 || this.socket.destroyed) {
      for (const cb of callbacks) cb();
      return;
    }
    const runAll = () => {
      for (const cb of callbacks) cb();
    };
    if (!this.socket.writableEnded) this.socket.write(EMPTY, runAll);
    else this.socket.once('close', runAll);
  }

  /** Queues one response on the corked socket; `endTick` sends it. */
  private write(outcome: RequestOutcome & { kind: 'respond' }): void {
    const { chunks, onSent } = outcome;
    if (this.socket.destroyed || chunks.length === 0) {
      onSent?.();
      return;
    }
    for (const chunk of chunks) this.socket.write(chunk);
    if (onSent) this.sentCallbacks.push(onSent);
  }

  /**
   * Mutes the connection for `ms` (from now, the response being written): no reading and no new
   * request started until then, as Kafka mutes a throttled channel. A later throttle that ends
   * later extends it.
   */
  private throttle(ms: number): void {
    const until = Date.now() + ms;
    if (this.throttleTimer !== null) {
      if (until <= this.throttledUntil) return;
      clearTimeout(this.throttleTimer);
    }
    this.throttledUntil = until;
    this.pause('throttle');
    this.throttleTimer = setTimeout(() => {
      this.throttleTimer = null;
      if (this.closed) return;
      this.resume('throttle');
      this.startRequests();
    }, ms);
    this.throttleTimer.unref();
  }

  private throttledUntil = 0;

  private release(slot: Slot): void {
    if (slot.released) return;
    slot.released = true;
    this.opts.pool.release(slot.bytes);
    this.backlogBytes -= slot.bytes;
    if (
      this.pauseReasons.has('backlog') &&
      this.backlogBytes < (this.opts.maxBacklogBytes ?? DEFAULT_MAX_BACKLOG_BYTES)
    ) {
      this.resume('backlog');
    }
  }

  private pause(reason: PauseReason): void {
    this.pauseReasons.add(reason);
    this.socket.pause();
  }

  private resume(reason: PauseReason): void {
    this.pauseReasons.delete(reason);
    if (this.pauseReasons.size === 0 && !this.closed) this.socket.resume();
  }

  private onIdle(): void {
    if (this.slots.length === 0 && this.reader.idle) {
      this.close(`idle for ${this.opts.idleMs} ms (connections.max.idle.ms)`);
      this.socket.destroy();
    } else this.socket.setTimeout(this.opts.idleMs);
  }

  /** The client half-closed: answer what it sent, then close. */
  private onPeerEnd(): void {
    this.whenIdle(() => {
      this.endGracefully();
      this.close('peer ended');
    });
  }

  /**
   * Sends what is queued, then closes; a peer that never reads is cut off after a while. Reading
   * resumes (into nowhere) so the peer's own FIN is seen at once: a paused socket would hold the
   * listener's close for the whole grace period.
   */
  private endGracefully(): void {
    this.socket.end();
    this.socket.removeAllListeners('data');
    this.socket.on('data', () => {});
    this.socket.resume();
    setTimeout(() => this.socket.destroy(), 5000).unref();
  }

  private whenIdle(cb: () => void): void {
    if (this.slots.length === 0) cb();
    else this.idleListeners.push(cb);
  }

  /** Stops reading, answers everything already received, then closes. */
  shutdown(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.pause('shutdown');
    return new Promise((resolve) => {
      this.whenIdle(() => {
        this.endGracefully();
        this.close('broker shutdown');
        resolve();
      });
      this.socket.once('close', () => resolve());
    });
  }

  close(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    if (this.throttleTimer !== null) clearTimeout(this.throttleTimer);
    this.cancelMemoryWait?.();
    this.cancelMemoryWait = null;
    const partial = this.reader.stop();
    if (partial !== null) {
      this.opts.pool.release(partial.admitted);
      // Never handed to a handler: nothing else references it.
      if (partial.buffer !== null) this.opts.buffers?.release(partial.buffer);
    }
    for (let i = this.nextToStart; i < this.slots.length; i++) this.release(this.slots[i]!);
    // Finished-but-unwritten outcomes hold memory too; running ones release on completion.
    for (const s of this.slots) {
      if (s.outcome === null) continue;
      this.release(s);
      discarded(s.outcome);
    }
    if (!this.socket.destroyed && !this.socket.writableEnded) this.socket.destroy();
    this.opts.logger.log('debug', 'connection closed', { conn: this.context.remoteAddress, reason });
    for (const l of this.idleListeners) l();
    this.idleListeners = [];
    this.onClose(this);
  }
}
