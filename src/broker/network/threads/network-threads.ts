// `num.network.threads` = N > 1: N − 1 worker threads own the broker's sockets, the event loop
// (the N-th thread) handles every request and owns all state, as with one thread. Which thread
// binds which listener: with SO_REUSEPORT (Node ≥ 22.12 on Linux) every network thread binds
// every listener on the same port and the kernel spreads connections; on Node 20 a listening
// socket can have one owner only (no reusePort; sharing one fd between two event loops lets the
// first thread to close it free a number the other still uses), so listeners are dealt to the
// threads round-robin. A thread that dies takes its connections with it (its sockets close with
// it); it is started again on the same ports, and the broker goes on. See docs/design.md.

import { extname } from 'node:path';
import { Worker } from 'node:worker_threads';
import { LOG_LEVELS, type LogLevel, logEnabled } from '../../logger.js';
import type { ConnectionQuotas } from '../connection-quotas.js';
import type { ListenerIdentity, SocketServerOptions } from '../socket-server.js';
import type { ToMain, ToWorker, WorkerListener, WorkerSetup } from './messages.js';
import { RemoteConnections } from './remote-connections.js';

/**
 * What a `SocketServer` takes, for every listener at once (`queuedMaxRequestBytes` is shared out
 * evenly between the network threads), plus what the threads need to know of the dispatcher.
 */
export interface NetworkThreadsOptions
  extends Pick<
    SocketServerOptions,
    | 'maxRequestBytes'
    | 'queuedMaxRequestBytes'
    | 'idleMs'
    | 'maxConnections'
    | 'handler'
    | 'logger'
    | 'shutdownTimeoutMs'
    | 'maxBacklogBytes'
    | 'scramCredentials'
  > {
  /** `num.network.threads`: the event loop plus `threads − 1` network threads. */
  readonly threads: number;
  readonly listeners: readonly {
    readonly identity: ListenerIdentity;
    readonly host: string;
    readonly port: number;
  }[];
  readonly connectionQuotas?: ConnectionQuotas;
  /** The dispatcher's pipelining table (`pipelineTable`). */
  readonly pipelinable: readonly number[];
  /** Whether a client quota was ever configured (then nothing is pipelined). */
  readonly quotasEnabled: () => boolean;
  /** Overrides the runtime check (tests). */
  readonly reusePort?: boolean;
}

/** Whether `listen({ reusePort })` exists here: Node ≥ 22.12 (or ≥ 23.1) on Linux. */
export function runtimeHasReusePort(): boolean {
  if (process.platform !== 'linux') return false;
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
  return major > 23 || (major === 23 && minor >= 1) || (major === 22 && minor >= 12);
}

/** Every running `NetworkThreads` of this process (tests kill a network thread through it). */
const RUNNING = new Set<NetworkThreads>();

export function runningNetworkThreads(): readonly NetworkThreads[] {
  return [...RUNNING];
}

const RESTART_BACKOFF_MS = 100;
const RESTART_BACKOFF_MAX_MS = 5_000;

/** One listener as the broker sees it: bound by network threads, named, counted. */
export class RemoteListener {
  host = '';
  port = -1;

  constructor(
    readonly listener: ListenerIdentity,
    private readonly threads: NetworkThreads,
    private readonly index: number,
  ) {}

  get connectionCount(): number {
    return this.threads.connectionsOf(this.index);
  }

  /** The listeners close together (`NetworkThreads.close`). */
  async close(): Promise<void> {
    await this.threads.close();
  }
}

interface Slot {
  readonly index: number;
  /** Listener indexes this thread binds. */
  readonly binds: readonly number[];
  worker: Worker | null;
  conns: RemoteConnections | null;
  restarts: number;
  stopped: Promise<void>;
}

export class NetworkThreads {
  readonly listeners: RemoteListener[];
  readonly #slots: Slot[] = [];
  readonly #reusePort: boolean;
  #closing: Promise<void> | null = null;
  #quotasAnnounced = false;
  #nextId = 1;

  private constructor(private readonly opts: NetworkThreadsOptions) {
    this.listeners = opts.listeners.map((l, i) => new RemoteListener(l.identity, this, i));
    const workers = Math.max(1, opts.threads - 1);
    this.#reusePort = opts.reusePort ?? runtimeHasReusePort();
    for (let w = 0; w < workers; w++) {
      const binds = this.listeners.map((_, i) => i).filter((i) => this.#reusePort || i % workers === w);
      // Without reusePort a thread beyond the listener count would have nothing to serve.
      if (binds.length > 0)
        this.#slots.push({
          index: w,
          binds,
          worker: null,
          conns: null,
          restarts: 0,
          stopped: Promise.resolve(),
        });
    }
    opts.listeners.forEach((l, i) => {
      opts.connectionQuotas?.addListener(l.identity.name, () => this.#makeRoom(i));
    });
  }

  /** Starts the network threads; resolves once every listener is bound (or rejects, all closed). */
  static async start(opts: NetworkThreadsOptions): Promise<NetworkThreads> {
    const threads = new NetworkThreads(opts);
    RUNNING.add(threads);
    try {
      // The first thread binds the configured ports (port 0: an ephemeral one); the others
      // bind the ports it got, so with reusePort they all share them.
      const [first, ...rest] = threads.#slots;
      await threads.#spawn(first!);
      await Promise.all(rest.map((s) => threads.#spawn(s)));
    } catch (e) {
      await threads.close();
      throw e;
    }
    return threads;
  }

  connectionsOf(listener: number): number {
    let n = 0;
    for (const s of this.#slots) n += s.conns?.connectionsOf(listener) ?? 0;
    return n;
  }

  /** The running network threads (their idle ratio in /metrics). */
  get workers(): Worker[] {
    const out: Worker[] = [];
    for (const s of this.#slots) if (s.worker !== null) out.push(s.worker);
    return out;
  }

  /** The worker of network thread `index` (tests: killing one). */
  workerOf(index: number): Worker | null {
    return this.#slots[index]?.worker ?? null;
  }

  #setup(slot: Slot): WorkerSetup {
    const { opts } = this;
    const listeners: WorkerListener[] = opts.listeners.map((l, i) => {
      const bound = this.listeners[i]!;
      return {
        name: l.identity.name,
        securityProtocol: l.identity.securityProtocol,
        host: l.host,
        // Once bound, always the same port: restarts and later threads join it.
        port: bound.port >= 0 ? bound.port : l.port,
        ...(l.identity.tls ? { tls: l.identity.tls } : {}),
        ...(l.identity.sasl ? { saslMaxReceiveBytes: l.identity.sasl.maxReceiveBytes } : {}),
        reusePort: this.#reusePort,
        bind: false,
      };
    });
    const workers = this.#slots.length;
    return {
      index: slot.index,
      listeners: listeners.map((l, i) => ({ ...l, bind: slot.binds.includes(i) })),
      maxRequestBytes: opts.maxRequestBytes,
      queuedMaxRequestBytes:
        opts.queuedMaxRequestBytes > 0
          ? Math.ceil(opts.queuedMaxRequestBytes / workers)
          : opts.queuedMaxRequestBytes,
      idleMs: opts.idleMs,
      ...(opts.maxBacklogBytes !== undefined ? { maxBacklogBytes: opts.maxBacklogBytes } : {}),
      ...(opts.shutdownTimeoutMs !== undefined ? { shutdownTimeoutMs: opts.shutdownTimeoutMs } : {}),
      quotas: opts.connectionQuotas !== undefined,
      maxConnections: opts.maxConnections,
      pipelinable: opts.pipelinable,
      quotasEnabled: opts.quotasEnabled(),
      logLevels: LOG_LEVELS.filter((l) => logEnabled(opts.logger, l)),
    };
  }

  /** Starts `slot`'s thread; resolves once its listeners are bound. */
  #spawn(slot: Slot): Promise<void> {
    const { opts } = this;
    return new Promise<void>((resolve, reject) => {
      const worker = new Worker(WORKER_BOOT, { eval: true, workerData: this.#setup(slot) });
      let pending = slot.binds.length;
      let failed: Error | null = null;
      const conns = new RemoteConnections(
        {
          handler: opts.handler,
          logger: opts.logger,
          listeners: opts.listeners.map((l) => ({
            name: l.identity.name,
            ...(l.identity.sasl ? { sasl: l.identity.sasl } : {}),
          })),
          ...(opts.connectionQuotas ? { quotas: opts.connectionQuotas } : {}),
          ...(opts.scramCredentials ? { scramCredentials: opts.scramCredentials } : {}),
          nextId: () => this.#nextId++,
        },
        (items, transfer) => worker.postMessage(items, transfer),
      );
      slot.worker = worker;
      slot.conns = conns;
      let exited!: () => void;
      slot.stopped = new Promise((r) => {
        exited = r;
      });
      worker.on('message', (items: ToMain[]) => {
        for (const m of items) {
          if (m.t === 'bound') {
            const l = this.listeners[m.l]!;
            l.host = m.host;
            l.port = m.port;
            if (--pending === 0) {
              slot.restarts = 0;
              resolve();
            }
          } else if (m.t === 'bind-failed') {
            failed = Object.assign(new Error(m.error), m.code ? { code: m.code } : {});
            reject(failed);
          } else if (m.t === 'log') {
            opts.logger.log(m.level as LogLevel, m.msg, { networkThread: slot.index, ...m.fields });
          } else if (m.t === 'stopped') {
            void worker.terminate();
          } else conns.receive(m);
        }
        this.#announceQuotas();
      });
      worker.on('error', (e) =>
        opts.logger.log('error', 'network thread failed', { networkThread: slot.index, error: e.message }),
      );
      worker.on('exit', (code) => {
        conns.abandon();
        if (slot.worker === worker) {
          slot.worker = null;
          slot.conns = null;
        }
        exited();
        if (pending > 0 && failed === null)
          reject(new Error(`network thread ${slot.index} exited (${code})`));
        if (this.#closing === null) this.#restart(slot, code);
      });
    });
  }

  /** A thread died while serving: its connections are gone; start it again on its ports. */
  #restart(slot: Slot, code: number): void {
    const delay = Math.min(RESTART_BACKOFF_MAX_MS, RESTART_BACKOFF_MS * 2 ** slot.restarts);
    slot.restarts++;
    this.opts.logger.log('error', 'network thread exited: its connections were closed; restarting it', {
      networkThread: slot.index,
      code,
      inMs: delay,
    });
    setTimeout(() => {
      if (this.#closing !== null || slot.worker !== null) return;
      this.#spawn(slot).catch((e: unknown) => {
        this.opts.logger.log('error', 'network thread could not start again', {
          networkThread: slot.index,
          error: e instanceof Error ? e.message : String(e),
        });
        void slot.worker?.terminate();
      });
    }, delay).unref();
  }

  /** Client quotas turn pipelining off for good (one request at a time per connection). */
  #announceQuotas(): void {
    if (this.#quotasAnnounced || !this.opts.quotasEnabled()) return;
    this.#quotasAnnounced = true;
    for (const s of this.#slots) s.conns?.out.push({ t: 'quotas-enabled' });
  }

  /** `ConnectionQuotas` needs a slot on listener `l`: a thread holding one closes its oldest. */
  #makeRoom(l: number): boolean {
    const slot = this.#slots.find((s) => (s.conns?.heldOn(l) ?? 0) > 0);
    if (slot === undefined) return false;
    slot.conns!.out.push({ t: 'make-room', l } satisfies ToWorker);
    return true;
  }

  /** Stops accepting; connections answer what they received, then close; threads end. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      RUNNING.delete(this);
      const grace = (this.opts.shutdownTimeoutMs ?? 15_000) + 5_000;
      await Promise.all(
        this.#slots.map(async (s) => {
          const worker = s.worker;
          if (worker === null) return;
          s.conns?.out.push({ t: 'stop' });
          const timer = setTimeout(() => void worker.terminate(), grace);
          await s.stopped;
          clearTimeout(timer);
        }),
      );
    })();
    return this.#closing;
  }
}

/**
 * The thread's entry: the compiled module, or from the sources (tsx) the TypeScript one with
 * tsx registered first (a worker does not inherit the parent's loader).
 */
const WORKER_BOOT = (() => {
  const ext = extname(new URL(import.meta.url).pathname);
  const entry = new URL(`./network-worker${ext}`, import.meta.url).href;
  if (ext !== '.ts') return `import(${JSON.stringify(entry)});`;
  const tsx = import.meta.resolve('tsx/esm/api');
  return `import(${JSON.stringify(tsx)}).then((t) => { t.register(); return import(${JSON.stringify(entry)}); });`;
})();

/** The dispatcher's `pipelinable` per API key, as bits per version (`WorkerSetup.pipelinable`). */
export function pipelineTable(
  get: (key: number) => { readonly pipelinable?: boolean | ((version: number) => boolean) } | undefined,
  maxKey = 128,
): number[] {
  const table: number[] = [];
  for (let key = 0; key < maxKey; key++) {
    const p = get(key)?.pipelinable;
    let bits = 0;
    for (let v = 0; v <= 30; v++) if (p === true || (typeof p === 'function' && p(v))) bits |= 1 << v;
    table[key] = bits;
  }
  return table;
}
