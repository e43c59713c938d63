// The session half of ZkClient (zk-client.ts): one node-zookeeper-client handle per ZooKeeper
// session, replaced by a fresh one when the session expires (a library handle is dead once
// expired); connection state and events; every request tracked so that an expiry or close() fails
// it at once instead of leaving it unanswered; one-shot watches told when their session died.

import { EventEmitter } from 'node:events';
import {
  type Client,
  createClient,
  type Event as LibraryEvent,
  type Option,
  State,
} from 'node-zookeeper-client';
import { libraryConnectString, type ParsedConnectString } from './zk-connect-string.js';
import { toZkError, ZkError } from './zk-errors.js';
import { abandon, installReadTimeout, isClosed, type Watchdog } from './zk-liveness.js';
import { sessionIdHex } from './zk-stat.js';
import type {
  ZkClientEvents,
  ZkClientOptions,
  ZkConnectionState,
  ZkWatchEvent,
  ZkWatchEventType,
  ZkWatcher,
} from './zk-types.js';

const EVENT_TYPES: Record<number, ZkWatchEventType> = {
  1: 'NODE_CREATED',
  2: 'NODE_DELETED',
  3: 'NODE_DATA_CHANGED',
  4: 'NODE_CHILDREN_CHANGED',
};

/** One library handle = one session. */
export interface ZkHandle {
  readonly client: Client;
  readonly watchdog: Watchdog;
  readonly pending: Set<(e: ZkError) => void>;
  readonly watchers: Set<(e: ZkWatchEvent) => void>;
  sessionId: bigint;
  dead: 'expired' | 'closed' | null;
}

/** A library-style callback, settled once per request. */
export type ZkCallback<T> = (err: unknown, value?: T) => void;

export abstract class ZkSession extends EventEmitter<ZkClientEvents> {
  readonly connectString: string;
  readonly hosts: string;
  readonly chroot: string | null;
  protected readonly sessionTimeoutMs: number;
  private readonly renew: boolean;
  private readonly onRequestLatency: ((ms: number) => void) | undefined;
  private handle: ZkHandle;
  private connState: ZkConnectionState = 'CONNECTING';
  private renewing = false;
  private closePromise: Promise<void> | null = null;
  private readonly history: bigint[] = [];

  protected constructor(parsed: ParsedConnectString, options: ZkClientOptions) {
    super();
    this.connectString = libraryConnectString(parsed);
    this.hosts = parsed.hosts;
    this.chroot = parsed.chroot;
    this.sessionTimeoutMs = options.sessionTimeoutMs ?? 18_000;
    this.renew = options.renewExpiredSession ?? true;
    this.onRequestLatency = options.onRequestLatency;
    this.handle = this.open(options.session);
  }

  get state(): ZkConnectionState {
    return this.connState;
  }

  /** The current session's id (0n before the first connection). */
  get sessionId(): bigint {
    return this.handle.sessionId;
  }

  get sessionIdHex(): string {
    return sessionIdHex(this.handle.sessionId);
  }

  /** Every session this client has had, oldest first, the current one last. */
  get sessionIds(): readonly bigint[] {
    return this.history;
  }

  /** The session timeout the server granted (the requested one until connected). */
  get negotiatedSessionTimeoutMs(): number {
    return this.handle.client.getSessionTimeout();
  }

  /** Id and password of the current session: a secret, for handing the session over (tests). */
  sessionCredentials(): { id: bigint; password: Buffer } {
    return { id: this.handle.sessionId, password: this.handle.client.getSessionPassword() };
  }

  /** Resolves once connected; rejects on close, on expiry without renewal, or after timeoutMs. */
  waitUntilConnected(timeoutMs = Number.POSITIVE_INFINITY): Promise<void> {
    if (this.connState === 'CONNECTED') return Promise.resolve();
    if (this.connState === 'CLOSED') return Promise.reject(this.closedError('waitUntilConnected'));
    if (this.connState === 'EXPIRED') return Promise.reject(this.expiredError('waitUntilConnected'));
    return new Promise((resolve, reject) => {
      const done = (err: ZkError | null): void => {
        this.off('connected', onConnected);
        this.off('closed', onClosed);
        this.off('expired', onExpired);
        if (timer) clearTimeout(timer);
        if (err) reject(err);
        else resolve();
      };
      const onConnected = (): void => done(null);
      const onClosed = (): void => done(this.closedError('waitUntilConnected'));
      const onExpired = (): void => {
        if (!this.renew) done(this.expiredError('waitUntilConnected'));
      };
      this.on('connected', onConnected);
      this.on('closed', onClosed);
      this.on('expired', onExpired);
      const timer = Number.isFinite(timeoutMs)
        ? setTimeout(
            () =>
              done(
                new ZkError(
                  'CONNECT_TIMEOUT',
                  `not connected to ZooKeeper at ${this.hosts} after ${timeoutMs} ms`,
                ),
              ),
            timeoutMs,
          )
        : null;
    });
  }

  /** Closes the session (its ephemerals go at once when connected) and stops reconnecting. */
  close(): Promise<void> {
    this.closePromise ??= this.doClose();
    return this.closePromise;
  }

  private async doClose(): Promise<void> {
    const h = this.handle;
    const wasConnected = this.connState === 'CONNECTED';
    this.connState = 'CLOSED';
    this.retire(h, 'closed');
    if (wasConnected) {
      // Let the close-session request reach the server so ephemerals vanish now, not at timeout.
      try {
        h.client.close();
      } catch {
        // nothing to do: abandon() below cleans up either way
      }
      const deadline = Date.now() + 3000;
      while (!isClosed(h.client) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    }
    abandon(h.client);
    this.emit('closed');
  }

  private open(session?: { id: bigint; password: Buffer }): ZkHandle {
    const opts: Partial<Option> & { sessionId?: Buffer; sessionPassword?: Buffer } = {
      sessionTimeout: this.sessionTimeoutMs,
      spinDelay: 250,
      retries: 0,
    };
    if (session) {
      const id = Buffer.alloc(8);
      id.writeBigInt64BE(BigInt.asIntN(64, session.id));
      opts.sessionId = id;
      opts.sessionPassword = session.password;
    }
    const client = createClient(this.connectString, opts);
    const h: ZkHandle = {
      client,
      watchdog: installReadTimeout(client),
      pending: new Set(),
      watchers: new Set(),
      sessionId: 0n,
      dead: null,
    };
    client.on('state', (s: State) => this.onState(h, s));
    client.connect();
    return h;
  }

  private onState(h: ZkHandle, s: State): void {
    if (h !== this.handle || h.dead) return;
    if (s === State.SYNC_CONNECTED) {
      h.sessionId = h.client.getSessionId().readBigInt64BE(0);
      if (this.history[this.history.length - 1] !== h.sessionId) this.history.push(h.sessionId);
      this.connState = 'CONNECTED';
      if (this.renewing) {
        this.renewing = false;
        this.emit('newSession', h.sessionId);
      }
      this.emit('connected', h.sessionId);
    } else if (s === State.DISCONNECTED) {
      if (this.connState === 'CONNECTED') {
        this.connState = 'DISCONNECTED';
        this.emit('disconnected');
      }
    } else if (s === State.EXPIRED) {
      const old = h.sessionId;
      this.retire(h, 'expired');
      abandon(h.client);
      if (this.renew) {
        // A new handle first, so that whatever 'expired' listeners do waits for the new session.
        this.connState = 'CONNECTING';
        this.renewing = true;
        this.handle = this.open();
      } else {
        this.connState = 'EXPIRED';
      }
      this.emit('expired', old);
    }
  }

  /** Fails the handle's pending requests and tells its watchers that they will never fire. */
  private retire(h: ZkHandle, why: 'expired' | 'closed'): void {
    h.dead = why;
    h.watchdog.stop();
    const err = why === 'closed' ? this.closedError('request') : this.expiredError('request');
    for (const fail of [...h.pending]) fail(err);
    h.pending.clear();
    const event: ZkWatchEvent = { type: why === 'closed' ? 'CLOSED' : 'SESSION_EXPIRED', path: '' };
    for (const w of [...h.watchers]) w(event);
    h.watchers.clear();
  }

  /** A library watcher that reports to `user` once, asynchronously, tracked for expiry/close. */
  protected wrapWatcher(
    h: ZkHandle,
    path: string,
    user: ZkWatcher,
  ): { fn: (e: LibraryEvent) => void; arm(): void } {
    let fired = false;
    const deliver = (event: ZkWatchEvent): void => {
      if (fired) return;
      fired = true;
      h.watchers.delete(deliver);
      // Never run user code inside the library's socket handler: a throw there would wedge it.
      queueMicrotask(() => user(event.path === '' ? { type: event.type, path } : event));
    };
    return {
      fn: (e: LibraryEvent) =>
        deliver({ type: EVENT_TYPES[e.type] ?? 'NODE_DATA_CHANGED', path: e.path ?? path }),
      arm: () => {
        if (!fired) h.watchers.add(deliver);
      },
    };
  }

  /** Runs one library call on the current handle, tracking it so expiry/close can fail it. */
  protected call<T>(
    op: string,
    path: string | undefined,
    invoke: (c: Client, cb: ZkCallback<T>, h: ZkHandle) => void,
  ): Promise<T> {
    if (this.connState === 'CLOSED') return Promise.reject(this.closedError(op, path));
    const h = this.handle;
    if (h.dead) return Promise.reject(this.expiredError(op, path));
    const sentAt = this.onRequestLatency === undefined ? 0 : performance.now();
    return new Promise<T>((resolve, reject) => {
      let settled = false;
      const fail = (e: ZkError): void => {
        if (settled) return;
        settled = true;
        h.pending.delete(fail);
        reject(e);
      };
      h.pending.add(fail);
      const cb: ZkCallback<T> = (err, value) => {
        if (settled) return;
        this.onRequestLatency?.(performance.now() - sentAt);
        if (err) return fail(this.mapError(h, toZkError(err, op, path)));
        settled = true;
        h.pending.delete(fail);
        resolve(value as T);
      };
      try {
        invoke(h.client, cb, h);
      } catch (e) {
        fail(toZkError(e, op, path));
      }
    });
  }

  /** The library reports CONNECTION_LOSS for requests of a handle we closed or that expired. */
  private mapError(h: ZkHandle, e: ZkError): ZkError {
    if (e.code !== 'CONNECTION_LOSS' || !h.dead) return e;
    return h.dead === 'closed' ? this.closedError('request', e.path) : this.expiredError('request', e.path);
  }

  private closedError(op: string, path?: string): ZkError {
    return new ZkError('CLOSED', `ZooKeeper ${op}${path ? ` ${path}` : ''}: the client is closed`, path);
  }

  private expiredError(op: string, path?: string): ZkError {
    return new ZkError(
      'SESSION_EXPIRED',
      `ZooKeeper ${op}${path ? ` ${path}` : ''}: the session expired`,
      path,
    );
  }
}
