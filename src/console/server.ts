// The console as an HTTP handler: login first (every route), then `/` (the page), `/ui/...`
// (its scripts and styles, from the package) and `/api/...` (JSON and the event stream). The same
// handler is mounted on the broker's `http.listener` by `samsa start` and served on its own port
// by `samsa console`.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConsoleClients } from './api/clients.js';
import { BasicAuth } from './auth.js';
import { LiveState } from './live.js';
import type { ConsoleOptions } from './options.js';
import { handleApi } from './routes.js';
import { contentSecurityPolicy, loadStaticFiles } from './static-files.js';

export const DEFAULT_REFRESH_MS = 10_000;
export const DEFAULT_HISTORY_SIZE = 360;

export interface ConsoleHandle {
  /** Answers every request it is given (404 for what is not the console's). */
  readonly handler: (req: IncomingMessage, res: ServerResponse) => void;
  readonly readOnly: boolean;
  close(): Promise<void>;
}

export function createConsole(options: ConsoleOptions): ConsoleHandle {
  const clients = new ConsoleClients(options.client);
  const live = new LiveState(
    clients,
    options.refreshMs ?? DEFAULT_REFRESH_MS,
    options.historySize ?? DEFAULT_HISTORY_SIZE,
  );
  const auth = new BasicAuth(options.users ?? []);
  const readOnly = options.readOnly ?? false;
  const files = loadStaticFiles();
  const index = files.get('/ui/index.html')!;
  const csp = contentSecurityPolicy(index.body);
  let started = false;

  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Referrer-Policy', 'no-referrer');
    const user = auth.check(req, res);
    if (user === false) return;
    if (!started) {
      started = true;
      live.start();
    }
    const url = new URL(req.url ?? '/', 'http://console');
    if (url.pathname.startsWith('/api/')) {
      void handleApi({ clients, live, readOnly, user }, req, res, url);
      return;
    }
    const file = url.pathname === '/' || url.pathname === '/index.html' ? index : files.get(url.pathname);
    if (file === undefined) {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end('not found\n');
    } else if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { Allow: 'GET, HEAD', 'Content-Type': 'text/plain; charset=utf-8' });
      res.end('method not allowed\n');
    } else {
      res.writeHead(200, {
        'Content-Type': file.type,
        'Content-Length': file.body.length,
        'Cache-Control': 'no-cache',
        ...(file === index ? { 'Content-Security-Policy': csp } : {}),
      });
      res.end(req.method === 'HEAD' ? undefined : file.body);
    }
  };
  return {
    handler,
    readOnly,
    async close() {
      live.close();
      await clients.close();
    },
  };
}

export interface ConsoleServer {
  /** `http://host:port/` to open. */
  readonly url: string;
  readonly address: { host: string; port: number };
  close(): Promise<void>;
}

/** `samsa console`: the console on a port of its own. */
export async function serveConsole(
  options: ConsoleOptions & { host?: string; port?: number },
): Promise<ConsoleServer> {
  const console_ = createConsole(options);
  const server: Server = createServer({ requestTimeout: 30_000, headersTimeout: 10_000 }, console_.handler);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 8080, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const a = server.address() as AddressInfo;
  const host = a.address.includes(':') ? `[${a.address}]` : a.address;
  return {
    url: `http://${host}:${a.port}/`,
    address: { host: a.address, port: a.port },
    async close() {
      await console_.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
