// What the event loop and its network threads tell each other (`num.network.threads` > 1).
// Every message is an item of a batch: each side collects what one run of its event loop
// produced and posts it once (`MessageBatcher`), because a postMessage costs a few µs on both
// threads whatever it carries, while an item in a batch costs about one (docs/benchmarks.md).
// Request frames travel as transferred ArrayBuffers (no copy); a frame the handler released
// comes back the same way for reuse. Response bytes in a SharedArrayBuffer (pooled fetch reads)
// are shared, the rest is packed into one transferred buffer per batch.

import type { ConnectionSecurity } from '../connection.js';
import type { TlsListener } from '../tls-listener.js';

/** A connection's key on both sides: the listener's index and the worker's connection id. */
export interface ConnKey {
  readonly l: number;
  readonly c: number;
}

/** Worker → event loop. */
export type ToMain =
  | { readonly t: 'bound'; readonly l: number; readonly host: string; readonly port: number }
  | { readonly t: 'bind-failed'; readonly l: number; readonly error: string; readonly code?: string }
  /** The socket asks for a connection slot (`ConnectionQuotas.accept`); `q` names the ask. */
  | { readonly t: 'admit?'; readonly l: number; readonly q: number; readonly address: string }
  | { readonly t: 'admit-cancel'; readonly q: number }
  | { readonly t: 'release'; readonly l: number; readonly address: string }
  /** `first`: the connection's facts, sent with its first request only. */
  | (ConnKey & {
      readonly t: 'request';
      readonly s: number;
      readonly frame: ArrayBuffer;
      readonly length: number;
      readonly first?: { readonly remoteAddress: string; readonly security: ConnectionSecurity };
      /** Produce: [byteOffset, length] of each batch this thread verified (`precheckProduce`). */
      readonly v?: number[];
    })
  | (ConnKey & { readonly t: 'closed' })
  | { readonly t: 'sent'; readonly token: number }
  | {
      readonly t: 'log';
      readonly level: string;
      readonly msg: string;
      readonly fields?: Record<string, unknown>;
    }
  | { readonly t: 'stopped' };

/** Event loop → worker. */
export type ToWorker =
  | { readonly t: 'admit'; readonly q: number; readonly outcome: 'admitted' | 'refused' }
  | {
      readonly t: 'outcome';
      readonly s: number;
      readonly kind: 'respond' | 'none' | 'close';
      readonly chunks?: readonly Uint8Array[];
      /** Set when the response has an `onSent`: report it back with this token. */
      readonly token?: number;
      readonly reason?: string;
      readonly rejected?: boolean;
      readonly closeAfter?: string;
      readonly throttleMs?: number;
      /** The request frame's buffer, back for reuse (the handler keeps no reference to it). */
      readonly frame?: ArrayBuffer;
      /** SASL listeners: whether the session is authenticated now. */
      readonly authenticated?: boolean;
    }
  /** `ConnectionQuotas` wants a slot on listener `l`: close its oldest connection. */
  | { readonly t: 'make-room'; readonly l: number }
  /** Quotas exist now: the worker pipelines nothing any more (one request at a time each). */
  | { readonly t: 'quotas-enabled' }
  | { readonly t: 'stop' };

/** One listener as a network thread serves it. */
export interface WorkerListener {
  readonly name: string;
  readonly securityProtocol: string;
  readonly host: string;
  readonly port: number;
  readonly tls?: TlsListener;
  /** SASL listeners: the frame limit before authentication (`sasl.server.max.receive.size`). */
  readonly saslMaxReceiveBytes?: number;
  /** Bind with SO_REUSEPORT (every network thread binds the same port). */
  readonly reusePort: boolean;
  /** Whether this thread binds it (without reusePort each listener has one thread). */
  readonly bind: boolean;
}

export interface WorkerSetup {
  readonly index: number;
  readonly listeners: readonly WorkerListener[];
  readonly maxRequestBytes: number;
  readonly queuedMaxRequestBytes: number;
  readonly idleMs: number;
  readonly maxBacklogBytes?: number;
  readonly shutdownTimeoutMs?: number;
  /** Whether the broker applies connection quotas (admission asked of the event loop). */
  readonly quotas: boolean;
  readonly maxConnections: number;
  /** `pipelinable[key]` = a bit per version (bit v set: version v may be pipelined). */
  readonly pipelinable: readonly number[];
  readonly quotasEnabled: boolean;
  /** The log levels the broker's logger writes (others are not even sent). */
  readonly logLevels: readonly string[];
}

/** Bits per key of `WorkerSetup.pipelinable`: versions 0..30 (Kafka's highest is in the teens). */
export const MAX_PIPELINE_VERSION = 30;

/** Whether a frame may be pipelined, from its header alone (the dispatcher's answer, tabled). */
export function tablePipelinable(table: readonly number[], frame: Buffer): boolean {
  if (frame.length < 4) return false;
  const version = frame.readInt16BE(2);
  const bits = table[frame.readInt16BE(0)];
  return (
    bits !== undefined && version >= 0 && version <= MAX_PIPELINE_VERSION && (bits & (1 << version)) !== 0
  );
}

/**
 * Collects items and posts them once, after the current run of JavaScript (a microtask):
 * everything one event-loop turn produces leaves in one message.
 */
export class MessageBatcher<T> {
  #items: T[] = [];
  #transfer: ArrayBuffer[] = [];
  #queued = false;

  constructor(private readonly post: (items: T[], transfer: ArrayBuffer[]) => void) {}

  /** `transfer`: buffers the item carries that move to the other thread (absent ones skipped). */
  push(item: T, ...transfer: (ArrayBuffer | undefined)[]): void {
    this.#items.push(item);
    for (const t of transfer) if (t !== undefined) this.#transfer.push(t);
    if (!this.#queued) {
      this.#queued = true;
      queueMicrotask(this.flush);
    }
  }

  readonly flush = (): void => {
    this.#queued = false;
    if (this.#items.length === 0) return;
    const items = this.#items;
    const transfer = this.#transfer;
    this.#items = [];
    this.#transfer = [];
    this.post(items, transfer);
  };
}
