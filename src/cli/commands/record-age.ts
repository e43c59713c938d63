// Lag in time for `samsa groups --describe`: how old the oldest unconsumed record of a partition
// is, i.e. now minus the timestamp of the record at the group's committed offset.
//
// The record is read, not looked up by time: ListOffsets maps a time to an offset, never an offset
// to a time, so answering "when was offset N written" through it takes a binary search of many
// requests and is still approximate. One Fetch at the committed offset (the broker finds the
// batch through the offset index) gives the exact timestamp, from Kafka as from samsa. The
// record's own timestamp is used (CreateTime, or LogAppendTime on topics that set it).
import type { TopicPartition } from '../../client/admin/context.js';
import type { ClientOptions } from '../../client/config.js';
import { Consumer } from '../../client/consumer/consumer.js';

export interface AgeQuery extends TopicPartition {
  /** The group's committed offset: the first record it has not consumed. */
  offset: bigint;
  logEndOffset: bigint;
}

export const partitionKey = (tp: TopicPartition): string => `${tp.topic}:${tp.partition}`;

/**
 * Milliseconds between `now` and the record at each query's offset, by partitionKey. 0 when
 * nothing is left to consume (or only transaction markers are); absent when the record could not
 * be read within `budgetMs`.
 */
export async function unconsumedRecordAges(
  clientOptions: ClientOptions,
  queries: readonly AgeQuery[],
  now: number,
  budgetMs: number,
): Promise<Map<string, number>> {
  const ages = new Map<string, number>();
  const pending = new Map<string, AgeQuery>();
  for (const q of queries) {
    if (q.offset >= q.logEndOffset) ages.set(partitionKey(q), 0);
    else pending.set(partitionKey(q), q);
  }
  if (pending.size === 0) return ages;
  const consumer = new Consumer({
    ...clientOptions,
    // Only the first record of each partition is needed: keep the fetched batches small.
    maxPartitionFetchBytes: 64 * 1024,
    fetchMaxWaitMs: 100,
    isolationLevel: 'read_uncommitted', // LOG-END-OFFSET and LAG are read_uncommitted too
    autoOffsetReset: 'earliest', // a committed offset below the log start: the oldest record left
    enableAutoCommit: false,
  });
  try {
    const all = [...pending.values()];
    consumer.assign(all.map(({ topic, partition }) => ({ topic, partition })));
    for (const q of all) consumer.seek(q, q.offset);
    const deadline = Date.now() + budgetMs;
    while (pending.size > 0 && Date.now() < deadline) {
      const records = await consumer.poll(Math.min(200, Math.max(0, deadline - Date.now())));
      for (const r of records) {
        const key = partitionKey(r);
        if (!pending.has(key)) continue;
        ages.set(key, Math.max(0, now - r.timestamp));
        pending.delete(key);
        consumer.pause([{ topic: r.topic, partition: r.partition }]);
      }
      // Past the log end without a record: what remained were transaction markers.
      for (const [key, q] of pending) {
        const position = await consumer.position(q, { timeoutMs: Math.max(1, deadline - Date.now()) });
        if (position >= q.logEndOffset) {
          ages.set(key, 0);
          pending.delete(key);
        }
      }
    }
  } catch {
    // The age is an extra column: a failure to read leaves it unknown ("-"), never fails describe.
  } finally {
    await consumer.close({ timeoutMs: 1000 }).catch(() => {});
  }
  return ages;
}

/** 850ms, 12s, 3m12s, 2h5m, 4d3h: the two largest units, for the LAG-TIME column. */
export function formatAge(ms: number): string {
  if (ms <= 0) return '0s';
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${s % 60}s`;
  const h = Math.floor(m / 60);
  if (h < 24) return `${h}h${m % 60}m`;
  return `${Math.floor(h / 24)}d${h % 24}h`;
}
