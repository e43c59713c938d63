// consumer.metrics(): Kafka's `consumer-fetch-manager-metrics`, `consumer-coordinator-metrics`
// and `consumer-metrics` for our consumer.
//
// Fed once per Fetch response (latency, size), once per poll() (records and bytes handed to the
// application, time between polls), per OffsetCommit round trip and per installed assignment;
// nothing per record. Lag is not recorded at all: the snapshot computes it from each assigned
// partition's position and the high watermark of its last fetch response (the last stable offset
// with read_committed), so it is the lag now — Kafka's `records-lag`; `records-lag-max` here is
// the largest current lag over the assigned partitions rather than a windowed maximum.
import type { FetchResponse } from '../../protocol/messages/generated/fetch.js';
import type { PartitionState } from '../consumer/subscription-state.js';
import { monotonicMs, type NodeRequestMetrics, RequestLatency, SampledStat } from './client-metrics.js';

/** Lag of one assigned partition (Kafka's per-partition fetch-manager metrics). */
export interface PartitionLagMetrics {
  topic: string;
  partition: number;
  /** Next offset poll() returns; null until known. */
  position: bigint | null;
  /** High watermark (last stable offset with read_committed) of the last fetch; null before one. */
  'log-end': bigint | null;
  /** log-end − position in records; NaN until both are known. */
  'records-lag': number;
  /** position − log start offset; NaN until both are known. */
  'records-lead': number;
}

/** A snapshot of the consumer's metrics; names as in Kafka's Java consumer. */
export interface ConsumerMetricsSnapshot {
  /** Records returned by poll(), ever and per second over the window. */
  'records-consumed-total': number;
  'records-consumed-rate': number;
  /** Bytes of record batches passed to the application (as fetched, so compressed if so). */
  'bytes-consumed-total': number;
  'bytes-consumed-rate': number;
  'records-per-poll-avg': number;
  /** Fetch requests answered, and their latency in ms (a long poll waits up to fetch.max.wait.ms). */
  'fetch-total': number;
  'fetch-rate': number;
  'fetch-latency-avg': number;
  'fetch-latency-max': number;
  /** Record bytes per fetch response. */
  'fetch-size-avg': number;
  'fetch-size-max': number;
  'fetch-throttle-time-avg': number;
  /** The largest records-lag over the assigned partitions; NaN if none is known. */
  'records-lag-max': number;
  /** The sum of records-lag over the assigned partitions whose lag is known. */
  'records-lag-total': number;
  'commit-total': number;
  'commit-rate': number;
  'commit-latency-avg': number;
  'commit-latency-max': number;
  /** Assignments installed by the group (each completed rebalance). */
  'rebalance-total': number;
  /** Seconds since the last assignment was installed; NaN if none yet. */
  'last-rebalance-seconds-ago': number;
  /** Seconds since poll() was last called (or returned); NaN before the first poll. */
  'last-poll-seconds-ago': number;
  'time-between-poll-avg': number;
  'time-between-poll-max': number;
  'assigned-partitions': number;
  /** Bytes fetched and not yet returned by poll(). */
  'buffered-bytes': number;
  /** Per assigned partition. */
  partitions: PartitionLagMetrics[];
  /** Per broker, keyed `node-<id>`: Fetch request counts and latency. */
  nodes: Record<string, NodeRequestMetrics>;
}

/** What the snapshot reads from the consumer. */
export interface ConsumerMetricsView {
  assigned: readonly PartitionState[];
  readCommitted: boolean;
  bufferedBytes: number;
}

export class ConsumerMetrics {
  readonly #consumed = new SampledStat();
  readonly #bytes = new SampledStat();
  readonly #perPoll = new SampledStat();
  readonly #fetch = new RequestLatency();
  readonly #fetchSize = new SampledStat();
  readonly #fetchThrottle = new SampledStat();
  readonly #commit = new SampledStat();
  readonly #betweenPolls = new SampledStat();
  #rebalances = 0;
  #lastRebalanceAt = Number.NaN;
  #lastPollStart = Number.NaN;
  #lastPollAt = Number.NaN;

  /** poll() was entered. */
  pollStarted(now: number): void {
    if (!Number.isNaN(this.#lastPollStart)) this.#betweenPolls.record(now - this.#lastPollStart, now);
    this.#lastPollStart = now;
    this.#lastPollAt = now;
  }

  /** poll() returned (with or without records). */
  pollEnded(now: number): void {
    this.#lastPollAt = now;
  }

  /** `records` records (`bytes` bytes of batches) were returned to the application. */
  consumed(records: number, bytes: number): void {
    const now = Date.now();
    this.#consumed.recordMany(records, records, now);
    this.#bytes.recordMany(bytes, bytes, now);
    this.#perPoll.record(records, now);
  }

  fetchStarted(): number {
    return monotonicMs();
  }

  /** A Fetch response arrived (whatever its errors). */
  fetchDone(node: number, startedAt: number, res: FetchResponse): void {
    const now = Date.now();
    this.#fetch.record(node, monotonicMs() - startedAt, now);
    let bytes = 0;
    for (const t of res.responses) for (const p of t.partitions) bytes += p.records?.length ?? 0;
    this.#fetchSize.record(bytes, now);
    this.#fetchThrottle.record(res.throttleTimeMs, now);
  }

  commitStarted(): number {
    return monotonicMs();
  }

  /** An OffsetCommit round trip completed (the response arrived, whatever its partition codes). */
  commitDone(startedAt: number): void {
    this.#commit.record(monotonicMs() - startedAt, Date.now());
  }

  /** The group installed an assignment. */
  rebalanced(): void {
    this.#rebalances++;
    this.#lastRebalanceAt = Date.now();
  }

  snapshot(view: ConsumerMetricsView): ConsumerMetricsSnapshot {
    const now = Date.now();
    const partitions: PartitionLagMetrics[] = [];
    let lagMax = Number.NaN;
    let lagTotal = 0;
    for (const s of view.assigned) {
      const end = view.readCommitted ? s.lastStableOffset : s.highWatermark;
      const logEnd = end >= 0n ? end : null;
      const pos = s.position;
      const lag = logEnd !== null && pos !== null ? Number(logEnd - pos) : Number.NaN;
      const lead = pos !== null && s.logStartOffset >= 0n ? Number(pos - s.logStartOffset) : Number.NaN;
      if (!Number.isNaN(lag)) {
        if (!(lag <= lagMax)) lagMax = lag;
        lagTotal += lag;
      }
      partitions.push({
        topic: s.topic,
        partition: s.partition,
        position: pos,
        'log-end': logEnd,
        'records-lag': lag,
        'records-lead': lead,
      });
    }
    const fetch = this.#fetch.all;
    return {
      'records-consumed-total': this.#consumed.total,
      'records-consumed-rate': this.#consumed.rate(now),
      'bytes-consumed-total': this.#bytes.total,
      'bytes-consumed-rate': this.#bytes.rate(now),
      'records-per-poll-avg': this.#perPoll.avg(now),
      'fetch-total': fetch.totalCount,
      'fetch-rate': fetch.countRate(now),
      'fetch-latency-avg': fetch.avg(now),
      'fetch-latency-max': fetch.max(now),
      'fetch-size-avg': this.#fetchSize.avg(now),
      'fetch-size-max': this.#fetchSize.max(now),
      'fetch-throttle-time-avg': this.#fetchThrottle.avg(now),
      'records-lag-max': lagMax,
      'records-lag-total': lagTotal,
      'commit-total': this.#commit.totalCount,
      'commit-rate': this.#commit.countRate(now),
      'commit-latency-avg': this.#commit.avg(now),
      'commit-latency-max': this.#commit.max(now),
      'rebalance-total': this.#rebalances,
      'last-rebalance-seconds-ago': (now - this.#lastRebalanceAt) / 1000,
      'last-poll-seconds-ago': (now - this.#lastPollAt) / 1000,
      'time-between-poll-avg': this.#betweenPolls.avg(now),
      'time-between-poll-max': this.#betweenPolls.max(now),
      'assigned-partitions': view.assigned.length,
      'buffered-bytes': view.bufferedBytes,
      partitions,
      nodes: this.#fetch.nodes(now),
    };
  }
}
