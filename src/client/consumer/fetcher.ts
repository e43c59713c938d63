// Fetches from each partition's leader and buffers the answers for poll().
//
// One Fetch request per broker at a time, inside an incremental fetch session per broker
// (KIP-227, `net/fetch-session-handler.ts`: after a full request only the partitions whose fetch
// position changed are sent, and the broker answers only the partitions with news); the
// `fetchSessions: false` option keeps every request a sessionless full fetch (SessionId 0, −1).
// Fetching runs in the background — a response triggers the next request, and every poll that
// hands out buffered records lets the event loop read the socket first — so the next data is
// on its way while the application works on the current batch; it is bounded by
// `maxBufferedBytes`: unconsumed bytes plus the MaxBytes of requests in flight never exceed it
// (except for the one batch per broker that KIP-74 lets the broker return above the limits).
// A partition is fetched again only while less than max.partition.fetch.bytes of its data waits,
// and from its fetch offset (ahead of the application's position), so buffered data is never
// fetched twice.
//
// Leader epochs (KIP-320): each partition is fetched from the leader its position was checked
// against, with that leader's epoch as CurrentLeaderEpoch; a partition whose leader changed waits
// for `position-validation.ts` first. FENCED_LEADER_EPOCH (our metadata is older than the broker)
// refreshes metadata; UNKNOWN_LEADER_EPOCH (the broker is behind) only backs off. LastFetchedEpoch
// (v12+) carries the epoch of the last fetched batch; a DivergingEpoch answer means the leader's
// log stops agreeing with what was fetched: below the position (records already returned) it is
// a truncation, handled as a validation answer; above it only buffered data is wrong, and the
// partition is fetched again from its position.

import { FetchSessionHandler, type SessionPartition } from '../../net/fetch-session-handler.js';
import { ErrorCode } from '../../protocol/errors.js';
import { type FetchResponse, fetchApi } from '../../protocol/messages/generated/fetch.js';
import { ZERO_UUID } from '../../protocol/primitives/reader.js';
import type { BrokerPool } from '../broker-pool.js';
import { KafkaResponseError, RecordTooLargeError } from '../errors.js';
import type { Metadata } from '../metadata.js';
import type { ConsumerMetrics } from '../metrics/consumer-metrics.js';
import { CompletedFetch, scanBatches } from './completed-fetch.js';
import type { Deserializer, ResolvedConsumerOptions } from './consumer-config.js';
import { LogTruncationError, OffsetOutOfRangeError } from './consumer-errors.js';
import { raiseMallocThresholds } from './frame-allocator.js';
import { completeValidation } from './position-validation.js';
import type { PartitionState, SubscriptionState } from './subscription-state.js';
import { type ConsumerRecord, tpKey } from './types.js';

/** Partition errors after which the leader may have moved: refresh metadata and retry. */
const LEADER_ERRORS = new Set<number>([
  ErrorCode.NOT_LEADER_OR_FOLLOWER,
  ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
  ErrorCode.LEADER_NOT_AVAILABLE,
  ErrorCode.REPLICA_NOT_AVAILABLE,
  ErrorCode.FENCED_LEADER_EPOCH,
  ErrorCode.KAFKA_STORAGE_ERROR,
  ErrorCode.OFFSET_NOT_AVAILABLE,
  ErrorCode.UNKNOWN_TOPIC_ID,
  ErrorCode.INCONSISTENT_TOPIC_ID,
  ErrorCode.FETCH_SESSION_TOPIC_ID_ERROR,
]);

/** Top-level answers that concern only the fetch session: reset it, no backoff. */
const SESSION_ERRORS = new Set<number>([
  ErrorCode.NONE,
  ErrorCode.FETCH_SESSION_ID_NOT_FOUND,
  ErrorCode.INVALID_FETCH_SESSION_EPOCH,
  ErrorCode.FETCH_SESSION_TOPIC_ID_ERROR,
]);

interface Sent {
  state: PartitionState;
  epoch: number;
  offset: bigint;
  /** The LastFetchedEpoch sent. */
  fetchEpoch: number;
}

export class Fetcher {
  readonly #pool: BrokerPool;
  readonly #metadata: Metadata;
  readonly #subs: SubscriptionState;
  readonly #opts: ResolvedConsumerOptions;
  readonly #notify: () => void;
  /** Fetched data in arrival order (per partition, in offset order). */
  #queue: CompletedFetch[] = [];
  #buffered = 0;
  #reserved = 0;
  readonly #inFlight = new Set<number>();
  /** The fetch session with each broker. */
  readonly #sessions = new Map<number, FetchSessionHandler>();
  #closingSessions = false;
  #errors: Error[] = [];
  #timer: NodeJS.Timeout | null = null;
  #closed = false;
  /** Counts Fetch requests sent (tests and metrics). */
  requests = 0;
  /** consumer.metrics(): fetch latency and size, records and bytes handed out. */
  metrics: ConsumerMetrics | null = null;

  constructor(
    pool: BrokerPool,
    metadata: Metadata,
    subs: SubscriptionState,
    opts: ResolvedConsumerOptions,
    notify: () => void,
  ) {
    this.#pool = pool;
    this.#metadata = metadata;
    this.#subs = subs;
    this.#opts = opts;
    this.#notify = notify;
    raiseMallocThresholds();
  }

  /** Bytes fetched but not yet consumed. */
  get bufferedBytes(): number {
    return this.#buffered;
  }

  /** True if poll() could return something (records or an error) without waiting. */
  hasReady(): boolean {
    if (this.#errors.length > 0) return true;
    for (const cf of this.#queue) if (!cf.state.paused) return true;
    return false;
  }

  /** Sends a Fetch to every leader that has fetchable partitions and no request in flight. */
  maybeFetch(): void {
    if (this.#closed || this.#closingSessions) return;
    const now = Date.now();
    const byNode = new Map<number, PartitionState[]>();
    let nextBackoff = Number.POSITIVE_INFINITY;
    for (const s of this.#subs.assigned()) {
      if (
        s.paused ||
        s.inFlight ||
        !s.hasValidPosition ||
        s.bufferedBytes >= this.#opts.maxPartitionFetchBytes
      )
        continue;
      if (s.backoffUntil > now) {
        nextBackoff = Math.min(nextBackoff, s.backoffUntil);
        continue;
      }
      const current = this.#metadata.leaderAndEpoch(s.topic, s.partition);
      if (current === undefined) {
        this.#metadata.requestUpdate();
        s.backoffUntil = now + this.#opts.retryBackoffMs;
        nextBackoff = Math.min(nextBackoff, s.backoffUntil);
        continue;
      }
      // A new leader: the position is checked first (poll() runs the validation).
      if (s.updateLeader(current)) {
        this.#notify();
        continue;
      }
      const leader = current.id;
      if (this.#inFlight.has(leader)) continue;
      let list = byNode.get(leader);
      if (list === undefined) {
        list = [];
        byNode.set(leader, list);
      }
      list.push(s);
    }
    let nodesLeft = byNode.size;
    for (const [node, parts] of byNode) {
      const available = this.#opts.maxBufferedBytes - this.#buffered - this.#reserved;
      // Skip tiny requests while the buffer is nearly full: wait for the application to drain it.
      if (
        available < Math.min(this.#opts.maxPartitionFetchBytes, this.#opts.maxBufferedBytes / 4) &&
        this.#buffered + this.#reserved > 0
      )
        break;
      // The room is shared by the brokers of this round: a first request reserving all of it
      // would leave none for the others, and the first leader — asked again each time its
      // (long-poll) answer comes back — would starve every other leader's partitions for good.
      const share = Math.floor(available / nodesLeft--);
      this.#send(node, parts, Math.max(1, Math.min(this.#opts.fetchMaxBytes, share)));
    }
    if (nextBackoff !== Number.POSITIVE_INFINITY) this.#arm(nextBackoff - now);
  }

  #arm(delay: number): void {
    if (this.#timer !== null) return;
    this.#timer = setTimeout(
      () => {
        this.#timer = null;
        this.maybeFetch();
      },
      Math.max(1, delay),
    );
    this.#timer.unref();
  }

  #send(node: number, parts: PartitionState[], maxBytes: number): void {
    const link = this.#pool.link(node);
    if (link === undefined) {
      this.#metadata.requestUpdate();
      return;
    }
    // Every partition of the request, sent on the wire or (unchanged) left in the broker's session.
    const sent = new Map<string, Sent>();
    const next: SessionPartition[] = [];
    const idToName = new Map<string, string>();
    let haveIds = true;
    const partMax = Math.min(this.#opts.maxPartitionFetchBytes, maxBytes);
    for (const s of parts) {
      const topicId = this.#metadata.topic(s.topic)?.topicId ?? ZERO_UUID;
      if (topicId === ZERO_UUID) haveIds = false;
      idToName.set(topicId, s.topic);
      next.push({
        topic: s.topic,
        topicId,
        partition: s.partition,
        currentLeaderEpoch: s.leader?.epoch ?? -1,
        fetchOffset: s.fetchOffset,
        lastFetchedEpoch: s.fetchEpoch,
        logStartOffset: -1n,
        partitionMaxBytes: partMax,
      });
      s.inFlight = true;
      sent.set(s.key, { state: s, epoch: s.epoch, offset: s.fetchOffset, fetchEpoch: s.fetchEpoch });
    }
    let session = this.#sessions.get(node);
    if (session === undefined) {
      session = new FetchSessionHandler({ enabled: this.#opts.fetchSessions });
      this.#sessions.set(node, session);
    }
    const handler = session;
    this.#inFlight.add(node);
    this.#reserved += maxBytes;
    this.requests++;
    const o = this.#opts;
    const started = this.metrics?.fetchStarted() ?? 0;
    link
      .request(
        fetchApi,
        (version) => {
          const parts = handler.build(next, version);
          return {
            clusterId: null,
            replicaId: -1,
            replicaState: { replicaId: -1, replicaEpoch: -1n },
            maxWaitMs: o.fetchMaxWaitMs,
            minBytes: o.fetchMinBytes,
            maxBytes,
            isolationLevel: o.isolationLevel,
            sessionId: parts.sessionId,
            sessionEpoch: parts.sessionEpoch,
            topics: parts.topics,
            forgottenTopicsData: parts.forgottenTopicsData,
            rackId: o.clientRack,
          };
        },
        // Topic ids exist from Fetch v13; without ids (old metadata) stay at v12.
        {
          minVersion: 4,
          maxVersion: haveIds ? undefined : 12,
          timeoutMs: o.requestTimeoutMs + o.fetchMaxWaitMs,
        },
      )
      .then(
        (res) => {
          this.metrics?.fetchDone(node, started, res);
          if (handler.handleResponse(res) === 'use') this.#onResponse(res, sent, idToName);
          else if (!SESSION_ERRORS.has(res.errorCode))
            this.#onFailure(new KafkaResponseError(res.errorCode, 'Fetch'), sent);
          // A session error (or an answer that does not fit the session): the next request is a
          // full one, at once; the topic-id mismatch also means our metadata may be stale.
          else if (res.errorCode === ErrorCode.FETCH_SESSION_TOPIC_ID_ERROR) this.#metadata.requestUpdate();
        },
        (err: unknown) => {
          handler.handleError();
          this.#onFailure(err, sent);
        },
      )
      .finally(() => {
        this.#inFlight.delete(node);
        this.#reserved -= maxBytes;
        for (const x of sent.values()) x.state.inFlight = false;
        if (!this.#closed) {
          this.maybeFetch();
          this.#notify();
        }
      });
  }

  #onFailure(err: unknown, sent: Map<string, Sent>): void {
    if (this.#closed) return;
    this.#opts.logger('debug', 'fetch failed', { error: err instanceof Error ? err.message : String(err) });
    this.#metadata.requestUpdate();
    const until = Date.now() + this.#opts.retryBackoffMs;
    for (const x of sent.values()) x.state.backoffUntil = until;
  }

  #onResponse(res: FetchResponse, sent: Map<string, Sent>, idToName: Map<string, string>): void {
    if (this.#closed) return;
    if (res.errorCode !== 0) {
      this.#onFailure(new KafkaResponseError(res.errorCode, 'Fetch'), sent);
      return;
    }
    const readCommitted = this.#opts.isolationLevel === 1;
    for (const t of res.responses) {
      const topic = t.topic !== '' ? t.topic : idToName.get(t.topicId);
      if (topic === undefined) continue;
      for (const p of t.partitions) {
        const x = sent.get(tpKey(topic, p.partitionIndex));
        // Dropped if the partition was revoked, seeked or reset while the request was out.
        if (x === undefined || x.epoch !== x.state.epoch || this.#subs.getByKey(x.state.key) !== x.state)
          continue;
        const s = x.state;
        if (p.errorCode === 0 && p.divergingEpoch.epoch >= 0 && p.divergingEpoch.endOffset >= 0n) {
          this.#diverged(s, x, p.divergingEpoch.epoch, p.divergingEpoch.endOffset);
        } else if (p.errorCode === 0) {
          if (p.highWatermark >= 0n) s.highWatermark = p.highWatermark;
          if (p.lastStableOffset >= 0n) s.lastStableOffset = p.lastStableOffset;
          if (p.logStartOffset >= 0n) s.logStartOffset = p.logStartOffset;
          const records = p.records;
          if (records === null || records.length === 0) continue;
          const scan = scanBatches(records);
          if (scan.nextOffset === null) {
            // Only a partial batch: the first batch is bigger than we asked for (pre-KIP-74 broker).
            this.#errors.push(
              new RecordTooLargeError(
                `${topic}-${p.partitionIndex} at offset ${x.offset} holds a batch larger than ${this.#opts.maxPartitionFetchBytes} bytes`,
              ),
            );
            s.backoffUntil = Number.POSITIVE_INFINITY;
            continue;
          }
          const cf = new CompletedFetch(
            s,
            x.epoch,
            x.offset,
            records,
            scan.end,
            p.abortedTransactions,
            readCommitted,
            this.#opts.checkCrcs,
          );
          this.#queue.push(cf);
          this.#buffered += scan.end;
          s.bufferedBytes += scan.end;
          if (scan.nextOffset > s.fetchOffset) {
            s.fetchOffset = scan.nextOffset;
            s.fetchEpoch = scan.lastEpoch;
          }
        } else if (p.errorCode === ErrorCode.OFFSET_OUT_OF_RANGE) {
          this.#outOfRange(s, x.offset);
        } else if (p.errorCode === ErrorCode.UNKNOWN_LEADER_EPOCH) {
          // The broker has not learned the epoch our metadata has: ask it again later.
          s.backoffUntil = Date.now() + this.#opts.retryBackoffMs;
        } else if (LEADER_ERRORS.has(p.errorCode)) {
          this.#metadata.requestUpdate();
          s.backoffUntil = Date.now() + this.#opts.retryBackoffMs;
        } else {
          this.#errors.push(new KafkaResponseError(p.errorCode, `Fetch ${topic}-${p.partitionIndex}`));
          s.backoffUntil = Date.now() + this.#opts.retryBackoffMs;
        }
      }
    }
  }

  /**
   * The leader's log ends epoch `epoch` at `endOffset`, before what we fetched. Below the
   * position (records already returned) it is a log truncation (the validation rule); otherwise
   * only data not yet returned is wrong: fetch again from the position, naming an epoch the
   * leader has.
   */
  #diverged(s: PartitionState, x: Sent, epoch: number, endOffset: bigint): void {
    if (s.position === null) return;
    this.#opts.logger('info', 'fetch found a diverging epoch', {
      topic: s.topic,
      partition: s.partition,
      fetchOffset: String(x.offset),
      lastFetchedEpoch: x.fetchEpoch,
      divergingEpoch: epoch,
      endOffset: String(endOffset),
    });
    if (endOffset >= s.position) {
      s.refetchFromPosition(Math.min(epoch, s.positionLeaderEpoch));
      return;
    }
    s.awaitingValidation = true;
    const found = completeValidation(s, { leaderEpoch: epoch, endOffset }, this.#opts.autoOffsetReset);
    if (found === null) return;
    // Stays awaiting validation (not fetched) until the application seeks; the validator asks
    // the leader again after request.timeout.ms and reports it again if nothing changed.
    s.validationRetryAt = Date.now() + this.#opts.requestTimeoutMs;
    s.refetchFromPosition(s.positionLeaderEpoch);
    this.#errors.push(new LogTruncationError([found]));
  }

  #outOfRange(s: PartitionState, offset: bigint): void {
    // Only if nothing newer is buffered for the partition (its data would be below the bad offset).
    if (s.position !== offset) return;
    if (this.#opts.autoOffsetReset === 'none') {
      this.#errors.push(new OffsetOutOfRangeError([{ topic: s.topic, partition: s.partition, offset }]));
      s.backoffUntil = Number.POSITIVE_INFINITY;
      return;
    }
    this.#opts.logger('info', 'fetch position out of range, resetting', {
      topic: s.topic,
      partition: s.partition,
      offset: String(offset),
      reset: this.#opts.autoOffsetReset,
    });
    s.requestReset(this.#opts.autoOffsetReset);
  }

  /**
   * Moves up to `max` records from the buffer into the result and advances positions.
   * Throws a pending partition error if nothing was collected; otherwise keeps it for next time.
   */
  async collect<K, V>(
    max: number,
    kd: Deserializer<K> | null,
    vd: Deserializer<V> | null,
  ): Promise<ConsumerRecord<K, V>[]> {
    // With a Fetch in flight, let the event loop read the socket before handing out buffered
    // records: a poll loop that always finds records ready runs on microtasks alone, so the
    // answer would wait in the socket until the buffer ran dry, and the next Fetch only left
    // then (one round trip after all the decoding instead of during it). One turn per poll is
    // what Java's poll() does with its network client.
    if (this.#inFlight.size > 0 && this.#queue.length > 0) await new Promise(setImmediate);
    const out: ConsumerRecord<K, V>[] = [];
    let bytes = 0;
    const blocked = new Set<string>();
    for (let i = 0; i < this.#queue.length && out.length < max; ) {
      const cf = this.#queue[i]!;
      const s = cf.state;
      if (this.#isStale(cf)) {
        this.#release(cf, cf.bytesLeft);
        cf.discard();
        this.#queue.splice(i, 1);
        continue;
      }
      if (s.paused || blocked.has(s.key)) {
        i++;
        continue;
      }
      const mark = out.length;
      const before = cf.bytesLeft;
      try {
        await cf.drain(out, max, kd, vd);
      } catch (err) {
        // Later data of this partition must wait behind the bad batch.
        blocked.add(s.key);
        this.#release(cf, before - cf.bytesLeft);
        if (out.length === 0) throw err;
        i++;
        continue;
      }
      this.#release(cf, before - cf.bytesLeft);
      bytes += before - cf.bytesLeft;
      if (this.#isStale(cf)) {
        out.length = mark; // seeked while we decoded: those records belong to the old position
        continue;
      }
      if (s.position === null || cf.nextFetchOffset > s.position) {
        s.position = cf.nextFetchOffset;
        // The epoch of the last batch passed, control batches included: a marker written by a
        // newer leader moves the position into that leader's epoch.
        if (cf.lastEpoch >= 0) s.positionLeaderEpoch = cf.lastEpoch;
      }
      if (cf.done) this.#queue.splice(i, 1);
      else i++;
    }
    if (out.length === 0 && this.#errors.length > 0) throw this.#errors.shift()!;
    if (out.length > 0) {
      this.metrics?.consumed(out.length, bytes);
      this.maybeFetch();
    }
    return out;
  }

  #isStale(cf: CompletedFetch): boolean {
    return cf.epoch !== cf.state.epoch || this.#subs.getByKey(cf.state.key) !== cf.state;
  }

  #release(cf: CompletedFetch, bytes: number): void {
    this.#buffered -= bytes;
    cf.state.bufferedBytes -= bytes;
  }

  /** Drops buffered data of partitions that are no longer assigned or were seeked. */
  purgeStale(): void {
    this.#queue = this.#queue.filter((cf) => {
      if (!this.#isStale(cf)) return true;
      this.#release(cf, cf.bytesLeft);
      cf.discard();
      return false;
    });
  }

  /**
   * Closes the fetch sessions on the brokers (FINAL_EPOCH, as Java's consumer does on close) so
   * they do not hold cache slots until evicted; best effort, bounded by `timeoutMs`. A broker
   * reads a connection's next request only once it has answered the previous one, so behind a
   * Fetch that still long-polls (up to fetch.max.wait.ms) the close would wait that long: there
   * it goes over the pool's second connection to that broker — a broker finds a session by its
   * id, whatever the connection — and the long poll is abandoned, not awaited.
   */
  async closeSessions(timeoutMs: number): Promise<void> {
    // No new fetch from here on: one sent after the close would open a new session.
    this.#closingSessions = true;
    const closing: Promise<unknown>[] = [];
    for (const [node, handler] of this.#sessions) {
      const shared = this.#pool.link(node);
      const parts = handler.closeRequest();
      if (shared === undefined || parts === null) continue;
      let link = shared;
      if (this.#inFlight.has(node)) {
        // The pool's second link to that broker (the one group requests use); closed with the pool.
        link = this.#pool.coordinatorLink({ nodeId: node, host: shared.host, port: shared.port, rack: null });
      }
      const body = {
        clusterId: null,
        replicaId: -1,
        replicaState: { replicaId: -1, replicaEpoch: -1n },
        maxWaitMs: 0,
        minBytes: 0,
        maxBytes: 0,
        isolationLevel: this.#opts.isolationLevel,
        sessionId: parts.sessionId,
        sessionEpoch: parts.sessionEpoch,
        topics: [],
        forgottenTopicsData: [],
        rackId: this.#opts.clientRack,
      };
      closing.push(link.request(fetchApi, body, { minVersion: 7, timeoutMs }).catch(() => {}));
    }
    // The request timeout starts once a request is written: the connect of the second link is
    // bounded here too.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(closing),
      new Promise((r) => {
        timer = setTimeout(r, timeoutMs);
      }),
    ]);
    clearTimeout(timer);
  }

  close(): void {
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    for (const cf of this.#queue) cf.discard();
    this.#queue = [];
    this.#buffered = 0;
  }
}
