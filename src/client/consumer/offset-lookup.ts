// ListOffsets for the consumer: earliest/latest offsets (resets, seekToBeginning/End, lag) and
// offsets for timestamps. Each partition is asked of its leader; leader moves and other retriable
// errors refresh metadata and retry until the deadline. With read_committed, "latest" is the
// last stable offset, as in Kafka.
import { backoffMs } from '../../net/backoff.js';
import { ErrorCode } from '../../protocol/errors.js';
import { listOffsetsApi } from '../../protocol/messages/generated/list-offsets.js';
import type { BrokerPool } from '../broker-pool.js';
import { KafkaClientError, KafkaResponseError, RequestTimeoutError } from '../errors.js';
import type { Metadata } from '../metadata.js';
import { type TopicPartition, tpKey } from './types.js';

export const EARLIEST_TIMESTAMP = -2n;
export const LATEST_TIMESTAMP = -1n;

export interface ListedOffset {
  offset: bigint;
  timestamp: number;
  leaderEpoch: number;
}

export interface OffsetQuery extends TopicPartition {
  /** Milliseconds, or EARLIEST_TIMESTAMP / LATEST_TIMESTAMP. */
  timestamp: bigint;
}

/** Resolves to the listed offset per partition key; null when no record has a timestamp that late. */
export async function listOffsets(
  pool: BrokerPool,
  metadata: Metadata,
  queries: readonly OffsetQuery[],
  isolationLevel: number,
  timeoutMs: number,
): Promise<Map<string, ListedOffset | null>> {
  const deadline = Date.now() + timeoutMs;
  const out = new Map<string, ListedOffset | null>();
  let pending = [...queries];
  for (let attempt = 0; pending.length > 0; attempt++) {
    for (const t of new Set(pending.map((q) => q.topic))) {
      if (metadata.topic(t) === undefined) await metadata.waitForTopic(t, deadline);
    }
    const byLeader = new Map<number, OffsetQuery[]>();
    const retry: OffsetQuery[] = [];
    for (const q of pending) {
      const leader = metadata.leaderFor(q.topic, q.partition);
      if (leader === undefined) {
        retry.push(q);
        continue;
      }
      let list = byLeader.get(leader);
      if (list === undefined) {
        list = [];
        byLeader.set(leader, list);
      }
      list.push(q);
    }
    let lastError: Error | null = null;
    await Promise.all(
      [...byLeader].map(async ([leader, list]) => {
        try {
          const res = await askLeader(pool, metadata, leader, list, isolationLevel);
          for (const q of list) {
            const r = res.get(tpKey(q.topic, q.partition));
            if (r === undefined || r.errorCode !== 0) {
              const code = r?.errorCode ?? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
              const err = new KafkaResponseError(code, `ListOffsets ${q.topic}-${q.partition}`);
              if (!err.retriable) throw err;
              lastError = err;
              retry.push(q);
            } else {
              out.set(
                tpKey(q.topic, q.partition),
                r.offset < 0n
                  ? null
                  : { offset: r.offset, timestamp: Number(r.timestamp), leaderEpoch: r.leaderEpoch },
              );
            }
          }
        } catch (err) {
          if (!(err instanceof KafkaClientError) || !err.retriable) throw err;
          lastError = err;
          retry.push(...list);
        }
      }),
    );
    pending = retry;
    if (pending.length === 0) break;
    metadata.requestUpdate();
    const wait = backoffMs(pool.options.retryBackoffMs, pool.options.retryBackoffMaxMs, attempt);
    if (Date.now() + wait > deadline) {
      throw new RequestTimeoutError(
        `offsets of ${pending.map((q) => `${q.topic}-${q.partition}`).join(', ')} not listed within ${timeoutMs} ms` +
          (lastError ? ` (last error: ${(lastError as Error).message})` : ''),
      );
    }
    await new Promise((r) => setTimeout(r, wait));
  }
  return out;
}

interface PartitionAnswer {
  errorCode: number;
  offset: bigint;
  timestamp: bigint;
  leaderEpoch: number;
}

async function askLeader(
  pool: BrokerPool,
  metadata: Metadata,
  leader: number,
  list: OffsetQuery[],
  isolationLevel: number,
): Promise<Map<string, PartitionAnswer>> {
  const link = pool.link(leader);
  if (link === undefined)
    throw new KafkaResponseError(ErrorCode.LEADER_NOT_AVAILABLE, `ListOffsets: broker ${leader} unknown`);
  const topics = new Map<
    string,
    {
      name: string;
      partitions: {
        partitionIndex: number;
        currentLeaderEpoch: number;
        timestamp: bigint;
        maxNumOffsets: number;
      }[];
    }
  >();
  for (const q of list) {
    let t = topics.get(q.topic);
    if (t === undefined) {
      t = { name: q.topic, partitions: [] };
      topics.set(q.topic, t);
    }
    t.partitions.push({
      partitionIndex: q.partition,
      // Fences a leader our metadata knows is gone (FENCED/UNKNOWN_LEADER_EPOCH are retried).
      currentLeaderEpoch: metadata.leaderAndEpoch(q.topic, q.partition)?.epoch ?? -1,
      timestamp: q.timestamp,
      maxNumOffsets: 1,
    });
  }
  const res = await link.request(
    listOffsetsApi,
    { replicaId: -1, isolationLevel, topics: [...topics.values()], timeoutMs: pool.options.requestTimeoutMs },
    // v1 is the first version with a single offset per partition; v2 adds the isolation level.
    { minVersion: isolationLevel === 1 ? 2 : 1 },
  );
  const out = new Map<string, PartitionAnswer>();
  for (const t of res.topics) {
    for (const p of t.partitions) {
      out.set(tpKey(t.name, p.partitionIndex), {
        errorCode: p.errorCode,
        offset: p.offset,
        timestamp: p.timestamp,
        leaderEpoch: p.leaderEpoch,
      });
    }
  }
  return out;
}

/**
 * Answers in the order asked, null where no offset matches. One ListOffsets may name a partition
 * only once, so repeated partitions are asked in further rounds.
 */
export async function listOffsetsInOrder(
  pool: BrokerPool,
  metadata: Metadata,
  queries: readonly OffsetQuery[],
  isolationLevel: number,
  timeoutMs: number,
): Promise<(ListedOffset | null)[]> {
  const rounds: { q: OffsetQuery; index: number }[][] = [];
  const seen = new Map<string, number>();
  queries.forEach((q, index) => {
    const k = tpKey(q.topic, q.partition);
    const round = seen.get(k) ?? 0;
    seen.set(k, round + 1);
    let list = rounds[round];
    if (list === undefined) {
      list = [];
      rounds[round] = list;
    }
    list.push({ q, index });
  });
  const out: (ListedOffset | null)[] = queries.map(() => null);
  const deadline = Date.now() + timeoutMs;
  for (const round of rounds) {
    const res = await listOffsets(
      pool,
      metadata,
      round.map((r) => r.q),
      isolationLevel,
      Math.max(0, deadline - Date.now()),
    );
    for (const r of round) out[r.index] = res.get(tpKey(r.q.topic, r.q.partition)) ?? null;
  }
  return out;
}
