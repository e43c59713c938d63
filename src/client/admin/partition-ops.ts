// Per-partition operations sent to each partition's leader: ListOffsets (earliest, latest,
// max-timestamp or by timestamp) and DeleteRecords (move the log start offset forward).
import { ErrorCode } from '../../protocol/errors.js';
import { deleteRecordsApi } from '../../protocol/messages/generated/delete-records.js';
import { listOffsetsApi } from '../../protocol/messages/generated/list-offsets.js';
import { KafkaResponseError } from '../errors.js';
import { type AdminContext, byTopic, RetryableStep, type TopicPartition } from './context.js';

/** 'earliest' (-2), 'latest' (-1), 'max-timestamp' (-3, ListOffsets v7+) or a timestamp in ms. */
export type OffsetSpec = 'earliest' | 'latest' | 'max-timestamp' | { timestamp: number };

export interface OffsetQuery extends TopicPartition {
  spec: OffsetSpec;
}

export interface ListedOffset extends TopicPartition {
  /** -1n when no record matches a timestamp query. */
  offset: bigint;
  timestamp: bigint;
  leaderEpoch: number;
}

const LEADER_MOVED = new Set<number>([
  ErrorCode.NOT_LEADER_OR_FOLLOWER,
  ErrorCode.LEADER_NOT_AVAILABLE,
  ErrorCode.FENCED_LEADER_EPOCH,
  ErrorCode.UNKNOWN_LEADER_EPOCH,
  ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
  ErrorCode.OFFSET_NOT_AVAILABLE,
]);

function specTimestamp(s: OffsetSpec): bigint {
  if (s === 'earliest') return -2n;
  if (s === 'latest') return -1n;
  if (s === 'max-timestamp') return -3n;
  return BigInt(s.timestamp);
}

export async function listOffsets(
  ctx: AdminContext,
  queries: readonly OffsetQuery[],
  o: { isolationLevel?: 'read_uncommitted' | 'read_committed' } = {},
): Promise<ListedOffset[]> {
  const isolation = o.isolationLevel === 'read_committed' ? 1 : 0;
  return ctx.retry(async () => {
    const groups = await ctx.byLeader(queries);
    const results = await Promise.all(
      [...groups].map(async ([leader, items]) => {
        const res = await ctx.link(leader).request(
          listOffsetsApi,
          {
            replicaId: -1,
            isolationLevel: isolation,
            topics: [...byTopic(items)].map(([name, ps]) => ({
              name,
              partitions: ps.map((p) => ({
                partitionIndex: p.partition,
                currentLeaderEpoch: -1,
                timestamp: specTimestamp(p.spec),
                maxNumOffsets: 1,
              })),
            })),
            timeoutMs: ctx.options.requestTimeoutMs,
          },
          // v1 is the oldest Kafka 4 accepts; max-timestamp needs v7.
          { minVersion: items.some((i) => i.spec === 'max-timestamp') ? 7 : 1 },
        );
        const out: ListedOffset[] = [];
        for (const t of res.topics) {
          for (const p of t.partitions) {
            const what = `list offsets of ${t.name}-${p.partitionIndex}`;
            if (LEADER_MOVED.has(p.errorCode))
              throw new RetryableStep(new KafkaResponseError(p.errorCode, what));
            if (p.errorCode !== 0) throw new KafkaResponseError(p.errorCode, what);
            out.push({
              topic: t.name,
              partition: p.partitionIndex,
              offset: p.offset,
              timestamp: p.timestamp,
              leaderEpoch: p.leaderEpoch,
            });
          }
        }
        return out;
      }),
    );
    return results.flat();
  });
}

export interface ReplicaQuery extends TopicPartition {
  /** The brokers holding a replica (the partition's replicas from describeTopics). */
  replicas: readonly number[];
}

export interface ReplicaLogEnd extends TopicPartition {
  broker: number;
  /** That replica's own log end offset; null when its broker did not answer or has no replica. */
  logEndOffset: bigint | null;
}

/** Kafka's DEBUGGING_REPLICA_ID: ListOffsets answered by any replica, up to its own log end. */
const DEBUGGING_REPLICA_ID = -2;

/**
 * The log end offset of every replica, asked of each replica's broker with ListOffsets
 * (latest, replica id -2) — what a console needs to show followers catching up. One request
 * per broker; a broker that fails leaves nulls instead of failing the whole answer.
 */
export async function replicaLogEndOffsets(
  ctx: AdminContext,
  queries: readonly ReplicaQuery[],
): Promise<ReplicaLogEnd[]> {
  const byBroker = new Map<number, TopicPartition[]>();
  for (const q of queries)
    for (const b of q.replicas) {
      let l = byBroker.get(b);
      if (l === undefined) byBroker.set(b, (l = []));
      l.push({ topic: q.topic, partition: q.partition });
    }
  const answers = await Promise.all(
    [...byBroker].map(async ([broker, items]): Promise<ReplicaLogEnd[]> => {
      const found = new Map<string, bigint>();
      try {
        const res = await ctx.link(broker).request(
          listOffsetsApi,
          {
            replicaId: DEBUGGING_REPLICA_ID,
            isolationLevel: 0,
            topics: [...byTopic(items)].map(([name, ps]) => ({
              name,
              partitions: ps.map((p) => ({
                partitionIndex: p.partition,
                currentLeaderEpoch: -1,
                timestamp: -1n,
                maxNumOffsets: 1,
              })),
            })),
            timeoutMs: ctx.options.requestTimeoutMs,
          },
          { minVersion: 1 },
        );
        for (const t of res.topics)
          for (const p of t.partitions)
            if (p.errorCode === 0) found.set(`${t.name}\u0000${p.partitionIndex}`, p.offset);
      } catch {
        // that broker is down or unknown: its replicas stay null
      }
      return items.map((i) => ({
        ...i,
        broker,
        logEndOffset: found.get(`${i.topic}\u0000${i.partition}`) ?? null,
      }));
    }),
  );
  return answers.flat();
}

export interface DeleteRecordsTarget extends TopicPartition {
  /** Delete every record before this offset (-1n = up to the high watermark). */
  offset: bigint;
}

export async function deleteRecords(
  ctx: AdminContext,
  targets: readonly DeleteRecordsTarget[],
  o: { timeoutMs?: number } = {},
): Promise<(TopicPartition & { lowWatermark: bigint })[]> {
  const timeoutMs = o.timeoutMs ?? ctx.options.requestTimeoutMs;
  return ctx.retry(async () => {
    const groups = await ctx.byLeader(targets);
    const results = await Promise.all(
      [...groups].map(async ([leader, items]) => {
        const res = await ctx.link(leader).request(deleteRecordsApi, {
          topics: [...byTopic(items)].map(([name, ps]) => ({
            name,
            partitions: ps.map((p) => ({ partitionIndex: p.partition, offset: p.offset })),
          })),
          timeoutMs,
        });
        const out: (TopicPartition & { lowWatermark: bigint })[] = [];
        for (const t of res.topics) {
          for (const p of t.partitions) {
            const what = `delete records of ${t.name}-${p.partitionIndex}`;
            if (LEADER_MOVED.has(p.errorCode))
              throw new RetryableStep(new KafkaResponseError(p.errorCode, what));
            if (p.errorCode !== 0) throw new KafkaResponseError(p.errorCode, what);
            out.push({ topic: t.name, partition: p.partitionIndex, lowWatermark: p.lowWatermark });
          }
        }
        return out;
      }),
    );
    return results.flat();
  }, timeoutMs + ctx.options.requestTimeoutMs);
}
