// The consumer, with the semantics of Kafka's KafkaConsumer on one event loop:
// subscribe (topics or RegExp, group-managed) or assign (manual), poll(timeout) or an async
// iterator, commits (auto, sync, async), positions and seeks, pause/resume, wakeup and close.
//
// poll() is where the application-facing work happens: rebalance steps and their listener
// callbacks, auto commit, position lookups, and draining fetched records. Fetching, heartbeats
// and JoinGroup/SyncGroup round trips run in the background between polls.
import { BrokerPool } from '../broker-pool.js';
import { Coordinators } from '../coordinator.js';
import { ClientClosedError, ConfigError, IllegalStateError, RequestTimeoutError } from '../errors.js';
import { Metadata } from '../metadata.js';
import { ConsumerMetrics, type ConsumerMetricsSnapshot } from '../metrics/consumer-metrics.js';
import { AutoCommit } from './auto-commit.js';
import {
  type ConsumerOptions,
  type Deserializer,
  type ResolvedConsumerOptions,
  resolveConsumerOptions,
} from './consumer-config.js';
import { ConsumerProtocolMembership, consumerProtocolHost } from './consumer-protocol-membership.js';
import { FetchPositions } from './fetch-positions.js';
import { Fetcher } from './fetcher.js';
import { GroupMembership } from './group-membership.js';
import { GroupRpc } from './group-rpc.js';
import type { Membership } from './membership.js';
import { type HostParts, membershipHost, SubscriptionMetadataWatch } from './membership-host.js';
import { EARLIEST_TIMESTAMP, LATEST_TIMESTAMP } from './offset-lookup.js';
import { OffsetQueries } from './offset-queries.js';
import { GroupOffsets } from './offsets.js';
import { PositionValidator } from './position-validation.js';
import { type ReplayStart, replayTargets } from './replay.js';
import { SubscriptionState } from './subscription-state.js';
import { toRe2TopicRegex } from './topic-regex.js';
import type {
  ConsumerRecord,
  OffsetAndTimestamp,
  RebalanceListener,
  TopicPartition,
  TopicPartitionOffset,
} from './types.js';
import { Waker } from './waker.js';

export interface ConsumerGroupMetadata {
  groupId: string;
  generationId: number;
  memberId: string;
  groupInstanceId: string | null;
}

export type CommitCallback = (err: Error | null, offsets: TopicPartitionOffset[]) => void;

export class Consumer<K = Buffer | null, V = Buffer | null> implements AsyncIterable<ConsumerRecord<K, V>> {
  readonly options: ResolvedConsumerOptions;
  readonly #pool: BrokerPool;
  readonly #metadata: Metadata;
  readonly #subs = new SubscriptionState();
  readonly #fetcher: Fetcher;
  readonly #rpc: GroupRpc | null;
  readonly #offsets: GroupOffsets | null;
  readonly #positions: FetchPositions;
  readonly #validator: PositionValidator;
  readonly #autoCommit: AutoCommit;
  readonly #queries: OffsetQueries;
  readonly #metadataWatch: SubscriptionMetadataWatch;
  readonly #kd: Deserializer<K> | null;
  readonly #vd: Deserializer<V> | null;
  #membership: Membership | null = null;
  #listener: RebalanceListener | null = null;
  readonly #waker = new Waker();
  #polling = false;
  #lastPollAt = Date.now();
  readonly #metrics = new ConsumerMetrics();
  #closing = false;
  #closed = false;

  constructor(options: ConsumerOptions<K, V>) {
    this.options = resolveConsumerOptions(options as ConsumerOptions<unknown, unknown>);
    const o = this.options;
    this.#pool = new BrokerPool(o);
    this.#metadata = new Metadata(this.#pool, { allowAutoTopicCreation: o.allowAutoCreateTopics });
    this.#fetcher = new Fetcher(this.#pool, this.#metadata, this.#subs, o, () => this.#waker.signal());
    this.#rpc = o.groupId === null ? null : new GroupRpc(o.groupId, new Coordinators(this.#pool), o);
    this.#offsets = this.#rpc === null ? null : new GroupOffsets(this.#rpc, o, () => this.#membership);
    this.#fetcher.metrics = this.#metrics;
    if (this.#offsets !== null) this.#offsets.metrics = this.#metrics;
    this.#positions = new FetchPositions(this.#pool, this.#metadata, this.#subs, o, this.#offsets, () => {
      this.#fetcher.maybeFetch();
      this.#waker.signal();
    });
    this.#validator = new PositionValidator(this.#pool, this.#metadata, this.#subs, o, () => {
      this.#fetcher.maybeFetch();
      this.#waker.signal();
    });
    this.#kd = options.keyDeserializer ?? null;
    this.#vd = options.valueDeserializer ?? null;
    this.#autoCommit = new AutoCommit(o, this.#subs, this.#offsets, () => this.#membership);
    this.#queries = new OffsetQueries(this.#pool, this.#metadata, this.#waker, o);
    this.#metadataWatch = new SubscriptionMetadataWatch(this.#subs, this.#metadata);
  }

  // ---- subscription -------------------------------------------------------------------------

  /** Joins the group for these topics (or every topic matching the pattern). */
  subscribe(topics: readonly string[] | RegExp, listener?: RebalanceListener): void {
    this.#ensureOpen();
    if (this.#rpc === null) throw new ConfigError('subscribe() needs a groupId; use assign() without one');
    if (topics instanceof RegExp) {
      // With groupProtocol 'consumer' the broker matches the pattern (RE2): refuse what RE2 cannot say now.
      if (this.options.groupProtocol === 'consumer') toRe2TopicRegex(topics);
      this.#subs.subscribePattern(topics);
      this.#metadata.trackAll();
      this.#metadataWatch.reset();
    } else {
      if (topics.some((t) => typeof t !== 'string' || t === ''))
        throw new ConfigError('topic names must be non-empty strings');
      this.#subs.subscribeTopics(topics);
      if (topics.length > 0) this.#metadata.track(...topics);
      this.#metadata.requestUpdate(true);
    }
    this.#listener = listener ?? this.#listener;
    if (this.#membership === null)
      this.#membership =
        this.options.groupProtocol === 'consumer'
          ? new ConsumerProtocolMembership(this.#rpc, this.options, consumerProtocolHost(this.#hostParts()))
          : new GroupMembership(this.#rpc, this.options, membershipHost(this.#hostParts()));
    else this.#membership.requestRejoin('subscription changed');
    this.#waker.signal();
  }

  /** Manually assigns partitions (no group membership, no rebalancing). */
  assign(partitions: readonly TopicPartition[]): void {
    this.#ensureOpen();
    this.#subs.manualAssign();
    const added = this.#subs.setAssignment(partitions);
    for (const s of added) {
      if (this.#offsets !== null) s.needsCommitted = true;
      else s.requestReset(this.options.autoOffsetReset);
    }
    if (partitions.length === 0) this.#subs.unsubscribe();
    this.#metadata.track(...new Set(partitions.map((p) => p.topic)));
    this.#metadata.requestUpdate(true);
    this.#fetcher.purgeStale();
    this.#waker.signal();
  }

  /** Leaves the group (revoking partitions through the listener) or drops the manual assignment. */
  async unsubscribe(): Promise<void> {
    this.#ensureOpen();
    const m = this.#membership;
    if (m !== null) {
      await m.settle(this.options.defaultApiTimeoutMs / 2);
      await this.#giveUpPartitions(m);
      await m.leave('the consumer unsubscribed from all topics');
      m.close();
      this.#membership = null;
    }
    this.#subs.unsubscribe();
    this.#fetcher.purgeStale();
  }

  assignment(): TopicPartition[] {
    return this.#subs.assignedPartitions();
  }

  subscription(): string[] {
    return [...this.#subs.topics];
  }

  // ---- polling ------------------------------------------------------------------------------

  /**
   * Returns the next records (at most max.poll.records), waiting up to `timeoutMs` for some.
   * Runs pending rebalance steps (and the rebalance listener) first. Throws WakeupError if
   * wakeup() was called, and partition errors (e.g. NoOffsetForPartitionError) as Kafka does.
   */
  async poll(timeoutMs: number): Promise<ConsumerRecord<K, V>[]> {
    this.#ensureOpen();
    if (this.#polling)
      throw new IllegalStateError('poll() is already running: call it from one task at a time');
    if (this.#subs.mode === 'none') throw new IllegalStateError('subscribe() or assign() before poll()');
    this.#polling = true;
    this.#lastPollAt = Date.now();
    this.#metrics.pollStarted(this.#lastPollAt);
    const deadline = Date.now() + Math.max(0, timeoutMs);
    try {
      for (;;) {
        this.#waker.check();
        if (this.#closing) return [];
        const m = this.#membership;
        if (m !== null) {
          await this.#metadataWatch.check(m);
          await m.poll();
          this.#waker.check();
          if (this.#closing) return [];
        }
        this.#autoCommit.maybeCommit();
        this.#positions.update();
        this.#validator.update();
        // A truncation found by validation is raised before any record, as Java does.
        this.#validator.takeError();
        this.#fetcher.maybeFetch();
        const records = await this.#fetcher.collect(this.options.maxPollRecords, this.#kd, this.#vd);
        if (records.length > 0) return records;
        this.#positions.takeError();
        const left = deadline - Date.now();
        if (left <= 0) return [];
        await this.#waker.wait(left);
      }
    } finally {
      this.#polling = false;
      this.#lastPollAt = Date.now();
      this.#metrics.pollEnded(this.#lastPollAt);
    }
  }

  /** Yields records one by one, polling as needed, until the consumer is closed. */
  async *[Symbol.asyncIterator](): AsyncIterator<ConsumerRecord<K, V>> {
    while (!this.#closing) {
      const records = await this.poll(1000);
      for (const r of records) yield r;
    }
  }

  /** Makes a blocked (or the next) poll()/commitSync()/position() throw WakeupError. Safe from any task. */
  wakeup(): void {
    this.#waker.wakeup();
  }

  // ---- offsets ------------------------------------------------------------------------------

  /** Commits `offsets` (default: the positions of everything polled), retrying retriable errors. */
  async commitSync(
    offsets?: readonly TopicPartitionOffset[],
    opts: { timeoutMs?: number } = {},
  ): Promise<void> {
    this.#ensureNotClosed();
    const g = this.#requireGroup();
    const list = offsets ?? this.#autoCommit.consumed(null);
    if (list.length === 0) return;
    this.#waker.check();
    await this.#waker.wakeable(
      g.commit(list, true, Date.now() + (opts.timeoutMs ?? this.options.defaultApiTimeoutMs)),
    );
  }

  /** One commit attempt without retries; the callback (if any) gets the outcome. */
  commitAsync(
    offsets?: readonly TopicPartitionOffset[] | CommitCallback,
    callback?: CommitCallback,
  ): Promise<void> {
    this.#ensureNotClosed();
    const g = this.#requireGroup();
    const cb = typeof offsets === 'function' ? offsets : callback;
    const list =
      typeof offsets === 'function' || offsets === undefined ? this.#autoCommit.consumed(null) : [...offsets];
    if (list.length === 0) {
      cb?.(null, list);
      return Promise.resolve();
    }
    const p = g.commit(list, false, Date.now() + this.options.requestTimeoutMs);
    if (cb === undefined) return p;
    return p.then(
      () => cb(null, list),
      (err: Error) => cb(err, list),
    );
  }

  /** The group's committed offsets, in the order asked (null where nothing is committed). */
  async committed(
    partitions: readonly TopicPartition[],
    opts: { timeoutMs?: number } = {},
  ): Promise<(TopicPartitionOffset | null)[]> {
    this.#ensureNotClosed();
    const g = this.#requireGroup();
    const found = await this.#waker.wakeable(
      g.fetch(partitions, Date.now() + (opts.timeoutMs ?? this.options.defaultApiTimeoutMs)),
    );
    return partitions.map((tp) => {
      const c = found.get(`${tp.topic}\u0000${tp.partition}`);
      return c
        ? {
            topic: tp.topic,
            partition: tp.partition,
            offset: c.offset,
            metadata: c.metadata,
            leaderEpoch: c.leaderEpoch,
          }
        : null;
    });
  }

  /** The offset of the next record poll() would return for an assigned partition (looked up if needed). */
  async position(tp: TopicPartition, opts: { timeoutMs?: number } = {}): Promise<bigint> {
    this.#ensureNotClosed();
    const s = this.#subs.require(tp);
    const deadline = Date.now() + (opts.timeoutMs ?? this.options.defaultApiTimeoutMs);
    while (!s.hasValidPosition) {
      this.#waker.check();
      this.#positions.update();
      this.#positions.takeError();
      this.#validator.update();
      this.#validator.takeError();
      const left = deadline - Date.now();
      if (left <= 0)
        throw new RequestTimeoutError(`no position for ${tp.topic}-${tp.partition} within the timeout`);
      await this.#waker.wait(Math.min(left, 100));
    }
    return s.position!;
  }

  seek(tp: TopicPartition, offset: bigint | number): void {
    const o = BigInt(offset);
    if (o < 0n) throw new ConfigError('seek offset must not be negative');
    this.#subs.require(tp).seek(o);
    this.#fetcher.purgeStale();
    this.#waker.signal();
  }

  seekToBeginning(partitions?: readonly TopicPartition[]): void {
    for (const s of partitions?.map((tp) => this.#subs.require(tp)) ?? this.#subs.assigned())
      s.requestReset('earliest');
    this.#fetcher.purgeStale();
    this.#waker.signal();
  }

  seekToEnd(partitions?: readonly TopicPartition[]): void {
    for (const s of partitions?.map((tp) => this.#subs.require(tp)) ?? this.#subs.assigned())
      s.requestReset('latest');
    this.#fetcher.purgeStale();
    this.#waker.signal();
  }

  /**
   * Re-reads from a point in time or from given offsets: each assigned partition (or each of
   * `opts.partitions`) is sought to its first record at or after the time — to its end if it has
   * none — or to the offset given for it. Returns the new positions. Call it after assign(), or
   * from onPartitionsAssigned for a group (docs/patterns/replay.md).
   */
  async replayFrom(
    from: ReplayStart,
    opts: { partitions?: readonly TopicPartition[]; timeoutMs?: number } = {},
  ): Promise<TopicPartitionOffset[]> {
    this.#ensureOpen();
    const targets = await replayTargets(from, this.assignment(), opts.partitions ?? null, {
      offsetsForTimes: (q) => this.offsetsForTimes(q, opts),
      endOffsets: (tps) => this.endOffsets(tps, opts),
    });
    // A rebalance during the lookups may have taken partitions away: those are not sought.
    const still = new Set(this.assignment().map((tp) => `${tp.topic}\u0000${tp.partition}`));
    const kept = targets.filter((t) => still.has(`${t.topic}\u0000${t.partition}`));
    for (const t of kept) this.seek(t, t.offset);
    return kept;
  }

  /** For each partition, the earliest offset whose timestamp is ≥ the given time (null if none). */
  async offsetsForTimes(
    query: readonly (TopicPartition & { timestamp: number })[],
    opts: { timeoutMs?: number } = {},
  ): Promise<(OffsetAndTimestamp | null)[]> {
    this.#ensureOpen();
    return this.#queries.offsetsForTimes(query, opts.timeoutMs);
  }

  async beginningOffsets(
    partitions: readonly TopicPartition[],
    opts: { timeoutMs?: number } = {},
  ): Promise<bigint[]> {
    this.#ensureOpen();
    return this.#queries.edgeOffsets(partitions, EARLIEST_TIMESTAMP, opts.timeoutMs);
  }

  /** Log end offsets (the last stable offset with read_committed). */
  async endOffsets(
    partitions: readonly TopicPartition[],
    opts: { timeoutMs?: number } = {},
  ): Promise<bigint[]> {
    this.#ensureOpen();
    return this.#queries.edgeOffsets(partitions, LATEST_TIMESTAMP, opts.timeoutMs);
  }

  /** The topic's partitions and their leaders (waits for metadata; auto-creates if allowed). */
  async partitionsFor(
    topic: string,
    opts: { timeoutMs?: number } = {},
  ): Promise<{ topic: string; partition: number; leader: number }[]> {
    this.#ensureOpen();
    return this.#queries.partitionsFor(topic, opts.timeoutMs);
  }

  // ---- flow control -------------------------------------------------------------------------

  pause(partitions: readonly TopicPartition[]): void {
    for (const tp of partitions) this.#subs.require(tp).paused = true;
  }

  resume(partitions: readonly TopicPartition[]): void {
    for (const tp of partitions) this.#subs.require(tp).paused = false;
    this.#fetcher.maybeFetch();
    this.#waker.signal();
  }

  paused(): TopicPartition[] {
    return this.#subs
      .assigned()
      .filter((s) => s.paused)
      .map((s) => s.tp());
  }

  /** For Producer.sendOffsetsToTransaction: the group and this member's generation. */
  groupMetadata(): ConsumerGroupMetadata {
    const g = this.#requireGroup();
    void g;
    const m = this.#membership;
    return {
      groupId: this.options.groupId!,
      generationId: m?.generation.generationId ?? -1,
      memberId: m?.generation.memberId ?? '',
      groupInstanceId: this.options.groupInstanceId,
    };
  }

  /**
   * The consumer's metrics now, named after Kafka's Java consumer (`records-consumed-rate`,
   * `fetch-latency-avg`, `records-lag-max`, per-partition `records-lag`, …; rates over 2 × 30 s
   * windows). A plain object: lag and rates are computed only when it is read.
   */
  metrics(): ConsumerMetricsSnapshot {
    return this.#metrics.snapshot({
      assigned: this.#subs.assigned(),
      readCommitted: this.options.isolationLevel === 1,
      bufferedBytes: this.#fetcher.bufferedBytes,
    });
  }

  /** Bytes fetched and not yet returned by poll() (bounded by maxBufferedBytes). */
  get bufferedBytes(): number {
    return this.#fetcher.bufferedBytes;
  }

  // ---- shutdown -----------------------------------------------------------------------------

  /**
   * Commits (with auto commit), revokes partitions through the listener, leaves the group
   * (dynamic members) and closes every connection. A Fetch long poll in flight is abandoned,
   * not awaited (as Kafka's consumer). A poll() waiting meanwhile returns [].
   */
  async close(opts: { timeoutMs?: number } = {}): Promise<void> {
    if (this.#closing) return;
    this.#closing = true;
    this.#waker.signal();
    const work = (async () => {
      const m = this.#membership;
      if (m !== null) {
        // Half the budget at most for a rebalance in flight; the rest is for commit and leave.
        await m.settle((opts.timeoutMs ?? 30000) / 2);
        await this.#giveUpPartitions(m);
        await m.leave('the consumer is being closed');
      } else if (this.#autoCommit.enabled) {
        await this.#autoCommit.commitSync(null).catch(() => {});
      }
      await this.#fetcher.closeSessions(Math.min(5000, opts.timeoutMs ?? 30000));
    })();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((r) => {
      timer = setTimeout(r, opts.timeoutMs ?? 30000);
    });
    try {
      await Promise.race([work.catch(() => {}), timeout]);
    } finally {
      clearTimeout(timer);
      this.#membership?.close();
      this.#fetcher.close();
      this.#metadata.close();
      this.#pool.close();
      this.#closed = true;
      this.#waker.signal();
    }
  }

  async #giveUpPartitions(m: Membership): Promise<void> {
    const owned = this.#subs.assignedPartitions();
    const valid = m.generation.generationId >= 0;
    if (valid)
      await this.#autoCommit
        .commitSync(null)
        .catch((err: Error) =>
          this.options.logger('warn', 'auto commit before leaving failed', { error: err.message }),
        );
    const l = this.#listener;
    if (owned.length > 0 && l !== null) {
      const fn = valid ? l.onPartitionsRevoked : (l.onPartitionsLost ?? l.onPartitionsRevoked);
      try {
        await fn?.call(l, owned);
      } catch (err) {
        this.options.logger('error', 'rebalance listener threw while leaving', {
          error: (err as Error).message,
        });
      }
    }
    this.#subs.setAssignment([]);
  }

  // ---- internals ----------------------------------------------------------------------------

  #hostParts(): HostParts {
    return {
      subs: this.#subs,
      metadata: this.#metadata,
      fetcher: this.#fetcher,
      autoCommit: this.#autoCommit,
      waker: this.#waker,
      listener: () => this.#listener,
      pollClock: () => ({ inPoll: this.#polling, lastPollAt: this.#lastPollAt }),
      metrics: this.#metrics,
    };
  }

  #requireGroup(): GroupOffsets {
    if (this.#offsets === null) throw new ConfigError('this operation needs a groupId');
    return this.#offsets;
  }

  /** Commits and lookups stay possible while close() runs the rebalance listener. */
  #ensureNotClosed(): void {
    if (this.#closed) throw new ClientClosedError('consumer is closed');
  }

  #ensureOpen(): void {
    if (this.#closing || this.#closed) throw new ClientClosedError('consumer is closed');
  }
}
