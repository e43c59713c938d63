// What one viewer of the console reads most, kept for a short time: every topic's metadata, each
// replica's log size (DescribeLogDirs) and each partition's log start and high watermark
// (ListOffsets). The sampler (live.ts) refreshes them every tick and the API reads them when young
// enough, so a page of the 10,000-topic list does not ask the cluster for 10,000 topics' offsets
// again. A console write drops everything (`invalidate`); a result that was in flight during a
// write is handed to its caller but not kept.
import type { Admin, LogDirDescription, TopicDescription, TopicPartition } from '../client/index.js';
import { type PartitionRange, tpKey } from './api/offsets.js';

/** One value, its age, and the one load in flight that concurrent readers share. */
class Cached<T> {
  #value: T | undefined;
  #at = Number.NEGATIVE_INFINITY;
  #inflight: { promise: Promise<T>; generation: number } | null = null;
  #generation = 0;

  get(maxAgeMs: number, load: () => Promise<T>): Promise<T> {
    if (this.#value !== undefined && Date.now() - this.#at <= maxAgeMs) return Promise.resolve(this.#value);
    if (this.#inflight !== null && this.#inflight.generation === this.#generation)
      return this.#inflight.promise;
    const generation = this.#generation;
    const started = Date.now();
    const promise = load()
      .then((v) => {
        if (generation === this.#generation) {
          this.#value = v;
          this.#at = started;
        }
        return v;
      })
      .finally(() => {
        if (this.#inflight?.promise === promise) this.#inflight = null;
      });
    this.#inflight = { promise, generation };
    return promise;
  }

  invalidate(): void {
    this.#generation++;
    this.#value = undefined;
    this.#at = Number.NEGATIVE_INFINITY;
  }
}

interface Stamped {
  value: number;
  at: number;
}

export class ClusterCache {
  readonly #admin: () => Admin;
  /** How old an answer the API may serve without asking the cluster again (ms). */
  readonly ttlMs: number;
  readonly #topics = new Cached<TopicDescription[]>();
  readonly #dirs = new Cached<LogDirDescription[] | null>();
  readonly #starts = new Map<string, Stamped>();
  readonly #ends = new Map<string, Stamped>();
  #generation = 0;

  constructor(admin: () => Admin, ttlMs: number) {
    this.#admin = admin;
    this.ttlMs = ttlMs;
  }

  /** Every topic the viewer may describe (Metadata for all topics), at most `maxAgeMs` old. */
  topics(maxAgeMs = this.ttlMs): Promise<TopicDescription[]> {
    return this.#topics.get(maxAgeMs, () => this.#admin().describeTopics());
  }

  /** Every broker's log dirs; null when the cluster refuses DescribeLogDirs (Describe on the cluster). */
  logDirs(maxAgeMs = this.ttlMs): Promise<LogDirDescription[] | null> {
    return this.#dirs.get(maxAgeMs, () =>
      this.#admin()
        .describeLogDirs()
        .catch(() => null),
    );
  }

  /** High watermarks (ListOffsets latest, one request per leader) of `tps`. */
  ends(tps: readonly TopicPartition[], maxAgeMs = this.ttlMs): Promise<Map<string, number>> {
    return this.#offsets(this.#ends, 'latest', tps, maxAgeMs);
  }

  /** Log start offsets (ListOffsets earliest) of `tps`. */
  starts(tps: readonly TopicPartition[], maxAgeMs = this.ttlMs): Promise<Map<string, number>> {
    return this.#offsets(this.#starts, 'earliest', tps, maxAgeMs);
  }

  async ranges(tps: readonly TopicPartition[], maxAgeMs = this.ttlMs): Promise<Map<string, PartitionRange>> {
    const [starts, ends] = await Promise.all([this.starts(tps, maxAgeMs), this.ends(tps, maxAgeMs)]);
    const out = new Map<string, PartitionRange>();
    for (const [k, end] of ends) {
      const start = starts.get(k);
      if (start !== undefined) out.set(k, { start: Math.min(start, end), end });
    }
    return out;
  }

  /** The log start offsets known, however old (the throughput's record-size estimate). */
  knownStarts(): Map<string, number> {
    return new Map([...this.#starts].map(([k, s]) => [k, s.value]));
  }

  /** Forgets the offsets of partitions no longer among `topics` (once more are kept than exist). */
  retain(topics: readonly TopicDescription[]): void {
    const count = topics.reduce((n, t) => n + t.partitions.length, 0);
    if (this.#starts.size <= count && this.#ends.size <= count) return;
    const live = new Set(
      topics.flatMap((t) => t.partitions.map((p) => tpKey({ topic: t.name, partition: p.partition }))),
    );
    for (const m of [this.#starts, this.#ends]) for (const k of m.keys()) if (!live.has(k)) m.delete(k);
  }

  /** After a write: everything is read again. */
  invalidate(): void {
    this.#generation++;
    this.#topics.invalidate();
    this.#dirs.invalidate();
    this.#starts.clear();
    this.#ends.clear();
  }

  async #offsets(
    cache: Map<string, Stamped>,
    spec: 'earliest' | 'latest',
    tps: readonly TopicPartition[],
    maxAgeMs: number,
  ): Promise<Map<string, number>> {
    const now = Date.now();
    const out = new Map<string, number>();
    let missing: readonly TopicPartition[] = tps;
    if (maxAgeMs > 0) {
      const stale: TopicPartition[] = [];
      for (const tp of tps) {
        const k = tpKey(tp);
        const hit = cache.get(k);
        if (hit !== undefined && now - hit.at <= maxAgeMs) out.set(k, hit.value);
        else stale.push(tp);
      }
      missing = stale;
    }
    if (missing.length === 0) return out;
    const generation = this.#generation;
    const listed = await this.#admin().listOffsets(missing.map((tp) => ({ ...tp, spec })));
    for (const l of listed) {
      const k = tpKey(l);
      const value = Number(l.offset);
      out.set(k, value);
      if (generation === this.#generation) cache.set(k, { value, at: now });
    }
    return out;
  }
}
