// Live state of one viewer: the console samples the cluster every `refreshMs` while a page of
// that viewer has the event stream open, every `idleRefreshMs` otherwise (0: not at all), and
// pushes each sample to the open pages through server-sent events. A sample is, at 10,000
// partitions as at 10: one Metadata request, one DescribeCluster, one ListOffsets (latest) and
// one DescribeLogDirs per broker, ListGroups + DescribeGroups + one OffsetFetch per group, and
// once a minute one ListOffsets (earliest) per broker. From it come the group summaries (lag and
// its in-memory history, the chart; lost on restart), the cluster overview and the throughput
// (throughput.ts). One sample at a time: a slow cluster makes samples rarer, never piles them up.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ConsoleClients } from './api/clients.js';
import { leaderSizes, overviewFrom } from './api/cluster.js';
import { type GroupSummary, type GroupsRead, readGroups, summarize } from './api/groups.js';
import { leaderedPartitions, tpKey } from './api/offsets.js';
import type { ClusterCache } from './cluster-cache.js';
import { committedKey, type Throughput, ThroughputWindow } from './throughput.js';
import type { ViewerSettings } from './viewer.js';

export interface LagSample {
  t: number;
  lag: number;
}

/** Log start offsets move only with retention: they are read again at most this often. */
const STARTS_MAX_AGE_MS = 60_000;

function committedOffsets(read: GroupsRead): Map<string, number> {
  const out = new Map<string, number>();
  for (const [groupId, offsets] of read.committed)
    for (const c of offsets ?? [])
      if (c.offset >= 0n) out.set(committedKey(tpKey(c), groupId), Number(c.offset));
  return out;
}

export class LiveState {
  readonly #clients: ConsoleClients;
  readonly #cache: ClusterCache;
  readonly #refreshMs: number;
  readonly #idleRefreshMs: number;
  readonly #historySize: number;
  readonly #window: ThroughputWindow;
  readonly #streams = new Set<ServerResponse>();
  readonly #history = new Map<string, LagSample[]>();
  #timer: NodeJS.Timeout | null = null;
  #started = false;
  #closed = false;
  #sampling = false;
  #lastAt = Number.NEGATIVE_INFINITY;
  /** The last event of each kind, as sent. */
  #last: { groups?: { t: number; groups: GroupSummary[] }; cluster?: { t: number; cluster: unknown } } = {};

  constructor(clients: ConsoleClients, cache: ClusterCache, s: ViewerSettings) {
    this.#clients = clients;
    this.#cache = cache;
    this.#refreshMs = s.refreshMs;
    this.#idleRefreshMs = s.idleRefreshMs;
    this.#historySize = s.historySize;
    this.#window = new ThroughputWindow(
      s.throughputWindowMs,
      2 * Math.max(s.throughputWindowMs, s.refreshMs, s.idleRefreshMs),
    );
  }

  /** Samples now, then on schedule. */
  start(): void {
    if (this.#started || this.#closed) return;
    this.#started = true;
    this.#schedule(0);
  }

  get refreshMs(): number {
    return this.#refreshMs;
  }

  /** Pages watching (event streams open). */
  get watchers(): number {
    return this.#streams.size;
  }

  history(groupId: string): LagSample[] {
    return this.#history.get(groupId) ?? [];
  }

  throughput(): Throughput | null {
    return this.#window.rates();
  }

  topicRates(): ReadonlyMap<string, number> | null {
    return this.#window.topicRates();
  }

  #schedule(delayMs: number): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = null;
      void this.sample().finally(() => this.#scheduleNext());
    }, delayMs);
    this.#timer.unref();
  }

  #scheduleNext(): void {
    if (this.#closed || this.#timer !== null) return;
    const every = this.#streams.size > 0 ? this.#refreshMs : this.#idleRefreshMs;
    if (every > 0) this.#schedule(Math.max(0, this.#lastAt + every - Date.now()));
  }

  async sample(): Promise<void> {
    if (this.#sampling || this.#closed) return;
    this.#sampling = true;
    try {
      await this.#sample();
    } finally {
      this.#sampling = false;
    }
  }

  async #sample(): Promise<void> {
    const admin = this.#clients.admin;
    const t = Date.now();
    this.#lastAt = t;
    const topics = await this.#cache.topics(0).catch(() => null);
    const leadered = topics === null ? [] : leaderedPartitions(topics);
    const [cluster, ends, starts, dirs, groups] = await Promise.all([
      admin.describeCluster().catch(() => null),
      topics === null ? null : this.#cache.ends(leadered, 0).catch(() => null),
      topics === null ? null : this.#cache.starts(leadered, STARTS_MAX_AGE_MS).catch(() => null),
      this.#cache.logDirs(0),
      readGroups(admin).catch(() => null),
    ]);
    if (this.#closed) return;
    if (topics !== null) this.#cache.retain(topics);
    if (topics !== null && ends !== null)
      this.#window.add({
        t,
        ends,
        sizes: leaderSizes(topics, dirs),
        committed: groups === null ? null : committedOffsets(groups),
        starts: starts ?? new Map(),
      });
    if (groups !== null) {
      // Committed partitions of topics not in the metadata (deleted, or hidden by ACLs) add no lag.
      const summaries = summarize(groups, ends);
      for (const g of summaries) {
        if (g.lag === null) continue;
        const h = this.#history.get(g.groupId) ?? [];
        h.push({ t, lag: g.lag });
        if (h.length > this.#historySize) h.splice(0, h.length - this.#historySize);
        this.#history.set(g.groupId, h);
      }
      const live = new Set(summaries.map((g) => g.groupId));
      for (const id of this.#history.keys()) if (!live.has(id)) this.#history.delete(id);
      this.#last.groups = { t, groups: summaries };
      this.#broadcast('groups', this.#last.groups);
    }
    if (cluster !== null && topics !== null) {
      this.#last.cluster = { t, cluster: overviewFrom(cluster, topics, dirs, this.throughput()) };
      this.#broadcast('cluster', this.#last.cluster);
    }
  }

  /** GET /api/events: an event stream of `groups` and `cluster` samples (throughput included). */
  subscribe(req: IncomingMessage, res: ServerResponse): void {
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      Connection: 'keep-alive',
    });
    res.write(`retry: ${Math.max(1000, this.#refreshMs)}\n\n`);
    // The last samples again, stamped with their own time (a page can tell them from new ones).
    if (this.#last.groups) res.write(event('groups', this.#last.groups));
    if (this.#last.cluster) res.write(event('cluster', this.#last.cluster));
    this.#streams.add(res);
    const drop = () => this.#streams.delete(res);
    req.on('close', drop);
    res.on('close', drop);
    // Someone watches: sample at the watching rate from now on (at once if the last is old).
    if (this.#started && !this.#sampling && !this.#closed)
      this.#schedule(Math.max(0, this.#lastAt + this.#refreshMs - Date.now()));
  }

  #broadcast(name: string, data: unknown): void {
    if (this.#streams.size === 0) return;
    const text = event(name, data);
    for (const res of this.#streams) res.write(text);
  }

  close(): void {
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    for (const res of this.#streams) res.end();
    this.#streams.clear();
  }
}

function event(name: string, data: unknown): string {
  return `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
}
