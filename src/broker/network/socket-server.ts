// The TCP listener: accepts connections, enforces `max.connections`, and on shutdown stops
// accepting, lets every connection answer what it already received, then closes them.

import { createServer, type Server, type Socket } from 'node:net';
import type { Logger } from '../logger.js';
import { BufferPool } from './buffer-pool.js';
import { Connection, type RequestHandler } from './connection.js';
import { MemoryPool } from './memory-pool.js';
import { RejectionLog } from './rejection-log.js';

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
}

export class SocketServer {
  readonly pool: MemoryPool;
  /** Large request frames, shared by every connection. */
  readonly buffers: BufferPool;
  private readonly server: Server;
  private readonly connections = new Set<Connection>();
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
    this.server = createServer({ allowHalfOpen: true, noDelay: true }, (s) => this.accept(s));
    this.server.maxConnections = opts.maxConnections;
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
      this.server.listen({ host: this.opts.host, port: this.opts.port, backlog: 1024 }, () => {
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

  private accept(socket: Socket): void {
    const conn = new Connection(
      socket,
      this.nextId++,
      {
        maxRequestBytes: this.opts.maxRequestBytes,
        idleMs: this.opts.idleMs,
        pool: this.pool,
        buffers: this.buffers,
        maxBacklogBytes: this.opts.maxBacklogBytes,
        handler: this.opts.handler,
        logger: this.opts.logger,
        rejections: this.rejections,
      },
      (c) => this.connections.delete(c),
    );
    this.connections.add(conn);
  }

  /** Stops accepting; connections answer what they have received, then close. */
  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
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
