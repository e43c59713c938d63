// Cluster overview and the topics list: DescribeCluster, Metadata (every topic), DescribeLogDirs
// (sizes; left out when the cluster refuses it), ListOffsets (message counts) and the sampled
// throughput. The topics list is filtered, sorted and cut into pages here: the browser gets one
// page, and only that page's partitions are asked for their offsets (unless it is sorted by
// message count).
import type { ClusterDescription, LogDirDescription, TopicDescription } from '../../client/index.js';
import { ApiError, intParam } from '../http-util.js';
import type { Throughput } from '../throughput.js';
import type { Viewer } from '../viewer.js';
import { leaderedPartitions, tpKey } from './offsets.js';

export interface BrokerRow {
  nodeId: number;
  host: string;
  port: number;
  rack: string | null;
  leaders: number;
  partitions: number;
  /** Bytes of every replica on the broker; null when DescribeLogDirs is not allowed. */
  sizeBytes: number | null;
}

export interface TopicRow {
  name: string;
  internal: boolean;
  partitions: number;
  replicationFactor: number;
  underReplicated: number;
  offline: number;
  /** Bytes of the leader replicas; null when unknown. */
  sizeBytes: number | null;
  /** Sum over partitions of high watermark − log start; null when the offsets could not be read. */
  messages: number | null;
  /** Records per second over the throughput window; null before the console has two samples. */
  messagesPerSec: number | null;
}

export const isUnderReplicated = (p: { isr: number[]; replicas: number[] }): boolean =>
  p.isr.length < p.replicas.length;

/** topic → partition → [broker, size, broker, size, …] of its replicas (no string keys: 10,000s of them). */
type ReplicaSizes = Map<string, number[][]>;

function replicaSizes(dirs: readonly LogDirDescription[]): ReplicaSizes {
  const out: ReplicaSizes = new Map();
  for (const d of dirs)
    for (const r of d.replicas) {
      if (r.isFuture) continue;
      let parts = out.get(r.topic);
      if (parts === undefined) {
        parts = [];
        out.set(r.topic, parts);
      }
      parts[r.partition] ??= [];
      parts[r.partition]!.push(d.broker, Number(r.sizeBytes));
    }
  return out;
}

function leaderSize(
  sizes: ReplicaSizes,
  topic: string,
  p: { partition: number; leader: number },
): number | undefined {
  const replicas = sizes.get(topic)?.[p.partition];
  if (replicas === undefined) return undefined;
  for (let i = 0; i < replicas.length; i += 2) if (replicas[i] === p.leader) return replicas[i + 1];
  return undefined;
}

/** Size of each partition's leader replica by tpKey; null when the log dirs are unknown. */
export function leaderSizes(
  topics: readonly TopicDescription[],
  dirs: readonly LogDirDescription[] | null,
): Map<string, number> | null {
  if (dirs === null) return null;
  const sizes = replicaSizes(dirs);
  const out = new Map<string, number>();
  for (const t of topics)
    for (const p of t.partitions) {
      const size = leaderSize(sizes, t.name, p);
      if (size !== undefined) out.set(tpKey({ topic: t.name, partition: p.partition }), size);
    }
  return out;
}

export function overviewFrom(
  cluster: ClusterDescription,
  topics: readonly TopicDescription[],
  dirs: readonly LogDirDescription[] | null,
  throughput: Throughput | null,
) {
  const brokers: BrokerRow[] = cluster.brokers.map((b) => ({
    ...b,
    leaders: 0,
    partitions: 0,
    sizeBytes: dirs === null ? null : 0,
  }));
  const byId = new Map(brokers.map((b) => [b.nodeId, b]));
  let partitions = 0;
  let underReplicated = 0;
  let offline = 0;
  let internalTopics = 0;
  for (const t of topics) {
    if (t.isInternal) internalTopics++;
    for (const p of t.partitions) {
      partitions++;
      if (p.leader < 0) offline++;
      else if (isUnderReplicated(p)) underReplicated++;
      const leader = byId.get(p.leader);
      if (leader) leader.leaders++;
      for (const r of p.replicas) {
        const b = byId.get(r);
        if (b) b.partitions++;
      }
    }
  }
  for (const d of dirs ?? []) {
    const b = byId.get(d.broker);
    if (b && b.sizeBytes !== null) for (const r of d.replicas) b.sizeBytes += Number(r.sizeBytes);
  }
  return {
    clusterId: cluster.clusterId,
    controller: cluster.controller,
    brokers,
    topics: topics.length,
    internalTopics,
    partitions,
    underReplicated,
    offline,
    throughput,
  };
}

export async function clusterOverview(v: Viewer) {
  const [cluster, topics, dirs] = await Promise.all([
    v.clients.admin.describeCluster(),
    v.cache.topics(),
    v.cache.logDirs(),
  ]);
  return overviewFrom(cluster, topics, dirs, v.live.throughput());
}

export const TOPIC_SORTS = [
  'name',
  'partitions',
  'replicationFactor',
  'underReplicated',
  'messages',
  'sizeBytes',
  'messagesPerSec',
] as const;
type TopicSort = (typeof TOPIC_SORTS)[number];

export interface TopicQuery {
  /** Substring of the name, any case. */
  q: string;
  internal: boolean;
  sort: TopicSort;
  /** 1 ascending, -1 descending. */
  dir: 1 | -1;
  offset: number;
  limit: number;
  /** Ask the cluster now instead of serving what the cache holds. */
  fresh: boolean;
}

export const MAX_TOPICS_PAGE = 1000;

export function parseTopicQuery(p: URLSearchParams): TopicQuery {
  const sort = (p.get('sort') ?? 'name') as TopicSort;
  if (!TOPIC_SORTS.includes(sort)) throw new ApiError(400, `sort is one of ${TOPIC_SORTS.join(', ')}`);
  const dir = p.get('dir') ?? 'asc';
  if (dir !== 'asc' && dir !== 'desc') throw new ApiError(400, 'dir is asc or desc');
  const limit = intParam(p.get('limit') ?? '100', 'limit', 1);
  if (limit > MAX_TOPICS_PAGE) throw new ApiError(400, `limit is at most ${MAX_TOPICS_PAGE}`);
  const flag = (name: string) => ['1', 'true'].includes(p.get(name) ?? '');
  return {
    q: (p.get('q') ?? '').toLowerCase(),
    internal: flag('internal'),
    sort,
    dir: dir === 'asc' ? 1 : -1,
    offset: intParam(p.get('offset') ?? '0', 'offset'),
    limit,
    fresh: flag('fresh'),
  };
}

type BaseRow = Omit<TopicRow, 'messages' | 'messagesPerSec'>;

interface Derived {
  readonly dirs: readonly LogDirDescription[] | null;
  readonly rows: readonly BaseRow[];
  readonly byName: ReadonlyMap<string, TopicDescription>;
}

/**
 * Rows without offsets and rates, computed once per metadata and log-dirs answer (the cache hands
 * out the same arrays while they are fresh): 10,000 topics' sizes cost more than the page.
 */
const derivedRows = new WeakMap<readonly TopicDescription[], Derived>();

function baseRows(topics: readonly TopicDescription[], dirs: readonly LogDirDescription[] | null): Derived {
  const hit = derivedRows.get(topics);
  if (hit !== undefined && hit.dirs === dirs) return hit;
  const sizes = dirs === null ? null : replicaSizes(dirs);
  const rows = topics.map((t): BaseRow => {
    let size: number | null = sizes === null ? null : 0;
    let underReplicated = 0;
    let offline = 0;
    for (const p of t.partitions) {
      if (p.leader < 0) offline++;
      else if (isUnderReplicated(p)) underReplicated++;
      if (sizes !== null) size! += leaderSize(sizes, t.name, p) ?? 0;
    }
    return {
      name: t.name,
      internal: t.isInternal,
      partitions: t.partitions.length,
      replicationFactor: t.partitions[0]?.replicas.length ?? 0,
      underReplicated,
      offline,
      sizeBytes: size,
    };
  });
  const derived = { dirs, rows, byName: new Map(topics.map((t) => [t.name, t])) };
  derivedRows.set(topics, derived);
  return derived;
}

/** Messages (high watermark − log start, summed) of the named topics; null when the offsets could not be read. */
async function messageCounts(
  v: Viewer,
  names: readonly string[],
  byName: ReadonlyMap<string, TopicDescription>,
  maxAgeMs: number,
): Promise<Map<string, number> | null> {
  const topics = names.map((n) => byName.get(n)!);
  const ranges = await v.cache.ranges(leaderedPartitions(topics), maxAgeMs).catch(() => {
    v.cache.invalidate(); // a topic deleted meanwhile fails the batch: the next request reads anew
    return null;
  });
  if (ranges === null) return null;
  const out = new Map<string, number>();
  for (const t of topics) {
    let n = 0;
    for (const p of t.partitions) {
      const range = ranges.get(tpKey({ topic: t.name, partition: p.partition }));
      if (range) n += range.end - range.start;
    }
    out.set(t.name, n);
  }
  return out;
}

/** GET /api/topics: one page of the topics the viewer may describe, and the counts of all. */
export async function topicList(v: Viewer, query: TopicQuery) {
  const maxAge = query.fresh ? 0 : v.cache.ttlMs;
  const [topics, dirs] = await Promise.all([v.cache.topics(maxAge), v.cache.logDirs(maxAge)]);
  const { rows: all, byName } = baseRows(topics, dirs);
  const rates = v.live.topicRates();
  const rateOf = (name: string) => (rates === null ? null : (rates.get(name) ?? 0));
  const matching = all.filter(
    (t) => (query.internal || !t.internal) && (query.q === '' || t.name.toLowerCase().includes(query.q)),
  );
  const key = query.sort;
  let counts: Map<string, number> | null = null;
  if (key === 'messages')
    counts = await messageCounts(
      v,
      matching.map((r) => r.name),
      byName,
      maxAge,
    );
  const value = (r: BaseRow): number | null =>
    key === 'messages'
      ? (counts?.get(r.name) ?? null)
      : key === 'messagesPerSec'
        ? rateOf(r.name)
        : r[key as Exclude<TopicSort, 'name' | 'messages' | 'messagesPerSec'>];
  if (key === 'name') {
    if (query.dir < 0) matching.reverse(); // describeTopics answers sorted by name
  } else matching.sort((a, b) => ((value(a) ?? -1) - (value(b) ?? -1)) * query.dir || byNameAsc(a, b));
  const page = matching.slice(query.offset, query.offset + query.limit);
  if (key !== 'messages')
    counts = await messageCounts(
      v,
      page.map((r) => r.name),
      byName,
      maxAge,
    );
  const rows: TopicRow[] = page.map((r) => ({
    ...r,
    messages: counts?.get(r.name) ?? null,
    messagesPerSec: rateOf(r.name),
  }));
  return {
    total: all.length,
    internal: all.reduce((n, r) => n + (r.internal ? 1 : 0), 0),
    matching: matching.length,
    offset: query.offset,
    limit: query.limit,
    sort: query.sort,
    dir: query.dir > 0 ? 'asc' : 'desc',
    throughput: v.live.throughput(),
    rows,
  };
}

const byNameAsc = (a: BaseRow, b: BaseRow) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
