// Live state: every `refreshMs` the console samples the groups (state, members, total lag) and the
// cluster overview, keeps each group's lag history in memory (the chart; lost on restart) and
// pushes both to every open page through server-sent events. One sample at a time: a slow
// cluster makes samples rarer, never piles them up.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ConsoleClients } from './api/clients.js';
import { clusterOverview } from './api/cluster.js';
import { type GroupSummary, groupSummaries } from './api/groups.js';

export interface LagSample {
  t: number;
  lag: number;
}

export class LiveState {
  readonly #clients: ConsoleClients;
  readonly #refreshMs: number;
  readonly #historySize: number;
  readonly #streams = new Set<ServerResponse>();
  readonly #history = new Map<string, LagSample[]>();
  #timer: NodeJS.Timeout | null = null;
  #sampling = false;
  #last: { groups?: GroupSummary[]; cluster?: unknown } = {};

  constructor(clients: ConsoleClients, refreshMs: number, historySize: number) {
    this.#clients = clients;
    this.#refreshMs = refreshMs;
    this.#historySize = historySize;
  }

  start(): void {
    if (this.#timer) return;
    this.#timer = setInterval(() => void this.sample(), this.#refreshMs);
    this.#timer.unref();
    void this.sample();
  }

  get refreshMs(): number {
    return this.#refreshMs;
  }

  history(groupId: string): LagSample[] {
    return this.#history.get(groupId) ?? [];
  }

  async sample(): Promise<void> {
    if (this.#sampling) return;
    this.#sampling = true;
    try {
      const admin = this.#clients.admin;
      const t = Date.now();
      const [groups, cluster] = await Promise.all([
        groupSummaries(admin).catch(() => undefined),
        this.#streams.size > 0 ? clusterOverview(admin).catch(() => undefined) : undefined,
      ]);
      if (groups) {
        for (const g of groups) {
          if (g.lag === null) continue;
          const h = this.#history.get(g.groupId) ?? [];
          h.push({ t, lag: g.lag });
          if (h.length > this.#historySize) h.splice(0, h.length - this.#historySize);
          this.#history.set(g.groupId, h);
        }
        const live = new Set(groups.map((g) => g.groupId));
        for (const id of this.#history.keys()) if (!live.has(id)) this.#history.delete(id);
        this.#last.groups = groups;
        this.#broadcast('groups', { t, groups });
      }
      if (cluster) {
        this.#last.cluster = cluster;
        this.#broadcast('cluster', { t, cluster });
      }
    } finally {
      this.#sampling = false;
    }
  }

  /** GET /api/events: an event stream of `groups` and `cluster` samples. */
  subscribe(req: IncomingMessage, res: ServerResponse): void {
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      Connection: 'keep-alive',
    });
    res.write(`retry: ${Math.max(1000, this.#refreshMs)}\n\n`);
    if (this.#last.groups) res.write(event('groups', { t: Date.now(), groups: this.#last.groups }));
    if (this.#last.cluster) res.write(event('cluster', { t: Date.now(), cluster: this.#last.cluster }));
    this.#streams.add(res);
    const drop = () => this.#streams.delete(res);
    req.on('close', drop);
    res.on('close', drop);
  }

  #broadcast(name: string, data: unknown): void {
    const text = event(name, data);
    for (const res of this.#streams) res.write(text);
  }

  close(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    for (const res of this.#streams) res.end();
    this.#streams.clear();
  }
}

function event(name: string, data: unknown): string {
  return `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
}
