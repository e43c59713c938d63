// One replica fetcher (Kafka's ReplicaFetcherThread): fetches a set of partitions from one
// leader with Fetch v12+ requests in an incremental fetch session (KIP-227,
// `net/fetch-session-handler.ts`: unchanged partitions stay in the leader's session, which
// answers only partitions with records, a new HW or log start, or an error) carrying this
// broker's replica id (v15+: in
// ReplicaState with its broker epoch), each partition's current leader epoch, fetch offset (the
// local log end offset) and last fetched epoch; each partition's answer is applied by
// `follower-apply.ts` (append, truncation, or a backoff of `replica.fetch.backoff.ms`). A
// transport failure backs off every partition of the request.
//
// A response is applied only to partitions still fetched in the state it was asked for; removal
// waits for the response being applied, so a partition handed to another fetcher or made leader
// never gets an append from an older fetch.

import { FetchSessionHandler, type SessionPartition } from '../../net/fetch-session-handler.js';
import { BrokerLink, type SaslOptions, type TlsConnectOptions } from '../../net/index.js';
import { ErrorCode, errorInfo } from '../../protocol/errors.js';
import { type FetchRequest, type FetchResponse, fetchApi } from '../../protocol/messages/generated/fetch.js';
import type { Logger } from '../logger.js';
import { ZERO_UUID } from '../metadata/uuid.js';
import { applyFetchedPartition, type FollowerFetchState, initialFetchState } from './follower-apply.js';
import type { Partition } from './partition.js';

export interface ReplicaFetcherConfig {
  readonly nodeId: number;
  /** This broker's registration epoch (Fetch v15+ ReplicaState). */
  readonly brokerEpoch: () => bigint;
  /** `replica.fetch.max.bytes` (per partition). */
  readonly fetchMaxBytes: number;
  /** `replica.fetch.response.max.bytes`. */
  readonly responseMaxBytes: number;
  /** `replica.fetch.wait.max.ms`. */
  readonly waitMaxMs: number;
  /** `replica.fetch.min.bytes`. */
  readonly minBytes: number;
  /** `replica.fetch.backoff.ms`. */
  readonly backoffMs: number;
  /** `replica.socket.timeout.ms`: how long a fetch may stay unanswered. */
  readonly socketTimeoutMs: number;
  /** TLS to the leaders (an SSL inter-broker listener). */
  readonly tls?: TlsConnectOptions;
  readonly sasl?: SaslOptions;
  /** Incremental fetch sessions with the leader (default true; false: sessionless, to compare). */
  readonly fetchSessions?: boolean;
  /** Told the record bytes each follower append wrote (the broker's replication metrics). */
  readonly replicationBytesIn?: (bytes: number) => void;
  readonly logger: Logger;
}

/** One partition's fetch position and schedule (Kafka's PartitionFetchState). */
interface FetchState extends FollowerFetchState {
  delayedUntil: number;
  /** Fenced by the leader: no fetching until a new LeaderAndIsr re-adds the partition. */
  failed: boolean;
}

/** Fetch v12 brings the diverging epoch; older leaders are not supported. */
const MIN_FETCH_VERSION = 12;
/** The last version that names topics rather than ids. */
const LAST_VERSION_BY_NAME = 12;

/** Top-level answers that concern only the fetch session (and `NONE`: a response not fitting it). */
const SESSION_ERRORS = new Set<number>([
  ErrorCode.NONE,
  ErrorCode.FETCH_SESSION_ID_NOT_FOUND,
  ErrorCode.INVALID_FETCH_SESSION_EPOCH,
  ErrorCode.FETCH_SESSION_TOPIC_ID_ERROR,
]);

export const partitionKey = (topic: string, partition: number): string => `${topic}\u0000${partition}`;

export class ReplicaFetcher {
  readonly #states = new Map<string, FetchState>();
  readonly #link: BrokerLink;
  readonly #config: ReplicaFetcherConfig;
  #running = true;
  #wake: () => void = () => {};
  #processing: Promise<void> = Promise.resolve();
  readonly #loop: Promise<void>;
  #lastError = '';
  readonly #session: FetchSessionHandler;

  constructor(
    readonly leaderId: number,
    readonly host: string,
    readonly port: number,
    readonly fetcherId: number,
    config: ReplicaFetcherConfig,
  ) {
    this.#config = config;
    this.#session = new FetchSessionHandler({ enabled: config.fetchSessions ?? true });
    this.#link = new BrokerLink(leaderId, host, port, {
      clientId: `broker-${config.nodeId}-fetcher-${fetcherId}`,
      requestTimeoutMs: config.socketTimeoutMs + config.waitMaxMs,
      ...(config.tls ? { tls: config.tls } : {}),
      ...(config.sasl ? { sasl: config.sasl } : {}),
    });
    this.#loop = this.#run();
  }

  get size(): number {
    return this.#states.size;
  }

  has(topic: string, partition: number): boolean {
    return this.#states.has(partitionKey(topic, partition));
  }

  /** Starts fetching these partitions from their log end offset (a new state each). */
  add(partitions: readonly Partition[]): void {
    for (const p of partitions) {
      this.#states.set(partitionKey(p.topic, p.index), {
        ...initialFetchState(p),
        delayedUntil: 0,
        failed: false,
      });
    }
    this.#wake();
  }

  /** Stops fetching these partitions; resolves once no response is being applied to them. */
  async remove(keys: readonly string[]): Promise<void> {
    for (const k of keys) this.#states.delete(k);
    await this.#processing;
  }

  async close(): Promise<void> {
    this.#running = false;
    this.#states.clear();
    this.#link.close();
    this.#wake();
    await this.#loop;
  }

  async #run(): Promise<void> {
    while (this.#running) {
      const now = Date.now();
      const ready: FetchState[] = [];
      let next = Number.POSITIVE_INFINITY;
      for (const s of this.#states.values()) {
        if (s.failed) continue;
        if (s.delayedUntil <= now) ready.push(s);
        else next = Math.min(next, s.delayedUntil);
      }
      if (ready.length === 0) {
        await this.#sleep(next - now);
        continue;
      }
      await this.#fetchOnce(ready);
    }
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = Number.isFinite(ms) ? setTimeout(done, Math.max(0, ms)) : null;
      function done(): void {
        if (timer !== null) clearTimeout(timer);
        resolve();
      }
      this.#wake = done;
    });
  }

  async #fetchOnce(ready: readonly FetchState[]): Promise<void> {
    const sent = new Map<FetchState, bigint>(ready.map((s) => [s, s.fetchOffset]));
    const byName = ready.some((s) => s.partition.topicId === ZERO_UUID);
    let res: FetchResponse;
    let version = -1;
    try {
      res = await this.#link.request(
        fetchApi,
        (v) => {
          version = v;
          return this.#request(ready, v);
        },
        { minVersion: MIN_FETCH_VERSION, ...(byName ? { maxVersion: LAST_VERSION_BY_NAME } : {}) },
      );
    } catch (e) {
      this.#session.handleError();
      if (!this.#running) return;
      this.#noteError(`fetch from broker ${this.leaderId} failed`, e);
      this.#delay(ready);
      return;
    }
    if (!this.#running) return;
    // A session error only means the next request is a full one (at once, as Kafka's fetcher).
    if (this.#session.handleResponse(res) === 'drop' && SESSION_ERRORS.has(res.errorCode)) return;
    if (res.errorCode !== ErrorCode.NONE) {
      this.#noteError(`fetch from broker ${this.leaderId} answered ${errorInfo(res.errorCode).name}`);
      this.#delay(ready);
      return;
    }
    this.#lastError = '';
    const run = this.#apply(res, version, sent);
    this.#processing = run.catch(() => {});
    await run;
  }

  #request(ready: readonly FetchState[], version: number): FetchRequest {
    const next: SessionPartition[] = ready.map((s) => ({
      topic: s.partition.topic,
      topicId: s.partition.topicId,
      partition: s.partition.index,
      currentLeaderEpoch: s.leaderEpoch,
      fetchOffset: s.fetchOffset,
      lastFetchedEpoch: s.lastFetchedEpoch,
      logStartOffset: s.partition.log.logStartOffset,
      partitionMaxBytes: this.#config.fetchMaxBytes,
    }));
    const session = this.#session.build(next, version);
    const nodeId = this.#config.nodeId;
    return {
      clusterId: null,
      replicaId: version >= 15 ? -1 : nodeId,
      replicaState: { replicaId: nodeId, replicaEpoch: this.#config.brokerEpoch() },
      maxWaitMs: this.#config.waitMaxMs,
      minBytes: this.#config.minBytes,
      maxBytes: this.#config.responseMaxBytes,
      isolationLevel: 0,
      sessionId: session.sessionId,
      sessionEpoch: session.sessionEpoch,
      topics: session.topics,
      forgottenTopicsData: session.forgottenTopicsData,
      rackId: '',
    };
  }

  async #apply(res: FetchResponse, version: number, sent: Map<FetchState, bigint>): Promise<void> {
    const byName = version <= LAST_VERSION_BY_NAME;
    const asked = new Map<string, FetchState>();
    for (const s of sent.keys()) {
      const topic = byName ? s.partition.topic : s.partition.topicId;
      asked.set(partitionKey(topic, s.partition.index), s);
    }
    for (const t of res.responses) {
      for (const pd of t.partitions) {
        const s = asked.get(partitionKey(byName ? t.topic : t.topicId, pd.partitionIndex));
        if (s === undefined) continue;
        const key = partitionKey(s.partition.topic, s.partition.index);
        // Removed, re-added or moved on since the request: not for this state.
        if (this.#states.get(key) !== s || s.fetchOffset !== sent.get(s)) continue;
        try {
          const outcome = await applyFetchedPartition(
            s,
            pd,
            this.#config.logger,
            this.#config.replicationBytesIn,
          );
          if (outcome === 'backoff') this.#delay([s]);
          else if (outcome === 'fenced') s.failed = true;
        } catch (e) {
          this.#config.logger.log('error', 'replica fetcher could not apply fetched data', {
            topic: s.partition.topic,
            partition: s.partition.index,
            leader: this.leaderId,
            error: e instanceof Error ? e.message : String(e),
          });
          this.#delay([s]);
        }
      }
    }
  }

  #delay(states: readonly FetchState[]): void {
    const until = Date.now() + this.#config.backoffMs;
    for (const s of states) s.delayedUntil = until;
  }

  #noteError(what: string, e?: unknown): void {
    const message = e === undefined ? what : `${what}: ${e instanceof Error ? e.message : String(e)}`;
    if (message === this.#lastError) return;
    this.#lastError = message;
    this.#config.logger.log('warn', message, { leader: this.leaderId, fetcherId: this.fetcherId });
  }
}
