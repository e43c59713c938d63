// One listener (`listeners` entry): accepts connections, enforces `max.connections`, and on
// shutdown stops accepting, lets every connection answer what it already received, then closes
// them. A TLS listener hands a connection on only once its handshake succeeded; a failed
// handshake (plaintext bytes, an untrusted or expired client certificate) closes that
// connection alone. Every connection learns its listener and its peer's principal. On a SASL
// listener each connection authenticates first: its handler is a `SaslGate` around the shared
// one (`sasl/sasl-gate.ts`), and its principal is the SASL one, never the certificate's.

import { createServer, type Server, type Socket } from 'node:net';
import { createServer as createTlsServer, type TLSSocket } from 'node:tls';
import type { Logger } from '../logger.js';
import { BufferPool } from './buffer-pool.js';
import {
  Connection,
  type ConnectionContext,
  type ConnectionSecurity,
  type RequestHandler,
} from './connection.js';
import type { ConnectionQuotas } from './connection-quotas.js';
import { MemoryPool } from './memory-pool.js';
import { ANONYMOUS, sslPrincipal } from './principal-mapper.js';
import { RejectionLog } from './rejection-log.js';
import { SaslGate } from './sasl/sasl-gate.js';
import { type SaslListener, SaslSession } from './sasl/sasl-session.js';
import type { ScramCredentialLookup } from './sasl/scram-server.js';
import type { TlsListener } from './tls-listener.js';

export interface ListenerIdentity {
  /** Upper-case listener name. */
  readonly name: string;
  readonly securityProtocol: string;
  /** Set for SSL and SASL_SSL listeners (and only for them). */
  readonly tls?: TlsListener;
  /** Set for SASL_PLAINTEXT and SASL_SSL listeners: every connection authenticates first. */
  readonly sasl?: SaslListener;
}

export interface SocketServerOptions {
  readonly host: string;
  readonly port: number;
  readonly maxRequestBytes: number;
  /** `queued.max.request.bytes`; <= 0 = unlimited. */
  readonly queuedMaxRequestBytes: number;
  readonly idleMs: number;
  readonly maxConnections: number;
  readonly handler: RequestHandler;
  readonly logger: Logger;
  /** How long `close()` lets connections finish in-flight requests before cutting them. */
  readonly shutdownTimeoutMs?: number;
  /** Where large request frames come from (shared with other users, e.g. fetch reads). */
  readonly buffers?: BufferPool;
  /** Per-connection read-ahead limit (`DEFAULT_MAX_BACKLOG_BYTES`). */
  readonly maxBacklogBytes?: number;
  /** Which listener this is; default a PLAINTEXT listener named PLAINTEXT. */
  readonly listener?: ListenerIdentity;
  /** Where SASL/SCRAM credentials come from (the metadata store); absent = no SCRAM user exists. */
  readonly scramCredentials?: ScramCredentialLookup;
  /**
   * The broker's connection limits, shared by its listeners; absent = only `maxConnections`,
   * enforced by refusing (Node's own limit). A network thread passes a stand-in that asks the
   * event loop (`threads/remote-handler.ts`).
   */
  readonly connectionQuotas?: Pick<ConnectionQuotas, 'accept' | 'release' | 'waiting' | 'addListener'>;
  /** Bind with SO_REUSEPORT (network threads sharing a port; Node ≥ 22.12 on Linux). */
  readonly reusePort?: boolean;
  /**
   * Plain TCP: a socket reads nothing until admitted. A network thread's admission is decided by
   * the event loop, so every socket waits for it; a paused socket would meanwhile read its first
   * request into its stream buffer, and the connection could no longer read into frames of its
   * own (`socket-reads.ts`). A waiting socket whose client left is noticed once admitted.
   */
  readonly pauseOnConnect?: boolean;
  /** Told when a connection has closed (a network thread tells the event loop). */
  readonly onConnectionClosed?: (conn: ConnectionContext) => void;
}

/** Sockets parked while their listener is at its limit, at most (a Kafka acceptor's backlog). */
const MAX_PARKED = 1024;

const NO_SCRAM_USERS: ScramCredentialLookup = async () => null;

const PLAINTEXT: ListenerIdentity = { name: 'PLAINTEXT', securityProtocol: 'PLAINTEXT' };

export class SocketServer {
  readonly pool: MemoryPool;
  /** Large request frames, shared by every connection. */
  readonly buffers: BufferPool;
  private readonly server: Server;
  private readonly connections = new Set<Connection>();
  /** Accepted sockets waiting for a connection slot (see ConnectionQuotas). */
  private readonly parked = new Set<Socket>();
  private readonly rejections: RejectionLog;
  private nextId = 1;
  private boundPort = -1;
  private boundHost = '';

  constructor(private readonly opts: SocketServerOptions) {
    this.pool = new MemoryPool(opts.queuedMaxRequestBytes);
    this.buffers = opts.buffers ?? new BufferPool();
    this.rejections = new RejectionLog(opts.logger);
    // allowHalfOpen: a client that sends its request and then shuts down its write side still
    // gets the answer before we close.
    const tls = this.listener.tls;
    if (tls === undefined) {
      const pauseOnConnect = opts.pauseOnConnect === true;
      this.server = createServer({ allowHalfOpen: true, noDelay: true, pauseOnConnect }, (s) => {
        this.accept(s);
        // Reading starts once the connection exists (or never, for a socket refused or parked).
        if (pauseOnConnect && !this.parked.has(s) && !s.destroyed) s.resume();
      });
    } else {
      this.server = createTlsServer({ ...tls.options, allowHalfOpen: true, noDelay: true }, (s) =>
        this.acceptTls(s, tls),
      );
      // Node destroys the socket; only that client is affected.
      this.server.on('tlsClientError', (e: Error, s: TLSSocket) =>
        opts.logger.log('debug', 'TLS handshake failed', {
          listener: this.listener.name,
          conn: `${s.remoteAddress ?? '?'}:${s.remotePort ?? '?'}`,
          error: e.message,
        }),
      );
    }
    if (opts.connectionQuotas === undefined) this.server.maxConnections = opts.maxConnections;
    else
      opts.connectionQuotas.addListener(this.listener.name, () => {
        const oldest = this.connections.values().next();
        if (oldest.done) return false;
        oldest.value.close('max.connections reached: making room for an inter-broker connection');
        return true;
      });
  }

  get listener(): ListenerIdentity {
    return this.opts.listener ?? PLAINTEXT;
  }

  private acceptTls(socket: TLSSocket, tls: TlsListener): void {
    const cert = socket.getPeerX509Certificate();
    // `requested` lets a client without a certificate in, never one with an invalid certificate.
    if (cert !== undefined && !socket.authorized) {
      this.refuse(socket, `client certificate refused: ${String(socket.authorizationError)}`);
      return;
    }
    // On SASL_SSL the principal comes from the SASL exchange, not from the certificate.
    if (this.listener.sasl !== undefined) {
      this.accept(socket);
      return;
    }
    let principal: string;
    try {
      principal = sslPrincipal(tls.principalRules, cert);
    } catch (e) {
      this.refuse(socket, (e as Error).message);
      return;
    }
    this.accept(socket, principal);
  }

  private refuse(socket: Socket, why: string): void {
    this.opts.logger.log('info', 'TLS client refused', {
      listener: this.listener.name,
      conn: `${socket.remoteAddress ?? '?'}:${socket.remotePort ?? '?'}`,
      why,
    });
    socket.destroy();
  }

  get port(): number {
    return this.boundPort;
  }

  get host(): string {
    return this.boundHost;
  }

  get connectionCount(): number {
    return this.connections.size;
  }

  listen(): Promise<void> {
    return new Promise((resolve, reject) => {
      const onError = (e: Error): void => reject(e);
      this.server.once('error', onError);
      const options = { host: this.opts.host, port: this.opts.port, backlog: 1024 };
      // `reusePort` is unknown to Node 20's types (and ignored by Node 20 itself).
      if (this.opts.reusePort) Object.assign(options, { reusePort: true });
      this.server.listen(options, () => {
        this.server.off('error', onError);
        const addr = this.server.address();
        if (addr && typeof addr === 'object') {
          this.boundPort = addr.port;
          this.boundHost = addr.address;
        }
        resolve();
      });
    });
  }

  /** Counts the connection against the limits first: it may wait for a slot, or be refused. */
  private accept(socket: Socket, principal = ANONYMOUS): void {
    const quotas = this.opts.connectionQuotas;
    if (quotas === undefined) {
      this.open(socket, principal);
      return;
    }
    const listener = this.listener.name;
    const address = socket.remoteAddress ?? '?';
    let decided = false;
    let parked = false;
    const cancel = quotas.accept(listener, address, (outcome) => {
      decided = true;
      this.parked.delete(socket);
      if (outcome === 'refused' || socket.destroyed) {
        if (outcome === 'admitted') quotas.release(listener, address);
        socket.destroy();
        return;
      }
      this.open(socket, principal, () => quotas.release(listener, address));
      if (parked) socket.resume();
    });
    if (decided) return;
    if (quotas.waiting(listener) > MAX_PARKED) {
      cancel();
      socket.destroy();
      return;
    }
    parked = true;
    socket.pause();
    this.parked.add(socket);
    socket.on('error', () => {});
    socket.once('close', () => {
      this.parked.delete(socket);
      cancel();
    });
  }

  private open(socket: Socket, principal: string, released?: () => void): void {
    const security: ConnectionSecurity = {
      listenerName: this.listener.name,
      securityProtocol: this.listener.securityProtocol,
      principal,
    };
    const sasl = this.listener.sasl
      ? new SaslSession(this.listener.sasl, this.opts.scramCredentials ?? NO_SCRAM_USERS)
      : undefined;
    const conn = new Connection(
      socket,
      this.nextId++,
      {
        maxRequestBytes: this.opts.maxRequestBytes,
        idleMs: this.opts.idleMs,
        pool: this.pool,
        buffers: this.buffers,
        maxBacklogBytes: this.opts.maxBacklogBytes,
        handler: sasl ? new SaslGate(this.opts.handler, sasl, this.opts.logger) : this.opts.handler,
        logger: this.opts.logger,
        rejections: this.rejections,
        security,
        ...(sasl ? { sasl } : {}),
      },
      (c) => {
        this.connections.delete(c);
        released?.();
        this.opts.onConnectionClosed?.(c.context);
      },
    );
    this.connections.add(conn);
  }

  /** Stops accepting; connections answer what they have received, then close. */
  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const s of this.parked) s.destroy();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, this.opts.shutdownTimeoutMs ?? 15_000);
    });
    await Promise.race([Promise.all([...this.connections].map((c) => c.shutdown())), timeout]);
    clearTimeout(timer);
    for (const c of this.connections) {
      this.opts.logger.log('warn', 'closing a connection with requests still in flight', {
        conn: c.context.remoteAddress,
      });
      c.close('shutdown timeout');
    }
    if (this.opts.buffers === undefined) this.buffers.close();
    await closed;
  }
}
