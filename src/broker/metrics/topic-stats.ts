// Kafka's BrokerTopicMetrics (MessagesInPerSec, BytesInPerSec, BytesOutPerSec), per topic and
// for all topics. Plain number fields bumped on the produce and fetch paths and read only when
// /metrics is scraped: a prom-client labelled `inc()` re-hashes its labels on every call and
// costs ~50x a field increment.

import type { AppendResult } from '../../storage/index.js';

export class TopicCounters {
  messagesIn = 0;
  bytesIn = 0;
  bytesOut = 0;
}

export class BrokerTopicStats {
  readonly all = new TopicCounters();
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

  /** Record bytes of a consumer Fetch answer (followers count as replication, as in Kafka). */
  fetched(responses: readonly { topic: string; partitions: readonly { records: Buffer | null }[] }[]): void {
    for (const t of responses) {
      let bytes = 0;
      for (const p of t.partitions) bytes += p.records?.length ?? 0;
      if (bytes === 0) continue;
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
