// A network thread's stand-ins for what lives on the event loop: the request handler of a
// listener's connections (`RemoteHandler`: each started request goes to the event loop, its
// outcome comes back), the broker's connection quotas (`RemoteQuotas`: admission is asked
// there) and its logger. The `Connection`s and `SocketServer`s that use them are the ones of the
// single-thread broker, unchanged: framing, admission against the memory budget, ordering,
// pipelining, back-pressure, throttling and shutdown work here exactly as there.

import type { ConnectionContext, RequestHandler, RequestOutcome } from '../connection.js';
import type { FramePool } from './frame-pool.js';
import { type MessageBatcher, type ToMain, type ToWorker, tablePipelinable } from './messages.js';
import { precheckProduce } from './produce-precheck.js';

type Outcome = Extract<ToWorker, { t: 'outcome' }>;

interface Waiting {
  readonly resolve: (o: RequestOutcome) => void;
  readonly conn: ConnState;
}

/** What the thread knows of one connection; the rest (SASL session, client name) is there. */
interface ConnState {
  /** The event loop has heard of it (its first request carried the connection's facts). */
  introduced: boolean;
  /** SASL listeners: authenticated as of the last outcome. */
  authenticated: boolean;
}

/** Requests started on a network thread, answered by the event loop (one per thread). */
export class RequestLink {
  #nextSeq = 1;
  readonly #waiting = new Map<number, Waiting>();
  #quotasEnabled: boolean;

  constructor(
    readonly out: MessageBatcher<ToMain>,
    private readonly frames: FramePool,
    private readonly pipelinable: readonly number[],
    quotasEnabled: boolean,
  ) {
    this.#quotasEnabled = quotasEnabled;
  }

  get quotasEnabled(): boolean {
    return this.#quotasEnabled;
  }

  /** Quotas never go away until restart (Kafka's `quotasEnabled`): from now on, no pipelining. */
  enableQuotas(): void {
    this.#quotasEnabled = true;
  }

  pipelinableFrame(frame: Buffer): boolean {
    return !this.#quotasEnabled && tablePipelinable(this.pipelinable, frame);
  }

  /** `precheck`: run Produce's batch checks here (not before a SASL connection authenticated). */
  send(
    listener: number,
    ctx: ConnectionContext,
    conn: ConnState,
    frame: Buffer,
    precheck: boolean,
  ): Promise<RequestOutcome> {
    const s = this.#nextSeq++;
    const store = frame.buffer as ArrayBuffer;
    const verified = precheck ? precheckProduce(frame) : undefined;
    const item: ToMain = {
      t: 'request',
      l: listener,
      c: ctx.id,
      s,
      frame: store,
      length: frame.length,
      ...(conn.introduced ? {} : { first: { remoteAddress: ctx.remoteAddress, security: ctx.security! } }),
      ...(verified !== undefined ? { v: verified } : {}),
    };
    conn.introduced = true;
    this.out.push(item, store);
    return new Promise((resolve) => this.#waiting.set(s, { resolve, conn }));
  }

  /** The event loop's answer to request `m.s`. */
  answer(m: Outcome): void {
    const w = this.#waiting.get(m.s);
    if (w === undefined) return;
    this.#waiting.delete(m.s);
    if (m.frame !== undefined) this.frames.adopt(m.frame);
    if (m.authenticated !== undefined) w.conn.authenticated = m.authenticated;
    w.resolve(this.#outcome(m));
  }

  #outcome(m: Outcome): RequestOutcome {
    if (m.kind === 'close')
      return { kind: 'close', reason: m.reason ?? 'closed', rejected: m.rejected === true };
    const throttle = m.throttleMs !== undefined ? { throttleMs: m.throttleMs } : {};
    if (m.kind === 'none') return { kind: 'none', ...throttle };
    const chunks = (m.chunks ?? []).map((u) => Buffer.from(u.buffer, u.byteOffset, u.byteLength));
    const token = m.token;
    return {
      kind: 'respond',
      chunks,
      ...(token !== undefined ? { onSent: () => this.out.push({ t: 'sent', token }) } : {}),
      ...(m.closeAfter !== undefined ? { closeAfter: m.closeAfter } : {}),
      ...throttle,
    };
  }
}

/**
 * The handler of one listener's connections on a network thread. What the connection must
 * decide synchronously — may this frame overlap others, how large may the next frame be — is
 * answered here from the dispatcher's version table and the last word on SASL; the request
 * itself runs on the event loop.
 */
export class RemoteHandler implements RequestHandler {
  readonly #conns = new Map<number, ConnState>();

  constructor(
    private readonly link: RequestLink,
    private readonly listener: number,
    /** Set on SASL listeners: the frame limit until authenticated. */
    private readonly saslMaxReceiveBytes: number | undefined,
  ) {}

  #state(ctx: ConnectionContext): ConnState {
    let s = this.#conns.get(ctx.id);
    if (s === undefined) {
      s = { introduced: false, authenticated: false };
      this.#conns.set(ctx.id, s);
    }
    return s;
  }

  canPipeline(frame: Buffer, conn?: ConnectionContext): boolean {
    // SASL: nothing overlaps until authenticated (the gate's rule).
    if (this.saslMaxReceiveBytes !== undefined && (conn === undefined || !this.#state(conn).authenticated))
      return false;
    return this.link.pipelinableFrame(frame);
  }

  /** The event loop returns released frames itself (transferred back with the outcome). */
  releasesFrame(): boolean {
    return false;
  }

  maxFrameBytes(conn?: ConnectionContext): number {
    if (this.saslMaxReceiveBytes === undefined) return Number.POSITIVE_INFINITY;
    return conn !== undefined && this.#state(conn).authenticated
      ? Number.POSITIVE_INFINITY
      : this.saslMaxReceiveBytes;
  }

  handle(frame: Buffer, conn: ConnectionContext): Promise<RequestOutcome> {
    const state = this.#state(conn);
    const precheck = this.saslMaxReceiveBytes === undefined || state.authenticated;
    return this.link.send(this.listener, conn, state, frame, precheck);
  }

  /** The connection is gone: the event loop forgets it (its running requests still answer). */
  closed(conn: ConnectionContext): void {
    const s = this.#conns.get(conn.id);
    this.#conns.delete(conn.id);
    if (s?.introduced) this.link.out.push({ t: 'closed', l: this.listener, c: conn.id });
  }
}

/** A socket's ask for a connection slot. */
interface Ask {
  readonly listener: string;
  readonly address: string;
  readonly admit: (o: 'admitted' | 'refused') => void;
  cancelled: boolean;
}

/** `ConnectionQuotas` as a network thread's `SocketServer` sees it: asked of the event loop. */
export class RemoteQuotas {
  #nextAsk = 1;
  /** Asks waiting for the event loop's answer (a cancelled one too: every ask gets one). */
  readonly #asks = new Map<number, Ask>();
  readonly #makeRoom = new Map<string, () => boolean>();

  constructor(
    private readonly out: MessageBatcher<ToMain>,
    private readonly listenerIndex: (name: string) => number,
  ) {}

  addListener(name: string, closeOldest: () => boolean): void {
    this.#makeRoom.set(name, closeOldest);
  }

  accept(listener: string, remoteAddress: string, admit: (o: 'admitted' | 'refused') => void): () => void {
    const q = this.#nextAsk++;
    const ask: Ask = { listener, address: remoteAddress, admit, cancelled: false };
    this.#asks.set(q, ask);
    this.out.push({ t: 'admit?', l: this.listenerIndex(listener), q, address: remoteAddress });
    return () => {
      if (ask.cancelled || !this.#asks.has(q)) return;
      ask.cancelled = true;
      this.out.push({ t: 'admit-cancel', q });
    };
  }

  release(listener: string, remoteAddress: string): void {
    this.out.push({ t: 'release', l: this.listenerIndex(listener), address: remoteAddress });
  }

  /** Sockets of `listener` parked on this thread until the event loop admits them. */
  waiting(listener: string): number {
    let n = 0;
    for (const a of this.#asks.values()) if (a.listener === listener && !a.cancelled) n++;
    return n;
  }

  decided(q: number, outcome: 'admitted' | 'refused'): void {
    const a = this.#asks.get(q);
    if (a === undefined) return;
    this.#asks.delete(q);
    if (!a.cancelled) a.admit(outcome);
    // The socket closed while the answer was on its way: a slot it was given goes back.
    else if (outcome === 'admitted') this.release(a.listener, a.address);
  }

  makeRoom(listener: string): boolean {
    return this.#makeRoom.get(listener)?.() ?? false;
  }
}
