// Public value types of the consumer: partitions, records, committed offsets, the rebalance
// listener. Offsets are bigint (Kafka's int64) so that no offset is ever rounded; timestamps are
// milliseconds as numbers (they fit a double exactly for the next 285,000 years).
import type { RecordHeader } from '../../protocol/record-batch/index.js';

export type { RecordHeader };

export interface TopicPartition {
  topic: string;
  partition: number;
}

export type TimestampType = 'CreateTime' | 'LogAppendTime';

export interface ConsumerRecord<K = Buffer | null, V = Buffer | null> {
  topic: string;
  partition: number;
  offset: bigint;
  /** Milliseconds since the epoch. */
  timestamp: number;
  timestampType: TimestampType;
  key: K;
  value: V;
  /** Shared and frozen when the record has none. */
  headers: readonly RecordHeader[];
  /** Leader epoch of the batch, −1 for legacy (magic 0/1) messages. */
  leaderEpoch: number;
}

export interface OffsetAndMetadata {
  offset: bigint;
  metadata?: string | null;
  /** Leader epoch of the last consumed record, −1 if unknown. */
  leaderEpoch?: number;
}

export interface TopicPartitionOffset extends TopicPartition, OffsetAndMetadata {}

export interface OffsetAndTimestamp {
  offset: bigint;
  timestamp: number;
  leaderEpoch: number;
}

/**
 * Called from inside `poll()` (and `close()`), never concurrently with it, so the application
 * may commit or seek from here. Cooperative rebalancing passes only the partitions that change.
 */
export interface RebalanceListener {
  /** Partitions are about to be taken away: commit what was processed. */
  onPartitionsRevoked?(partitions: TopicPartition[]): void | Promise<void>;
  /** Partitions were added: the application may seek to externally stored offsets. */
  onPartitionsAssigned?(partitions: TopicPartition[]): void | Promise<void>;
  /**
   * Partitions were lost without a chance to commit (the member was fenced out of the group).
   * Defaults to `onPartitionsRevoked`, as in Kafka.
   */
  onPartitionsLost?(partitions: TopicPartition[]): void | Promise<void>;
}

export function tpKey(topic: string, partition: number): string {
  return `${topic}\u0000${partition}`;
}

/** Groups partitions by topic, partitions ascending, topics in first-seen order. */
export function groupByTopic(tps: Iterable<TopicPartition>): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const tp of tps) {
    let list = out.get(tp.topic);
    if (list === undefined) {
      list = [];
      out.set(tp.topic, list);
    }
    list.push(tp.partition);
  }
  for (const list of out.values()) list.sort((a, b) => a - b);
  return out;
}

export function compareTp(a: TopicPartition, b: TopicPartition): number {
  return a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition;
}
