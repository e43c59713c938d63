// The event loop's side of one network thread's connections: each connection's context and
// handler (the dispatcher, behind a `SaslGate` on SASL listeners — sessions live here, with the
// rest of the broker's state), the requests it sends, the outcomes going back, and the
// connection slots it holds in `ConnectionQuotas`. When the thread dies, `abandon()` gives back
// what its connections held: quota slots, response buffers waiting for "sent".

import { markVerifiedBatches } from '../../../storage/log-validator.js';
import type { Logger } from '../../logger.js';
import type { ConnectionContext, RequestHandler, RequestOutcome } from '../connection.js';
import type { ConnectionQuotas } from '../connection-quotas.js';
import { ANONYMOUS } from '../principal-mapper.js';
import { SaslGate } from '../sasl/sasl-gate.js';
import { type SaslListener, SaslSession } from '../sasl/sasl-session.js';
import type { ScramCredentialLookup } from '../sasl/scram-server.js';
import { MessageBatcher, type ToMain, type ToWorker } from './messages.js';

const NO_SCRAM_USERS: ScramCredentialLookup = async () => null;

/** What the connections of every network thread share. */
export interface RemoteConnectionsOptions {
  readonly handler: RequestHandler;
  readonly logger: Logger;
  /** Listener names and SASL settings, by listener index. */
  readonly listeners: readonly { readonly name: string; readonly sasl?: SaslListener }[];
  readonly quotas?: ConnectionQuotas;
  readonly scramCredentials?: ScramCredentialLookup;
  /** A broker-wide connection id (`ConnectionContext.id`). */
  readonly nextId: () => number;
}

interface RemoteConnection {
  readonly listener: number;
  readonly context: ConnectionContext;
  readonly handler: RequestHandler;
  readonly sasl?: SaslSession;
}

type Request = Extract<ToMain, { t: 'request' }>;

export class RemoteConnections {
  readonly out: MessageBatcher<ToWorker>;
  readonly #conns = new Map<number, RemoteConnection>();
  /** `onSent` of responses the thread has not reported written yet, by token. */
  readonly #sent = new Map<number, () => void>();
  #nextToken = 1;
  /** Asks for a slot not decided yet: their cancel. */
  readonly #asks = new Map<number, () => void>();
  /** Quota slots held by this thread's sockets: `listener\0address` → count. */
  readonly #held = new Map<string, number>();
  #abandoned = false;

  constructor(
    private readonly opts: RemoteConnectionsOptions,
    post: (items: ToWorker[], transfer: ArrayBuffer[]) => void,
  ) {
    this.out = new MessageBatcher(post);
  }

  get connectionCount(): number {
    return this.#conns.size;
  }

  connectionsOf(listener: number): number {
    let n = 0;
    for (const c of this.#conns.values()) if (c.listener === listener) n++;
    return n;
  }

  /** Slots this thread holds on `listener` (its connections that a make-room could close). */
  heldOn(listener: number): number {
    const prefix = `${this.opts.listeners[listener]!.name}\0`;
    let n = 0;
    for (const [k, v] of this.#held) if (k.startsWith(prefix)) n += v;
    return n;
  }

  receive(m: ToMain): void {
    switch (m.t) {
      case 'request':
        this.#request(m);
        break;
      case 'closed':
        this.#conns.delete(m.l * 0x100000000 + m.c);
        break;
      case 'sent': {
        const cb = this.#sent.get(m.token);
        this.#sent.delete(m.token);
        cb?.();
        break;
      }
      case 'admit?':
        this.#ask(m.q, this.opts.listeners[m.l]!.name, m.address);
        break;
      case 'admit-cancel': {
        const cancel = this.#asks.get(m.q);
        if (cancel === undefined) break; // decided already: the thread gives the slot back itself
        this.#asks.delete(m.q);
        cancel();
        this.out.push({ t: 'admit', q: m.q, outcome: 'refused' });
        break;
      }
      case 'release':
        this.#release(this.opts.listeners[m.l]!.name, m.address);
        break;
    }
  }

  #ask(q: number, listener: string, address: string): void {
    const quotas = this.opts.quotas;
    if (quotas === undefined) {
      this.out.push({ t: 'admit', q, outcome: 'admitted' });
      return;
    }
    let decided = false;
    const cancel = quotas.accept(listener, address, (outcome) => {
      decided = true;
      this.#asks.delete(q);
      if (this.#abandoned) {
        if (outcome === 'admitted') quotas.release(listener, address);
        return;
      }
      if (outcome === 'admitted') {
        const key = `${listener}\0${address}`;
        this.#held.set(key, (this.#held.get(key) ?? 0) + 1);
      }
      this.out.push({ t: 'admit', q, outcome });
    });
    if (!decided) this.#asks.set(q, cancel);
  }

  #release(listener: string, address: string): void {
    const key = `${listener}\0${address}`;
    const n = this.#held.get(key) ?? 0;
    if (n === 0) return;
    if (n === 1) this.#held.delete(key);
    else this.#held.set(key, n - 1);
    this.opts.quotas?.release(listener, address);
  }

  #open(m: Request): RemoteConnection | undefined {
    if (m.first === undefined) return undefined;
    const l = this.opts.listeners[m.l]!;
    const sasl = l.sasl ? new SaslSession(l.sasl, this.opts.scramCredentials ?? NO_SCRAM_USERS) : undefined;
    const context: ConnectionContext = {
      id: this.opts.nextId(),
      remoteAddress: m.first.remoteAddress,
      // On SASL_SSL the principal comes from the SASL exchange, never from the certificate.
      security: sasl ? { ...m.first.security, principal: ANONYMOUS } : m.first.security,
      ...(sasl ? { sasl } : {}),
      clientSoftwareName: '',
      clientSoftwareVersion: '',
    };
    const conn: RemoteConnection = {
      listener: m.l,
      context,
      handler: sasl ? new SaslGate(this.opts.handler, sasl, this.opts.logger) : this.opts.handler,
      ...(sasl ? { sasl } : {}),
    };
    this.#conns.set(m.l * 0x100000000 + m.c, conn);
    return conn;
  }

  #request(m: Request): void {
    const conn = this.#conns.get(m.l * 0x100000000 + m.c) ?? this.#open(m);
    if (conn === undefined) {
      this.#answer(m.s, undefined, { kind: 'close', reason: 'unknown connection' });
      return;
    }
    const frame = Buffer.from(m.frame, 0, m.length);
    // The batches the thread verified skip those checks in `validateLeaderBatch`.
    if (m.v !== undefined) markVerifiedBatches(m.frame, m.v);
    const { handler, context } = conn;
    // The network thread decided the pipelining; asking again notes the arrival (metrics).
    handler.canPipeline(frame, context);
    const reusable = handler.releasesFrame?.(frame) === true;
    let pending: Promise<RequestOutcome>;
    try {
      pending = handler.handle(frame, context);
    } catch (e) {
      pending = Promise.reject(e);
    }
    pending.then(
      (outcome) => this.#answer(m.s, conn, outcome, reusable ? m.frame : undefined),
      (e: unknown) => {
        this.opts.logger.log('error', 'request handler failed', {
          error: String(e),
          conn: context.remoteAddress,
        });
        this.#answer(m.s, conn, { kind: 'close', reason: 'handler failure' });
      },
    );
  }

  /** Every request is answered, even on a closed connection: its thread releases memory then. */
  #answer(s: number, conn: RemoteConnection | undefined, o: RequestOutcome, frame?: ArrayBuffer): void {
    if (this.#abandoned) {
      if (o.kind === 'respond') o.onSent?.();
      return;
    }
    const sasl = conn?.sasl ? { authenticated: conn.sasl.authenticated } : {};
    const back = frame !== undefined ? { frame } : {};
    if (o.kind === 'close') {
      this.out.push({
        t: 'outcome',
        s,
        kind: 'close',
        reason: o.reason,
        rejected: o.rejected === true,
        ...sasl,
      });
      return;
    }
    const throttle = o.throttleMs !== undefined && o.throttleMs > 0 ? { throttleMs: o.throttleMs } : {};
    if (o.kind === 'none') {
      this.out.push({ t: 'outcome', s, kind: 'none', ...throttle, ...back, ...sasl }, frame);
      return;
    }
    const { chunks, packed } = packChunks(o.chunks);
    let token: number | undefined;
    if (o.onSent !== undefined) {
      token = this.#nextToken++;
      this.#sent.set(token, o.onSent);
    }
    const item: ToWorker = {
      t: 'outcome',
      s,
      kind: 'respond',
      chunks,
      ...(token !== undefined ? { token } : {}),
      ...(o.closeAfter !== undefined ? { closeAfter: o.closeAfter } : {}),
      ...throttle,
      ...back,
      ...sasl,
    };
    this.out.push(item, packed, frame);
  }

  /**
   * The thread is gone (it closed its sockets as it died): every slot it held goes back, every
   * response buffer it held is released, and what its requests still answer is dropped.
   */
  abandon(): void {
    this.#abandoned = true;
    for (const cancel of this.#asks.values()) cancel();
    this.#asks.clear();
    for (const [key, n] of this.#held) {
      const [listener, address] = key.split('\0') as [string, string];
      for (let i = 0; i < n; i++) this.opts.quotas?.release(listener, address);
    }
    this.#held.clear();
    this.#conns.clear();
    const sent = [...this.#sent.values()];
    this.#sent.clear();
    for (const cb of sent) cb();
  }
}

/**
 * Response chunks as a message carries them: views of a SharedArrayBuffer (pooled fetch reads)
 * are shared as they are; the other bytes are copied into one buffer, transferred.
 */
export function packChunks(chunks: readonly Buffer[]): { chunks: Uint8Array[]; packed?: ArrayBuffer } {
  let copied = 0;
  for (const c of chunks) if (!(c.buffer instanceof SharedArrayBuffer)) copied += c.length;
  if (copied === 0) return { chunks: chunks as Buffer[] };
  const packed = new ArrayBuffer(copied);
  const out: Uint8Array[] = [];
  let at = 0;
  for (const c of chunks) {
    if (c.buffer instanceof SharedArrayBuffer) {
      out.push(c);
      continue;
    }
    const view = new Uint8Array(packed, at, c.length);
    view.set(c);
    out.push(view);
    at += c.length;
  }
  return { chunks: out, packed };
}
