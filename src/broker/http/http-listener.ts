// The broker's HTTP listener (`http.listener`): /metrics in Prometheus text format and the two
// Kubernetes probes. It opens first thing at startup so that /health/live answers while logs
// load; /health/ready and /metrics answer 503 until the broker says it is ready. Only GET and
// HEAD of these three paths are served; anything else is refused with 404/405, and header blocks
// past MAX_HEADER_BYTES are refused by Node's parser (431, then the connection closes).
// `mount(prefix, handler)` hands every other path under a prefix (all methods) to a handler the
// caller supplies: `samsa start` mounts the web console at `/`. The broker never imports one.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../logger.js';

/** Probes and scrapers send a few hundred bytes of headers; anything far larger is not one of them. */
export const MAX_HEADER_BYTES = 8 * 1024;
/** A client that has not sent its whole request by then is dropped (slowloris). */
const REQUEST_TIMEOUT_MS = 10_000;

export interface MetricsSource {
  readonly contentType: string;
  metrics(): Promise<string>;
}

/** A handler mounted on the listener: it answers every request it is given (404 included). */
export type HttpHandler = (req: IncomingMessage, res: ServerResponse) => void;

export interface HttpListenerOptions {
  readonly host: string;
  readonly port: number;
  readonly logger: Logger;
}

export class HttpListener {
  #ready = false;
  #metrics: MetricsSource | null = null;
  /** Longest prefix first. */
  #mounts: { prefix: string; handler: HttpHandler }[] = [];

  private constructor(
    private readonly server: Server,
    private readonly logger: Logger,
  ) {}

  static async open(opts: HttpListenerOptions): Promise<HttpListener> {
    let self: HttpListener | null = null;
    const server = createServer(
      {
        maxHeaderSize: MAX_HEADER_BYTES,
        requestTimeout: REQUEST_TIMEOUT_MS,
        headersTimeout: REQUEST_TIMEOUT_MS,
      },
      (req, res) => self!.#route(req, res),
    );
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(opts.port, opts.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    self = new HttpListener(server, opts.logger);
    return self;
  }

  /** The bound address (the real port when `http.listener` asked for port 0). */
  get address(): { host: string; port: number } {
    const a = this.server.address() as AddressInfo;
    return { host: a.address, port: a.port };
  }

  /** Ready: listening, logs loaded, registered in the cluster (see broker.ts). */
  setReady(ready: boolean): void {
    this.#ready = ready;
  }

  serveMetrics(source: MetricsSource): void {
    this.#metrics = source;
  }

  /** Serves every path equal to `prefix` or below it (`/ui` → `/ui/...`; `/` = everything else). */
  mount(prefix: string, handler: HttpHandler): void {
    const p = prefix.endsWith('/') && prefix !== '/' ? prefix.slice(0, -1) : prefix;
    this.#mounts = [...this.#mounts.filter((m) => m.prefix !== p), { prefix: p, handler }].sort(
      (a, b) => b.prefix.length - a.prefix.length,
    );
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  #route(req: IncomingMessage, res: ServerResponse): void {
    const path = (req.url ?? '').split('?', 1)[0];
    const handler =
      path === '/metrics'
        ? () => this.#serveMetrics(res)
        : path === '/health/live'
          ? () => text(res, 200, 'live\n')
          : path === '/health/ready'
            ? () => (this.#ready ? text(res, 200, 'ready\n') : text(res, 503, 'not ready\n'))
            : null;
    const mounted =
      handler === null
        ? this.#mounts.find((m) => m.prefix === '/' || path === m.prefix || path.startsWith(`${m.prefix}/`))
        : undefined;
    if (mounted !== undefined) mounted.handler(req, res);
    else if (handler === null) text(res, 404, 'not found\n');
    else if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD');
      text(res, 405, 'method not allowed\n');
    } else handler();
  }

  #serveMetrics(res: ServerResponse): void {
    const source = this.#metrics;
    if (source === null || !this.#ready) {
      text(res, 503, 'not ready\n');
      return;
    }
    source.metrics().then(
      (body) => {
        res.writeHead(200, { 'Content-Type': source.contentType });
        res.end(body);
      },
      (e: unknown) => {
        this.logger.log('error', 'metrics collection failed', { error: String(e) });
        text(res, 500, 'metrics collection failed\n');
      },
    );
  }
}

function text(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8' });
  res.end(body);
}
