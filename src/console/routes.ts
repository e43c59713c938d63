// The JSON API: one table of routes. GET routes only read; every write is a POST or DELETE with a
// JSON body (so no link, image or cross-site form can trigger one), refused with 403 in read-only
// mode before its body is read, and from another origin; with a login session, a write must also
// carry the session's CSRF token in the X-Samsa-CSRF header. Deletes also repeat the name they
// delete (`{"confirm": name}`). A write that succeeds drops the viewer's cache.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { clusterOverview, parseTopicQuery, topicList } from './api/cluster.js';
import { deleteGroup, groupDetail, groupSummaries, resetOffsets } from './api/groups.js';
import { electPreferred, reassign, topicReassignments } from './api/leadership.js';
import { browse, parseBrowseQuery, produce } from './api/messages.js';
import { addAcl, alterQuota, listAcls, listQuotas, removeAcl } from './api/security.js';
import { addPartitions, alterTopicConfigs, createTopic, topicDetail } from './api/topics.js';
import { ApiError, readJsonBody, sendError, sendJson } from './http-util.js';
import { CSRF_HEADER, sameToken } from './sessions.js';
import type { Viewer } from './viewer.js';

export interface ApiContext {
  /** Whom the console acts as for this request (its own identity, or the logged-in SASL user). */
  readonly viewer: Viewer;
  readonly readOnly: boolean;
  readonly user: string | null;
  /** How users log in: none, basic auth, or their SASL credentials (a cookie session). */
  readonly login: 'basic' | 'sasl' | null;
  /** The session's CSRF token (cookie sessions only). */
  readonly csrf: string | null;
}

type Params = string[];
type Read = (ctx: ApiContext, params: Params, query: URLSearchParams) => Promise<unknown>;
type Write = (ctx: ApiContext, params: Params, body: Record<string, unknown>) => Promise<unknown>;

interface Route {
  readonly method: 'GET' | 'POST' | 'DELETE';
  readonly path: RegExp;
  readonly read?: Read;
  readonly write?: Write;
}

const NAME = '([^/]+)';
const pattern = (path: string): RegExp => new RegExp(`^/api${path.replaceAll(':n', NAME)}$`);
const get = (path: string, read: Read): Route => ({ method: 'GET', path: pattern(path), read });
const post = (path: string, write: Write): Route => ({ method: 'POST', path: pattern(path), write });
const del = (path: string, write: Write): Route => ({ method: 'DELETE', path: pattern(path), write });

function confirmed(body: Record<string, unknown>, name: string): void {
  if (body.confirm !== name)
    throw new ApiError(400, `to delete ${name}, send {"confirm": ${JSON.stringify(name)}}`);
}

export const ROUTES: readonly Route[] = [
  get('/session', async (c) => ({
    readOnly: c.readOnly,
    user: c.user,
    login: c.login,
    refreshMs: c.viewer.live.refreshMs,
    ...(c.csrf !== null ? { csrf: c.csrf } : {}),
  })),
  get('/cluster', (c) => clusterOverview(c.viewer)),
  get('/topics', (c, _p, q) => topicList(c.viewer, parseTopicQuery(q))),
  post('/topics', (c, _p, body) => createTopic(c.viewer.clients.admin, body)),
  get('/topics/:n', (c, [name]) => topicDetail(c.viewer.clients.admin, name!)),
  del('/topics/:n', async (c, [name], body) => {
    confirmed(body, name!);
    await c.viewer.clients.admin.deleteTopics([name!]);
    return { topic: name, deleted: true };
  }),
  post('/topics/:n/partitions', (c, [name], body) => addPartitions(c.viewer.clients.admin, name!, body)),
  post('/topics/:n/configs', (c, [name], body) => alterTopicConfigs(c.viewer.clients.admin, name!, body)),
  post('/topics/:n/elect-leaders', (c, [name], body) => electPreferred(c.viewer.clients.admin, name!, body)),
  get('/topics/:n/reassignments', async (c, [name]) => {
    const [t] = await c.viewer.clients.admin.describeTopics([name!]);
    if (t === undefined) throw new ApiError(404, `no topic ${name}`);
    return topicReassignments(
      c.viewer.clients.admin,
      name!,
      t.partitions.map((p) => p.partition),
    );
  }),
  post('/topics/:n/reassignments', (c, [name], body) => reassign(c.viewer.clients.admin, name!, body)),
  get('/topics/:n/messages', (c, [name], q) => browse(c.viewer.clients, name!, parseBrowseQuery(q))),
  post('/topics/:n/messages', (c, [name], body) => produce(c.viewer.clients.producer, name!, body)),
  get('/groups', (c) => groupSummaries(c.viewer)),
  get('/groups/:n', (c, [id]) => groupDetail(c.viewer.clients, id!)),
  get('/groups/:n/lag-history', async (c, [id]) => ({
    groupId: id,
    refreshMs: c.viewer.live.refreshMs,
    samples: c.viewer.live.history(id!),
  })),
  post('/groups/:n/reset', (c, [id], body) => resetOffsets(c.viewer.clients.admin, id!, body)),
  del('/groups/:n', async (c, [id], body) => {
    confirmed(body, id!);
    return deleteGroup(c.viewer.clients.admin, id!);
  }),
  get('/acls', (c) => listAcls(c.viewer.clients.admin)),
  post('/acls', (c, _p, body) => addAcl(c.viewer.clients.admin, body)),
  del('/acls', async (c, _p, body) => {
    if (typeof body.principal === 'string') confirmed(body, body.principal);
    return removeAcl(c.viewer.clients.admin, body);
  }),
  get('/quotas', (c) => listQuotas(c.viewer.clients.admin)),
  post('/quotas', (c, _p, body) => alterQuota(c.viewer.clients.admin, body)),
];

/** Cross-site writes: a browser names the page's origin; it must be this console's. */
export function sameOrigin(req: IncomingMessage): boolean {
  const origin = req.headers.origin;
  if (origin === undefined || origin === 'null') return origin === undefined;
  try {
    return new URL(origin).host === req.headers.host;
  } catch {
    return false;
  }
}

export async function handleApi(
  ctx: ApiContext,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
): Promise<void> {
  try {
    if (url.pathname === '/api/events') {
      if (req.method !== 'GET') throw new ApiError(405, 'the event stream is GET only');
      ctx.viewer.live.subscribe(req, res);
      return;
    }
    let params: string[] | null = null;
    const matching = ROUTES.filter((r) => r.path.test(url.pathname));
    if (matching.length === 0) throw new ApiError(404, `no API route ${url.pathname}`);
    const r = matching.find((m) => m.method === req.method || (req.method === 'HEAD' && m.method === 'GET'));
    if (r === undefined) {
      res.setHeader('Allow', matching.map((m) => m.method).join(', '));
      throw new ApiError(405, `${req.method} is not allowed on ${url.pathname}`);
    }
    try {
      params = r.path
        .exec(url.pathname)!
        .slice(1)
        .map((s) => decodeURIComponent(s));
    } catch {
      throw new ApiError(400, 'the path is not valid percent-encoding');
    }
    if (r.read) {
      sendJson(res, 200, await r.read(ctx, params, url.searchParams));
      return;
    }
    if (ctx.readOnly) throw new ApiError(403, 'the console is read-only (console.read.only=true)');
    if (!sameOrigin(req)) throw new ApiError(403, 'cross-origin write refused');
    if (ctx.csrf !== null && !sameToken(String(req.headers[CSRF_HEADER] ?? ''), ctx.csrf))
      throw new ApiError(403, `a write needs the session's token in the ${CSRF_HEADER} header`);
    const body = await readJsonBody(req);
    const result = await r.write!(ctx, params, body);
    ctx.viewer.cache.invalidate();
    sendJson(res, 200, result);
  } catch (e) {
    if (!res.headersSent) sendError(res, e);
    else res.end();
  }
}
