// The console's login: HTTP basic auth checked on every request (pages, scripts, the API and the
// event stream alike) before routing, so no route can forget it. Passwords are compared in
// constant time; the browser keeps the credentials for the session.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ConsoleUser } from './options.js';

const digest = (s: string): Buffer => createHash('sha256').update(s).digest();

export class BasicAuth {
  readonly #users: Map<string, Buffer>;

  constructor(users: readonly ConsoleUser[]) {
    this.#users = new Map(users.map((u) => [u.user, digest(u.password)]));
  }

  get enabled(): boolean {
    return this.#users.size > 0;
  }

  /** The logged-in user, null without a login configured; answers 401 and returns false otherwise. */
  check(req: IncomingMessage, res: ServerResponse): string | null | false {
    if (!this.enabled) return null;
    const user = this.#verify(req.headers.authorization);
    if (user !== undefined) return user;
    res.writeHead(401, {
      'WWW-Authenticate': 'Basic realm="samsa console", charset="UTF-8"',
      'Content-Type': 'text/plain; charset=utf-8',
    });
    res.end('login required\n');
    return false;
  }

  #verify(header: string | undefined): string | undefined {
    const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '');
    if (!m) return undefined;
    const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) return undefined;
    const user = decoded.slice(0, colon);
    const want = this.#users.get(user);
    const got = digest(decoded.slice(colon + 1));
    // Compare even for an unknown user, so that the time does not tell which users exist.
    const ok = timingSafeEqual(want ?? digest('\0unknown'), got) && want !== undefined;
    return ok ? user : undefined;
  }
}
