// The JSON API: one table of routes. GET routes only read; every write is a POST or DELETE with a
// JSON body (so no link, image or cross-site form can trigger one), refused with 403 in read-only
// mode before its body is read. Deletes also repeat the name they delete (`{"confirm": name}`).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ConsoleClients } from './api/clients.js';
import { clusterOverview, topicRows } from './api/cluster.js';
import { deleteGroup, groupDetail, groupSummaries, resetOffsets } from './api/groups.js';
import { electPreferred, reassign, topicReassignments } from './api/leadership.js';
import { browse, parseBrowseQuery, produce } from './api/messages.js';
import { addAcl, alterQuota, listAcls, listQuotas, removeAcl } from './api/security.js';
import { addPartitions, alterTopicConfigs, createTopic, topicDetail } from './api/topics.js';
import { ApiError, readJsonBody, sendError, sendJson } from './http-util.js';
import type { LiveState } from './live.js';

export interface ApiContext {
  readonly clients: ConsoleClients;
  readonly live: LiveState;
  readonly readOnly: boolean;
  readonly user: string | null;
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
  get('/session', async (c) => ({ readOnly: c.readOnly, user: c.user, refreshMs: c.live.refreshMs })),
  get('/cluster', (c) => clusterOverview(c.clients.admin)),
  get('/topics', (c) => topicRows(c.clients.admin)),
  post('/topics', (c, _p, body) => createTopic(c.clients.admin, body)),
  get('/topics/:n', (c, [name]) => topicDetail(c.clients.admin, name!)),
  del('/topics/:n', async (c, [name], body) => {
    confirmed(body, name!);
    await c.clients.admin.deleteTopics([name!]);
    return { topic: name, deleted: true };
  }),
  post('/topics/:n/partitions', (c, [name], body) => addPartitions(c.clients.admin, name!, body)),
  post('/topics/:n/configs', (c, [name], body) => alterTopicConfigs(c.clients.admin, name!, body)),
  post('/topics/:n/elect-leaders', (c, [name], body) => electPreferred(c.clients.admin, name!, body)),
  get('/topics/:n/reassignments', async (c, [name]) => {
    const [t] = await c.clients.admin.describeTopics([name!]);
    if (t === undefined) throw new ApiError(404, `no topic ${name}`);
    return topicReassignments(
      c.clients.admin,
      name!,
      t.partitions.map((p) => p.partition),
    );
  }),
  post('/topics/:n/reassignments', (c, [name], body) => reassign(c.clients.admin, name!, body)),
  get('/topics/:n/messages', (c, [name], q) => browse(c.clients, name!, parseBrowseQuery(q))),
  post('/topics/:n/messages', (c, [name], body) => produce(c.clients.producer, name!, body)),
  get('/groups', (c) => groupSummaries(c.clients.admin)),
  get('/groups/:n', (c, [id]) => groupDetail(c.clients, id!)),
  get('/groups/:n/lag-history', async (c, [id]) => ({
    groupId: id,
    refreshMs: c.live.refreshMs,
    samples: c.live.history(id!),
  })),
  post('/groups/:n/reset', (c, [id], body) => resetOffsets(c.clients.admin, id!, body)),
  del('/groups/:n', async (c, [id], body) => {
    confirmed(body, id!);
    return deleteGroup(c.clients.admin, id!);
  }),
  get('/acls', (c) => listAcls(c.clients.admin)),
  post('/acls', (c, _p, body) => addAcl(c.clients.admin, body)),
  del('/acls', async (c, _p, body) => {
    if (typeof body.principal === 'string') confirmed(body, body.principal);
    return removeAcl(c.clients.admin, body);
  }),
  get('/quotas', (c) => listQuotas(c.clients.admin)),
  post('/quotas', (c, _p, body) => alterQuota(c.clients.admin, body)),
];

/** Cross-site writes: a browser names the page's origin; it must be this console's. */
function sameOrigin(req: IncomingMessage): boolean {
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
      ctx.live.subscribe(req, res);
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
    params = r.path
      .exec(url.pathname)!
      .slice(1)
      .map((s) => decodeURIComponent(s));
    if (r.read) {
      sendJson(res, 200, await r.read(ctx, params, url.searchParams));
      return;
    }
    if (ctx.readOnly) throw new ApiError(403, 'the console is read-only (console.read.only=true)');
    if (!sameOrigin(req)) throw new ApiError(403, 'cross-origin write refused');
    const body = await readJsonBody(req);
    sendJson(res, 200, await r.write!(ctx, params, body));
  } catch (e) {
    if (!res.headersSent) sendError(res, e);
    else res.end();
  }
}
