// The consumer's lookups that need no group: offsets for timestamps, beginning/end offsets
// (ListOffsets, answered in the order asked) and a topic's partitions. Each waits through the
// consumer's Waker, so wakeup() interrupts them as it interrupts poll().
import type { BrokerPool } from '../broker-pool.js';
import { ConfigError, RequestTimeoutError } from '../errors.js';
import type { Metadata } from '../metadata.js';
import type { ResolvedConsumerOptions } from './consumer-config.js';
import { listOffsetsInOrder } from './offset-lookup.js';
import type { OffsetAndTimestamp, TopicPartition } from './types.js';
import type { Waker } from './waker.js';

export class OffsetQueries {
  constructor(
    private readonly pool: BrokerPool,
    private readonly metadata: Metadata,
    private readonly waker: Waker,
    private readonly options: ResolvedConsumerOptions,
  ) {}

  /** For each partition, the earliest offset whose timestamp is ≥ the given time (null if none). */
  async offsetsForTimes(
    query: readonly (TopicPartition & { timestamp: number })[],
    timeoutMs?: number,
  ): Promise<(OffsetAndTimestamp | null)[]> {
    if (query.some((q) => q.timestamp < 0))
      throw new ConfigError('offsetsForTimes timestamps must not be negative');
    return this.waker.wakeable(
      listOffsetsInOrder(
        this.pool,
        this.metadata,
        query.map((q) => ({ topic: q.topic, partition: q.partition, timestamp: BigInt(q.timestamp) })),
        this.options.isolationLevel,
        timeoutMs ?? this.options.defaultApiTimeoutMs,
      ),
    );
  }

  /** The offsets at EARLIEST_TIMESTAMP or LATEST_TIMESTAMP (`ts`), -1 where none was found. */
  async edgeOffsets(
    partitions: readonly TopicPartition[],
    ts: bigint,
    timeoutMs?: number,
  ): Promise<bigint[]> {
    const res = await this.waker.wakeable(
      listOffsetsInOrder(
        this.pool,
        this.metadata,
        partitions.map((p) => ({ topic: p.topic, partition: p.partition, timestamp: ts })),
        this.options.isolationLevel,
        timeoutMs ?? this.options.defaultApiTimeoutMs,
      ),
    );
    return res.map((r) => r?.offset ?? -1n);
  }

  /** The topic's partitions and their leaders (waits for metadata; auto-creates if allowed). */
  async partitionsFor(
    topic: string,
    timeoutMs?: number,
  ): Promise<{ topic: string; partition: number; leader: number }[]> {
    const t = await this.waker.wakeable(
      this.metadata.waitForTopic(topic, Date.now() + (timeoutMs ?? this.options.defaultApiTimeoutMs)),
    );
    if (t === null) throw new RequestTimeoutError(`no metadata for topic ${topic} within the timeout`);
    return t.partitions.map((p) => ({ topic, partition: p.partition, leader: p.leader }));
  }
}
