// Cluster metadata cache: brokers, controller, and the topics the client uses (or all topics).
// Refreshed every metadata.max.age.ms and on demand after leader errors (NOT_LEADER_OR_FOLLOWER,
// UNKNOWN_TOPIC_OR_PARTITION, FENCED/UNKNOWN_LEADER_EPOCH, connection loss). Concurrent
// refresh requests share one in-flight Metadata request; demand-driven refreshes are spaced by
// retry.backoff.ms so that a storm of errors does not become a storm of requests. A partition
// whose leader epoch went backwards (a stale broker answered) keeps the newer cached entry, and
// another refresh is asked for: a lagging broker must never move a partition back to an old
// leader (the consumer would fetch from it, the producer send to it). A topic id change (the
// topic was deleted and created again) starts its epochs afresh.
import { ErrorCode } from '../protocol/errors.js';
import { type MetadataResponse, metadataApi } from '../protocol/messages/generated/metadata.js';
import { ZERO_UUID } from '../protocol/primitives/reader.js';
import type { BrokerPool } from './broker-pool.js';
import { KafkaResponseError } from './errors.js';

export interface PartitionMetadata {
  partition: number;
  /** Leader broker id, -1 if none. */
  leader: number;
  leaderEpoch: number;
  replicas: number[];
  isr: number[];
  offline: number[];
  errorCode: number;
}

export interface TopicMetadata {
  name: string;
  topicId: string;
  isInternal: boolean;
  partitions: PartitionMetadata[];
  /** Partitions that have a leader. */
  available: number[];
}

/** Topic errors after which waiting longer cannot help. */
const FATAL_TOPIC_ERRORS = new Set<number>([
  ErrorCode.INVALID_TOPIC_EXCEPTION,
  ErrorCode.TOPIC_AUTHORIZATION_FAILED,
  ErrorCode.INVALID_REQUEST,
]);

export class Metadata {
  readonly #pool: BrokerPool;
  readonly #autoCreate: boolean;
  #topics = new Map<string, TopicMetadata>();
  #topicErrors = new Map<string, number>();
  #wanted = new Set<string>();
  #allTopics = false;
  clusterId: string | null = null;
  controllerId = -1;
  lastRefresh = 0;
  #inflight: Promise<void> | null = null;
  #again = false;
  #scheduled: NodeJS.Timeout | null = null;
  #ageTimer: NodeJS.Timeout | null = null;
  #listeners: (() => void)[] = [];
  #closed = false;
  /** Called after every applied refresh (the producer wakes its sender). */
  onUpdate: () => void = () => {};

  constructor(pool: BrokerPool, opts: { allowAutoTopicCreation: boolean }) {
    this.#pool = pool;
    this.#autoCreate = opts.allowAutoTopicCreation;
    const age = pool.options.metadataMaxAgeMs;
    if (age > 0) {
      this.#ageTimer = setInterval(
        () => {
          if (Date.now() - this.lastRefresh >= age && (this.#wanted.size > 0 || this.#allTopics))
            this.requestUpdate(true);
        },
        Math.max(100, Math.min(age, 30000)),
      );
      this.#ageTimer.unref();
    }
  }

  topic(name: string): TopicMetadata | undefined {
    return this.#topics.get(name);
  }

  topics(): TopicMetadata[] {
    return [...this.#topics.values()];
  }

  leaderFor(topic: string, partition: number): number | undefined {
    const p = this.#topics.get(topic)?.partitions[partition];
    return p === undefined || p.leader < 0 ? undefined : p.leader;
  }

  /** The partition's leader and leader epoch (−1 if the broker gives none); undefined if leaderless. */
  leaderAndEpoch(topic: string, partition: number): { id: number; epoch: number } | undefined {
    const p = this.#topics.get(topic)?.partitions[partition];
    return p === undefined || p.leader < 0 ? undefined : { id: p.leader, epoch: p.leaderEpoch };
  }

  /** Adds topics to the set this cache keeps fresh. Returns true if any was new. */
  track(...names: string[]): boolean {
    let added = false;
    for (const n of names) {
      if (!this.#wanted.has(n)) {
        this.#wanted.add(n);
        added = true;
      }
    }
    return added;
  }

  /** Keep every topic of the cluster (admin, CLI). */
  trackAll(): void {
    this.#allTopics = true;
  }

  /** Fetches metadata now (joins a refresh already in flight, then runs one more). */
  refresh(): Promise<void> {
    if (this.#inflight !== null) {
      this.#again = true;
      return this.#inflight;
    }
    this.#inflight = this.#run().finally(() => {
      this.#inflight = null;
      if (this.#again && !this.#closed) {
        this.#again = false;
        this.refresh().catch(() => {});
      }
    });
    return this.#inflight;
  }

  /** Schedules a refresh, at most one per retry.backoff.ms unless `now` is set. */
  requestUpdate(now = false): void {
    if (this.#closed || this.#scheduled !== null) return;
    const delay = now ? 0 : Math.max(0, this.lastRefresh + this.#pool.options.retryBackoffMs - Date.now());
    this.#scheduled = setTimeout(() => {
      this.#scheduled = null;
      this.refresh().catch(() => {});
    }, delay);
    this.#scheduled.unref();
  }

  /**
   * Resolves once the topic has metadata with at least one partition. Fails at `deadline` with
   * the last topic error (or null → caller's timeout error), or at once on a fatal topic error.
   */
  async waitForTopic(name: string, deadline: number): Promise<TopicMetadata | null> {
    if (this.track(name) || this.#topics.get(name) === undefined) this.requestUpdate(true);
    for (;;) {
      const t = this.#topics.get(name);
      if (t !== undefined && t.partitions.length > 0) return t;
      const err = this.#topicErrors.get(name);
      if (err !== undefined && FATAL_TOPIC_ERRORS.has(err))
        throw new KafkaResponseError(err, `metadata for topic ${name}`);
      const left = deadline - Date.now();
      if (left <= 0 || this.#closed) return null;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, Math.min(left, this.#pool.options.retryBackoffMs * 2));
        function done(): void {
          clearTimeout(timer);
          resolve();
        }
        this.#listeners.push(done);
      });
      this.requestUpdate();
    }
  }

  topicError(name: string): number | undefined {
    return this.#topicErrors.get(name);
  }

  close(): void {
    this.#closed = true;
    if (this.#ageTimer) clearInterval(this.#ageTimer);
    if (this.#scheduled) clearTimeout(this.#scheduled);
    for (const l of this.#listeners.splice(0)) l();
  }

  async #run(): Promise<void> {
    const link = await this.#pool.any();
    const names = this.#allTopics ? null : [...this.#wanted];
    const res = await link.request(
      metadataApi,
      (v) => ({
        topics: names === null ? null : names.map((name) => ({ topicId: ZERO_UUID, name })),
        allowAutoTopicCreation: this.#autoCreate && v >= 4,
        includeClusterAuthorizedOperations: false,
        includeTopicAuthorizedOperations: false,
      }),
      { minVersion: 1 },
    );
    this.apply(res);
  }

  /** Installs a Metadata response (public for tests and for the admin client). */
  apply(res: MetadataResponse): void {
    this.#pool.updateBrokers(
      res.brokers.map((b) => ({ nodeId: b.nodeId, host: b.host, port: b.port, rack: b.rack })),
    );
    this.clusterId = res.clusterId;
    this.controllerId = res.controllerId;
    const seen = new Set<string>();
    let stale = false;
    for (const t of res.topics) {
      if (t.name === null) continue;
      seen.add(t.name);
      if (t.errorCode !== 0 && t.partitions.length === 0) {
        this.#topicErrors.set(t.name, t.errorCode);
        if (t.errorCode === ErrorCode.UNKNOWN_TOPIC_OR_PARTITION) this.#topics.delete(t.name);
        continue;
      }
      this.#topicErrors.delete(t.name);
      const old = this.#topics.get(t.name);
      const sameTopic =
        old !== undefined &&
        (old.topicId === t.topicId || old.topicId === ZERO_UUID || t.topicId === ZERO_UUID);
      const parts: PartitionMetadata[] = [];
      for (const p of t.partitions) {
        const prev = sameTopic ? old.partitions[p.partitionIndex] : undefined;
        if (prev !== undefined && p.leaderEpoch >= 0 && prev.leaderEpoch > p.leaderEpoch) {
          parts[p.partitionIndex] = prev;
          stale = true;
          continue;
        }
        parts[p.partitionIndex] = {
          partition: p.partitionIndex,
          leader: p.leaderId,
          leaderEpoch: p.leaderEpoch,
          replicas: p.replicaNodes,
          isr: p.isrNodes,
          offline: p.offlineReplicas,
          errorCode: p.errorCode,
        };
      }
      // Guard against sparse partition lists from a confused broker: fill holes as leaderless.
      for (let i = 0; i < parts.length; i++) {
        parts[i] ??= {
          partition: i,
          leader: -1,
          leaderEpoch: -1,
          replicas: [],
          isr: [],
          offline: [],
          errorCode: 5,
        };
      }
      const available = parts.filter((p) => p.leader >= 0).map((p) => p.partition);
      this.#topics.set(t.name, {
        name: t.name,
        topicId: t.topicId,
        isInternal: t.isInternal,
        partitions: parts,
        available,
      });
    }
    if (this.#allTopics)
      for (const name of this.#topics.keys()) if (!seen.has(name)) this.#topics.delete(name);
    this.lastRefresh = Date.now();
    // Ask again (spaced by retry.backoff.ms) until a broker that knows the newer epochs answers.
    if (stale) this.requestUpdate();
    for (const l of this.#listeners.splice(0)) l();
    this.onUpdate();
  }
}
