// Kafka's BrokerTopicMetrics (MessagesInPerSec, BytesInPerSec, BytesOutPerSec, the Total/Failed
// Produce/Fetch request rates, replication bytes), per topic and for all topics. Plain number
// fields bumped on the produce and fetch paths and read only when /metrics is scraped: a
// prom-client labelled `inc()` re-hashes its labels on every call and costs ~50x a field
// increment.

import { ErrorCode } from '../../protocol/errors.js';
import type { AppendResult } from '../../storage/index.js';

export class TopicCounters {
  messagesIn = 0;
  bytesIn = 0;
  bytesOut = 0;
  /** Partitions of Produce requests for a known topic, and those whose append failed. */
  totalProduceRequests = 0;
  failedProduceRequests = 0;
  /** Partitions read by Fetch requests (consumers and followers), and those that failed. */
  totalFetchRequests = 0;
  failedFetchRequests = 0;
}

/**
 * Errors that are the client's or the cluster's state rather than a failure of this broker, so
 * not counted as failed (Kafka's ReplicaManager.appendToLocalLog; INVALID_TOPIC_EXCEPTION is its
 * refusal of an internal topic, checked before its count).
 */
const PRODUCE_NOT_FAILED = new Set<number>([
  ErrorCode.NONE,
  ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
  ErrorCode.NOT_LEADER_OR_FOLLOWER,
  ErrorCode.MESSAGE_TOO_LARGE,
  ErrorCode.RECORD_LIST_TOO_LARGE,
  ErrorCode.CORRUPT_MESSAGE,
  ErrorCode.KAFKA_STORAGE_ERROR,
  ErrorCode.UNKNOWN_TOPIC_ID,
  ErrorCode.INVALID_TOPIC_EXCEPTION,
]);

/** The same for reads (Kafka's ReplicaManager.readFromLocalLog). */
const FETCH_NOT_FAILED = new Set<number>([
  ErrorCode.NONE,
  ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
  ErrorCode.NOT_LEADER_OR_FOLLOWER,
  ErrorCode.UNKNOWN_LEADER_EPOCH,
  ErrorCode.FENCED_LEADER_EPOCH,
  ErrorCode.REPLICA_NOT_AVAILABLE,
  ErrorCode.KAFKA_STORAGE_ERROR,
  ErrorCode.OFFSET_OUT_OF_RANGE,
  ErrorCode.INCONSISTENT_TOPIC_ID,
  ErrorCode.UNKNOWN_TOPIC_ID,
]);

export class BrokerTopicStats {
  readonly all = new TopicCounters();
  /** Record bytes appended as follower / read by followers here (all topics only, as Kafka). */
  replicationBytesIn = 0;
  replicationBytesOut = 0;
  readonly #byTopic = new Map<string, TopicCounters>();
  // The last topic asked for. A topic name decoded from a request is a new string each time, so
  // a map lookup hashes it again; comparing it with the last name is cheaper, and producers and
  // consumers mostly send runs of requests for the same topics.
  #lastName = '';
  #last: TopicCounters | null = null;

  topic(name: string): TopicCounters {
    if (name === this.#lastName && this.#last !== null) return this.#last;
    let c = this.#byTopic.get(name);
    if (c === undefined) {
      c = new TopicCounters();
      this.#byTopic.set(name, c);
    }
    this.#lastName = name;
    this.#last = c;
    return c;
  }

  /** A leader append of `bytes` wire bytes; an idempotent re-send appends nothing (Kafka's count). */
  appended(topic: string, bytes: number, r: AppendResult): void {
    if (r.duplicate === true) return;
    // Number before subtracting: a bigint difference would be a heap allocation per append.
    const records = Number(r.lastOffset) - Number(r.baseOffset) + 1;
    const t = this.topic(topic);
    t.messagesIn += records;
    t.bytesIn += bytes;
    this.all.messagesIn += records;
    this.all.bytesIn += bytes;
  }

  /** A partition of a Produce request about to be appended (TotalProduceRequestsPerSec). */
  produceAttempted(topic: string): void {
    this.topic(topic).totalProduceRequests++;
    this.all.totalProduceRequests++;
  }

  /** Its append failed with `code` (FailedProduceRequestsPerSec, for the codes that count). */
  produceFailed(topic: string, code: number): void {
    if (PRODUCE_NOT_FAILED.has(code)) return;
    this.topic(topic).failedProduceRequests++;
    this.all.failedProduceRequests++;
  }

  /**
   * The partitions one Fetch read (consumer or follower; a session's unchanged ones included),
   * before the answer is down-converted: TotalFetchRequests and FailedFetchRequests. Topics for
   * which `counted` is false (unknown) and unauthorized reads are left out, as Kafka filters them
   * before its count.
   */
  fetchReads(
    responses: readonly { topic: string; partitions: readonly { errorCode: number }[] }[],
    counted: (topic: string) => boolean,
  ): void {
    for (const t of responses) {
      let reads = 0;
      let failed = 0;
      for (const p of t.partitions) {
        if (p.errorCode === ErrorCode.TOPIC_AUTHORIZATION_FAILED) continue;
        reads++;
        if (!FETCH_NOT_FAILED.has(p.errorCode)) failed++;
      }
      if (reads === 0 || !counted(t.topic)) continue;
      const c = this.topic(t.topic);
      c.totalFetchRequests += reads;
      c.failedFetchRequests += failed;
      this.all.totalFetchRequests += reads;
      this.all.failedFetchRequests += failed;
    }
  }

  /** A follower append of `bytes` record bytes fetched from its leader. */
  replicatedIn(bytes: number): void {
    this.replicationBytesIn += bytes;
  }

  /**
   * Record bytes of a Fetch answer: a consumer's are BytesOut per topic, a follower's are
   * replication traffic (ReplicationBytesOut), as Kafka splits them.
   */
  fetched(
    responses: readonly { topic: string; partitions: readonly { records: Buffer | null }[] }[],
    follower: boolean,
  ): void {
    for (const t of responses) {
      let bytes = 0;
      for (const p of t.partitions) bytes += p.records?.length ?? 0;
      if (bytes === 0) continue;
      if (follower) {
        this.replicationBytesOut += bytes;
        continue;
      }
      this.topic(t.topic).bytesOut += bytes;
      this.all.bytesOut += bytes;
    }
  }

  /** Topics with counters; `keep` drops the others (Kafka removes a deleted topic's metrics). */
  topics(keep: (topic: string) => boolean): [string, TopicCounters][] {
    for (const name of this.#byTopic.keys())
      if (!keep(name)) {
        this.#byTopic.delete(name);
        if (name === this.#lastName) this.#last = null;
      }
    return [...this.#byTopic];
  }
}
