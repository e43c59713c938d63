// The broker's incremental fetch sessions (KIP-227), Kafka's FetchSessionCache: at most
// `max.incremental.fetch.session.cache.slots` sessions, each the partitions one fetcher asked
// for with their last request parameters and the last HW / LSO / log start sent back for them.
// Sessions live in this process only: they are not replicated and do not survive a restart (a
// client that asks for a lost session gets FETCH_SESSION_ID_NOT_FOUND and starts a full one).
//
// Eviction is Kafka's. A new session takes a free slot; with none free it may evict:
//   1. the least recently used session if it was unused for `evictionMs` (stale), otherwise
//   2. the least valuable evictable session if the new one is worth more — worth ordered by
//      (privileged, size): follower sessions are privileged, then more partitions win (a tie
//      keeps the old session). A session is evictable by everyone once it is older than `evictionMs`;
//      unprivileged sessions are evictable by privileged ones at any age.
// Which lists a session belongs to, and the size it is ranked by, are refreshed when it is used
// (Kafka's `touch`), not continuously. Kafka keeps sorted trees for both orders and shards the
// cache across its request threads; one event loop and a thousand slots make a scan on the
// (rare) creation with a full cache simpler and as fast.

import { randomInt } from 'node:crypto';

/** Kafka's MIN_INCREMENTAL_FETCH_SESSION_EVICTION_MS: a constant there, not a config key. */
export const MIN_INCREMENTAL_FETCH_SESSION_EVICTION_MS = 120_000;
/** Kafka's default of `max.incremental.fetch.session.cache.slots`. */
export const DEFAULT_FETCH_SESSION_CACHE_SLOTS = 1000;

/** One partition of a session: what the fetcher asked last and what it was told last. */
export interface CachedPartition {
  /** The topic name (name-based sessions); '' in id-based sessions (resolved per request). */
  readonly topic: string;
  /** The topic id (id-based sessions, v13+); the zero uuid in name-based ones. */
  readonly topicId: string;
  readonly partition: number;
  fetchOffset: bigint;
  maxBytes: number;
  currentLeaderEpoch: number;
  lastFetchedEpoch: number;
  /** The follower's log start offset (consumers send -1). */
  fetcherLogStartOffset: bigint;
  /** The high watermark last sent; -1 = never sent or last answered with an error. */
  highWatermark: bigint;
  lastStableOffset: bigint;
  /** This broker's log start offset last sent. */
  localLogStartOffset: bigint;
}

/** The key of a partition in a session: by id in id-based sessions, by name otherwise. */
export function cachedPartitionKey(
  usesTopicIds: boolean,
  topic: string,
  topicId: string,
  partition: number,
): string {
  return `${usesTopicIds ? topicId : topic}\u0000${partition}`;
}

export class FetchSession {
  /** In fetch order; partitions that returned records move to the end (fairness, as Kafka). */
  readonly partitions = new Map<string, CachedPartition>();
  lastUsedMs: number;
  /** The epoch the next request must carry. */
  epoch: number;
  /** The size this session is ranked and counted by; -1 while not in the cache. */
  cachedSize = -1;
  /** Refreshed by `touch`: which sessions may evict this one when the cache is full. */
  evictableByAll = false;
  evictableByPrivileged = false;

  constructor(
    readonly id: number,
    /** Created by a follower (replica id ≥ 0). */
    readonly privileged: boolean,
    readonly usesTopicIds: boolean,
    readonly creationMs: number,
    epoch: number,
  ) {
    this.lastUsedMs = creationMs;
    this.epoch = epoch;
  }
}

export interface FetchSessionCacheOptions {
  /** `max.incremental.fetch.session.cache.slots`. */
  readonly maxEntries: number;
  /** How long a session must be unused (or exist) before it can be evicted. */
  readonly evictionMs?: number;
}

/** (privileged, size, id) ascending: the first is the least valuable. */
function compareWorth(a: { privileged: boolean; size: number; id: number }, b: typeof a): number {
  if (a.privileged !== b.privileged) return a.privileged ? 1 : -1;
  if (a.size !== b.size) return a.size - b.size;
  return a.id - b.id;
}

export class FetchSessionCache {
  readonly #sessions = new Map<number, FetchSession>();
  readonly maxEntries: number;
  readonly evictionMs: number;
  #partitions = 0;
  /** Sessions evicted to make room (Kafka's IncrementalFetchSessionEvictionsPerSec). */
  evictions = 0;

  constructor(options: FetchSessionCacheOptions) {
    this.maxEntries = Math.max(0, options.maxEntries);
    this.evictionMs = options.evictionMs ?? MIN_INCREMENTAL_FETCH_SESSION_EVICTION_MS;
  }

  get(id: number): FetchSession | undefined {
    return this.#sessions.get(id);
  }

  /** The sessions in the cache, in no particular order (for inspection). */
  values(): IterableIterator<FetchSession> {
    return this.#sessions.values();
  }

  /** Sessions in the cache (NumIncrementalFetchSessions). */
  get size(): number {
    return this.#sessions.size;
  }

  /** Partitions over all sessions, as last touched (NumIncrementalFetchPartitionsCached). */
  get totalPartitions(): number {
    return this.#partitions;
  }

  /**
   * Opens a session if there is room or something may be evicted for it; returns its id, or 0
   * when the fetcher stays sessionless. `partitions` fills the new session.
   */
  maybeCreate(
    now: number,
    privileged: boolean,
    usesTopicIds: boolean,
    size: number,
    partitions: () => Iterable<readonly [string, CachedPartition]>,
  ): number {
    if (this.#sessions.size >= this.maxEntries && !this.#tryEvict(privileged, size, now)) return 0;
    const session = new FetchSession(this.#newId(), privileged, usesTopicIds, now, 1);
    for (const [k, p] of partitions()) session.partitions.set(k, p);
    this.#sessions.set(session.id, session);
    this.touch(session, now);
    return session.id;
  }

  remove(id: number): FetchSession | undefined {
    const session = this.#sessions.get(id);
    if (session === undefined) return undefined;
    this.#sessions.delete(id);
    this.#partitions -= Math.max(0, session.cachedSize);
    session.cachedSize = -1;
    return session;
  }

  /** Records a use: last-used time, ranking size and eviction eligibility. */
  touch(session: FetchSession, now: number): void {
    session.lastUsedMs = now;
    if (session.cachedSize >= 0) this.#partitions -= session.cachedSize;
    session.cachedSize = session.partitions.size;
    this.#partitions += session.cachedSize;
    const aged = now - session.creationMs > this.evictionMs;
    session.evictableByPrivileged = !session.privileged || aged;
    session.evictableByAll = aged;
  }

  #tryEvict(privileged: boolean, size: number, now: number): boolean {
    let lru: FetchSession | undefined;
    let cheapest: FetchSession | undefined;
    for (const s of this.#sessions.values()) {
      if (
        lru === undefined ||
        s.lastUsedMs < lru.lastUsedMs ||
        (s.lastUsedMs === lru.lastUsedMs && s.id < lru.id)
      )
        lru = s;
      if (!(privileged ? s.evictableByPrivileged : s.evictableByAll)) continue;
      if (cheapest === undefined || compareWorth(worth(s), worth(cheapest)) < 0) cheapest = s;
    }
    if (lru === undefined) return false;
    if (now - lru.lastUsedMs > this.evictionMs) {
      this.remove(lru.id);
      this.evictions++;
      return true;
    }
    // The new session ranks with id 0, below any session of equal worth: a tie never evicts.
    if (cheapest === undefined || compareWorth({ privileged, size, id: 0 }, worth(cheapest)) < 0)
      return false;
    this.remove(cheapest.id);
    this.evictions++;
    return true;
  }

  /** A positive id not in use (Kafka draws them at random too: ids are not guessable in order). */
  #newId(): number {
    for (;;) {
      const id = randomInt(1, 0x7fffffff);
      if (!this.#sessions.has(id)) return id;
    }
  }
}

function worth(s: FetchSession): { privileged: boolean; size: number; id: number } {
  return { privileged: s.privileged, size: s.cachedSize, id: s.id };
}
