// Login with the user's own SASL credentials (console.auth.sasl.mechanisms): POST /api/login
// authenticates a client connection to the cluster with them (SaslHandshake + SaslAuthenticate,
// then DescribeCluster); on success the user gets a session: a random 256-bit token in a cookie
// (HttpOnly, SameSite=Strict, Path=/, Max-Age = what is left of the session; Secure over HTTPS),
// kept server-side only as its SHA-256, with an absolute expiry, and a viewer (viewer.ts) whose
// clients carry the user's credentials, so that the cluster's ACLs apply to everything the user
// sees and does. The password stays in memory for the session (reconnections and SASL
// re-authentication need it), never on disk, in a cookie or in a log. Writes of a cookie session
// also carry the session's CSRF token in a header (routes.ts).
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ClientOptions, ClientSaslMechanism } from '../client/index.js';
import { KafkaClientError, KafkaResponseError } from '../client/index.js';
import { ApiError, readJsonBody, sendError, sendJson } from './http-util.js';
import { Viewer, type ViewerSettings } from './viewer.js';

export const SESSION_COOKIE = 'samsa_console_session';
export const CSRF_HEADER = 'x-samsa-csrf';
export const DEFAULT_SESSION_TIMEOUT_MS = 8 * 3600_000;
/** A login body is a user name, a password and a mechanism. */
export const MAX_LOGIN_BODY_BYTES = 4096;
const MAX_NAME_CHARS = 256;
const MAX_PASSWORD_CHARS = 1024;
/** Logins checked at once; more wait for none (429): each opens connections to the cluster. */
const MAX_CONCURRENT_LOGINS = 8;
/** Past this many sessions the oldest is logged out. */
export const MAX_SESSIONS = 1000;
const TOKEN_RE = /^[A-Za-z0-9_-]{43}$/;

export interface Session {
  readonly user: string;
  readonly mechanism: ClientSaslMechanism;
  readonly csrf: string;
  readonly expires: number;
  readonly viewer: Viewer;
}

const digest = (token: string): string => createHash('sha256').update(token).digest('hex');

/** The session token of a Cookie header, if it holds a well-formed one (anything else is ignored). */
export function sessionToken(header: string | undefined): string | null {
  if (header === undefined || header.length > 8192) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== SESSION_COOKIE) continue;
    const value = part.slice(eq + 1).trim();
    if (TOKEN_RE.test(value)) return value;
  }
  return null;
}

export function sameToken(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function isHttps(req: IncomingMessage): boolean {
  return (
    (req.socket as { encrypted?: boolean }).encrypted === true || req.headers['x-forwarded-proto'] === 'https'
  );
}

function cookie(req: IncomingMessage, value: string, maxAgeSec: number): string {
  return `${SESSION_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSec}${isHttps(req) ? '; Secure' : ''}`;
}

function text(v: unknown, what: string, max: number): string {
  if (typeof v !== 'string' || v === '') throw new ApiError(400, `${what} must be a non-empty string`);
  if (v.length > max) throw new ApiError(400, `${what} is longer than ${max} characters`);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
  if (/[\u0000-\u001f\u007f]/.test(v)) throw new ApiError(400, `${what} has control characters`);
  return v;
}

export class SessionStore {
  readonly #client: ClientOptions;
  readonly #settings: ViewerSettings;
  readonly mechanisms: readonly ClientSaslMechanism[];
  readonly timeoutMs: number;
  readonly #sessions = new Map<string, Session>();
  #checking = 0;
  readonly #sweep: NodeJS.Timeout;

  constructor(
    client: ClientOptions,
    settings: ViewerSettings,
    mechanisms: readonly ClientSaslMechanism[],
    timeoutMs = DEFAULT_SESSION_TIMEOUT_MS,
  ) {
    this.#client = client;
    this.#settings = settings;
    this.mechanisms = mechanisms;
    this.timeoutMs = timeoutMs;
    this.#sweep = setInterval(() => this.#dropExpired(), Math.min(60_000, timeoutMs));
    this.#sweep.unref();
  }

  get size(): number {
    return this.#sessions.size;
  }

  /** The request's live session, or null (no cookie, an unknown or expired token). */
  find(req: IncomingMessage): Session | null {
    const token = sessionToken(req.headers.cookie);
    if (token === null) return null;
    const id = digest(token);
    const s = this.#sessions.get(id);
    if (s === undefined) return null;
    if (Date.now() >= s.expires) {
      this.#end(id);
      return null;
    }
    return s;
  }

  /** POST /api/login {user, password, mechanism?}: checked against the cluster, then a session cookie. */
  async login(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      const declared = Number(req.headers['content-length'] ?? 0);
      if (declared > MAX_LOGIN_BODY_BYTES)
        throw new ApiError(413, `a login body is at most ${MAX_LOGIN_BODY_BYTES} bytes`);
      const body = await readJsonBody(req, MAX_LOGIN_BODY_BYTES);
      const user = text(body.user, 'user', MAX_NAME_CHARS);
      const password = text(body.password, 'password', MAX_PASSWORD_CHARS);
      const mechanism = (body.mechanism ?? this.mechanisms[0]) as ClientSaslMechanism;
      if (!this.mechanisms.includes(mechanism))
        throw new ApiError(400, `mechanism is one of ${this.mechanisms.join(', ')}`);
      if (this.#checking >= MAX_CONCURRENT_LOGINS)
        throw new ApiError(429, 'too many logins at once; try again');
      this.#checking++;
      let viewer: Viewer;
      try {
        viewer = await this.#verify(user, password, mechanism);
      } finally {
        this.#checking--;
      }
      const token = randomBytes(32).toString('base64url');
      const session: Session = {
        user,
        mechanism,
        csrf: randomBytes(32).toString('base64url'),
        expires: Date.now() + this.timeoutMs,
        viewer,
      };
      this.#sessions.set(digest(token), session);
      while (this.#sessions.size > MAX_SESSIONS) this.#end(this.#sessions.keys().next().value!);
      viewer.live.start();
      res.setHeader('Set-Cookie', cookie(req, token, Math.floor(this.timeoutMs / 1000)));
      sendJson(res, 200, { user, mechanism, expires: session.expires, csrf: session.csrf });
    } catch (e) {
      if (!res.headersSent) sendError(res, e);
      else res.end();
    }
  }

  /** POST /api/logout: ends the session (its connections and event streams) and clears the cookie. */
  logout(req: IncomingMessage, res: ServerResponse): void {
    const token = sessionToken(req.headers.cookie);
    if (token !== null) this.#end(digest(token));
    res.setHeader('Set-Cookie', cookie(req, '', 0));
    sendJson(res, 200, { loggedOut: true });
  }

  /** A viewer acting as the user, once a connection authenticated with the credentials. */
  async #verify(user: string, password: string, mechanism: ClientSaslMechanism): Promise<Viewer> {
    let viewer: Viewer | null = null;
    try {
      viewer = new Viewer(
        { ...this.#client, sasl: { mechanism, username: user, password } },
        this.#settings,
        user,
      );
      await viewer.clients.admin.describeCluster();
      return viewer;
    } catch (e) {
      await viewer?.close();
      if (e instanceof KafkaResponseError && e.code === 'SASL_AUTHENTICATION_FAILED')
        throw new ApiError(401, 'wrong user name or password');
      if (e instanceof KafkaResponseError && e.code === 'UNSUPPORTED_SASL_MECHANISM')
        throw new ApiError(400, `the cluster does not offer ${mechanism}: ${e.message}`);
      if (e instanceof KafkaClientError && e.code === 'INVALID_CONFIG') throw new ApiError(400, e.message);
      if (e instanceof KafkaClientError)
        throw new ApiError(502, `cannot log in: the cluster did not answer (${e.code})`);
      throw e;
    }
  }

  #end(id: string): void {
    const s = this.#sessions.get(id);
    if (s === undefined) return;
    this.#sessions.delete(id);
    void s.viewer.close();
  }

  #dropExpired(): void {
    const now = Date.now();
    for (const [id, s] of this.#sessions) if (now >= s.expires) this.#end(id);
  }

  async close(): Promise<void> {
    clearInterval(this.#sweep);
    const all = [...this.#sessions.values()];
    this.#sessions.clear();
    await Promise.all(all.map((s) => s.viewer.close()));
  }
}
