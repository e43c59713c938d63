// Shared plumbing of the admin client: the broker pool, metadata, coordinator lookup, and a
// retry loop for requests whose failure is retriable (connection loss, NOT_CONTROLLER,
// NOT_COORDINATOR, leader moves) bounded by the request timeout.
import { backoffMs } from '../../net/backoff.js';
import type { BrokerLink } from '../../net/broker-link.js';
import type { BrokerPool } from '../broker-pool.js';
import type { ResolvedClientOptions } from '../config.js';
import { COORDINATOR_GROUP, COORDINATOR_MOVED, type Coordinators } from '../coordinator.js';
import { KafkaClientError, KafkaResponseError } from '../errors.js';
import type { Metadata } from '../metadata.js';

export interface TopicPartition {
  topic: string;
  partition: number;
}

/** Raised by a step that wants the whole operation retried (after a metadata refresh). */
export class RetryableStep extends KafkaClientError {
  constructor(err: KafkaResponseError) {
    super(err.code, err.message, true, { cause: err });
  }
}

export class AdminContext {
  readonly pool: BrokerPool;
  readonly metadata: Metadata;
  readonly coordinators: Coordinators;
  readonly options: ResolvedClientOptions;

  constructor(pool: BrokerPool, metadata: Metadata, coordinators: Coordinators) {
    this.pool = pool;
    this.metadata = metadata;
    this.coordinators = coordinators;
    this.options = pool.options;
  }

  /** Runs `fn` until it succeeds, fails with a non-retriable error, or the timeout passes. */
  async retry<T>(fn: () => Promise<T>, timeoutMs = this.options.requestTimeoutMs): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (let attempt = 0; ; attempt++) {
      try {
        return await fn();
      } catch (err) {
        // A KafkaResponseError thrown as such is final (e.g. UNKNOWN_TOPIC_OR_PARTITION for a
        // topic that does not exist); steps mark what is worth retrying with RetryableStep.
        if (!(err instanceof KafkaClientError) || !err.retriable || err instanceof KafkaResponseError)
          throw err;
        const wait = backoffMs(this.options.retryBackoffMs, this.options.retryBackoffMaxMs, attempt);
        if (Date.now() + wait > deadline) throw err instanceof RetryableStep ? err.cause : err;
        await new Promise((r) => setTimeout(r, wait));
        await this.metadata.refresh().catch(() => {});
      }
    }
  }

  /** The controller (from metadata) for topic/partition creation and deletion, else any broker. */
  async controller(): Promise<BrokerLink> {
    if (this.metadata.controllerId < 0 || this.metadata.lastRefresh === 0) await this.metadata.refresh();
    const id = this.metadata.controllerId;
    return (id >= 0 ? this.pool.link(id) : undefined) ?? (await this.pool.any());
  }

  async groupCoordinator(groupId: string): Promise<BrokerLink> {
    return this.coordinators.find(COORDINATOR_GROUP, groupId, this.options.requestTimeoutMs);
  }

  /** Throws a retriable step for a coordinator error (after invalidating the cache), else the error. */
  checkGroupError(groupId: string, code: number, what: string): void {
    if (code === 0) return;
    const err = new KafkaResponseError(code, `${what} (group ${groupId})`);
    if (COORDINATOR_MOVED.has(code)) {
      this.coordinators.invalidate(COORDINATOR_GROUP, groupId);
      throw new RetryableStep(err);
    }
    if (err.retriable) throw new RetryableStep(err);
    throw err;
  }

  /** Groups partitions by current leader, refreshing metadata for their topics first. */
  async byLeader<T extends TopicPartition>(items: readonly T[]): Promise<Map<number, T[]>> {
    const topics = [...new Set(items.map((i) => i.topic))];
    if (this.metadata.track(...topics) || topics.some((t) => this.metadata.topic(t) === undefined)) {
      await this.metadata.refresh();
    }
    const out = new Map<number, T[]>();
    for (const it of items) {
      const t = this.metadata.topic(it.topic);
      if (t === undefined) {
        const code = this.metadata.topicError(it.topic) ?? 3;
        throw new KafkaResponseError(code, `topic ${it.topic}`);
      }
      const leader = this.metadata.leaderFor(it.topic, it.partition);
      if (it.partition >= t.partitions.length || it.partition < 0) {
        throw new KafkaResponseError(3, `partition ${it.topic}-${it.partition}`);
      }
      if (leader === undefined)
        throw new RetryableStep(new KafkaResponseError(5, `partition ${it.topic}-${it.partition}`));
      let l = out.get(leader);
      if (l === undefined) {
        l = [];
        out.set(leader, l);
      }
      l.push(it);
    }
    return out;
  }

  link(nodeId: number): BrokerLink {
    const l = this.pool.link(nodeId);
    if (l === undefined) throw new RetryableStep(new KafkaResponseError(8, `broker ${nodeId} unknown`));
    return l;
  }
}

/** Groups items into topic → list, preserving order. */
export function byTopic<T extends { topic: string }>(items: readonly T[]): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const i of items) {
    let l = m.get(i.topic);
    if (l === undefined) {
      l = [];
      m.set(i.topic, l);
    }
    l.push(i);
  }
  return m;
}
