// The console as an HTTP handler: login first, then `/` (the page), `/ui/...` (its scripts and
// styles, from the package) and `/api/...` (JSON and the event stream). With basic auth every
// route is behind the login; with a SASL login the page and its scripts are public (the page is
// the login form) and every API route but /api/session and /api/login needs a session. The same
// handler is mounted on the broker's `http.listener` by `samsa start` and served on its own port
// by `samsa console`.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BasicAuth } from './auth.js';
import { ApiError, sendError, sendJson } from './http-util.js';
import type { ConsoleOptions } from './options.js';
import { type ApiContext, handleApi, sameOrigin } from './routes.js';
import { CSRF_HEADER, SessionStore, sameToken } from './sessions.js';
import { contentSecurityPolicy, loadStaticFiles } from './static-files.js';
import { Viewer, type ViewerSettings } from './viewer.js';

export const DEFAULT_REFRESH_MS = 10_000;
export const DEFAULT_IDLE_REFRESH_MS = 60_000;
export const DEFAULT_THROUGHPUT_WINDOW_MS = 60_000;
export const DEFAULT_HISTORY_SIZE = 360;
/** How long the API serves cached metadata and offsets; a write through the console drops them. */
export const CACHE_TTL_MS = 5_000;

export interface ConsoleHandle {
  /** Answers every request it is given (404 for what is not the console's). */
  readonly handler: (req: IncomingMessage, res: ServerResponse) => void;
  readonly readOnly: boolean;
  close(): Promise<void>;
}

export function viewerSettings(options: ConsoleOptions): ViewerSettings {
  return {
    refreshMs: options.refreshMs ?? DEFAULT_REFRESH_MS,
    idleRefreshMs: options.idleRefreshMs ?? DEFAULT_IDLE_REFRESH_MS,
    throughputWindowMs: options.throughputWindowMs ?? DEFAULT_THROUGHPUT_WINDOW_MS,
    historySize: options.historySize ?? DEFAULT_HISTORY_SIZE,
    cacheTtlMs: CACHE_TTL_MS,
  };
}

export function createConsole(options: ConsoleOptions): ConsoleHandle {
  const settings = viewerSettings(options);
  const basic = new BasicAuth(options.users ?? []);
  if (basic.enabled && options.saslLogin)
    throw new Error(
      'a console logs in with basic auth (users) or with SASL credentials (saslLogin), not both',
    );
  const sessions = options.saslLogin
    ? new SessionStore(
        options.client,
        settings,
        options.saslLogin.mechanisms,
        options.saslLogin.sessionTimeoutMs,
      )
    : null;
  // Without a SASL login, every page sees the cluster as the console's own client does.
  const shared = sessions === null ? new Viewer(options.client, settings, null) : null;
  const login = sessions !== null ? 'sasl' : basic.enabled ? 'basic' : null;
  const readOnly = options.readOnly ?? false;
  const files = loadStaticFiles();
  const index = files.get('/ui/index.html')!;
  const csp = contentSecurityPolicy(index.body);

  /** The API's context, or null once it answered (no session). */
  const context = (
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    user: string | null,
  ): ApiContext | null => {
    if (shared !== null) {
      shared.live.start();
      return { viewer: shared, readOnly, user, login, csrf: null };
    }
    const session = sessions!.find(req);
    if (session !== null)
      return { viewer: session.viewer, readOnly, user: session.user, login, csrf: session.csrf };
    if (url.pathname === '/api/session' && req.method === 'GET')
      sendJson(res, 200, { readOnly, user: null, login, mechanisms: sessions!.mechanisms });
    else sendJson(res, 401, { error: 'log in first', login: true });
    return null;
  };

  const loginRoutes = (req: IncomingMessage, res: ServerResponse, url: URL): boolean => {
    if (sessions === null || (url.pathname !== '/api/login' && url.pathname !== '/api/logout')) return false;
    if (req.method !== 'POST') {
      res.setHeader('Allow', 'POST');
      sendError(res, new ApiError(405, `${url.pathname} takes a POST`));
    } else if (!sameOrigin(req)) sendError(res, new ApiError(403, 'cross-origin login refused'));
    else if (url.pathname === '/api/login') void sessions.login(req, res);
    else {
      // Logging out someone else by a forged request is refused like any other write.
      const s = sessions.find(req);
      if (s !== null && !csrfOk(req, s.csrf))
        sendError(res, new ApiError(403, 'logging out needs the session token in the x-samsa-csrf header'));
      else sessions.logout(req, res);
    }
    return true;
  };

  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Referrer-Policy', 'no-referrer');
    const user = basic.check(req, res);
    if (user === false) return;
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://console');
    } catch {
      // An absolute-form target that is no URL (`GET http://[ HTTP/1.1`)
      sendError(res, new ApiError(400, 'the request target is not a URL'));
      return;
    }
    if (url.pathname.startsWith('/api/')) {
      if (loginRoutes(req, res, url)) return;
      const ctx = context(req, res, url, user);
      if (ctx !== null) void handleApi(ctx, req, res, url);
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
      await Promise.all([shared?.close(), sessions?.close()]);
    },
  };
}

function csrfOk(req: IncomingMessage, csrf: string): boolean {
  return sameToken(String(req.headers[CSRF_HEADER] ?? ''), csrf);
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
