// Consumer.replayFrom: where each partition restarts when records are re-read from a point in
// time or from given offsets. A time becomes, per partition, the earliest offset whose timestamp
// is at or after it (ListOffsets by timestamp, as Kafka's offsetsForTimes); a partition with no
// such record restarts at its end, so it replays nothing but what comes next — the same answer
// `kafka-consumer-groups --reset-offsets --to-datetime` gives.
import { ConfigError, IllegalStateError } from '../errors.js';
import { type OffsetAndTimestamp, type TopicPartition, type TopicPartitionOffset, tpKey } from './types.js';

/**
 * Where to replay from: a time (a Date or milliseconds since the epoch), or offsets — a list,
 * or an object keyed "topic-partition" (Kafka's spelling of a partition, e.g. `orders-3`).
 */
export type ReplayStart =
  | Date
  | number
  | Readonly<Record<string, bigint | number>>
  | readonly TopicPartitionOffset[];

export interface ReplayLookups {
  offsetsForTimes(query: (TopicPartition & { timestamp: number })[]): Promise<(OffsetAndTimestamp | null)[]>;
  endOffsets(partitions: TopicPartition[]): Promise<bigint[]>;
}

/**
 * The positions to seek to: for a time, every partition of `partitions` (default: all
 * assigned); for offsets, the partitions named (each must be assigned).
 */
export async function replayTargets(
  from: ReplayStart,
  assigned: readonly TopicPartition[],
  partitions: readonly TopicPartition[] | null,
  lookups: ReplayLookups,
): Promise<TopicPartitionOffset[]> {
  const owned = new Set(assigned.map((tp) => tpKey(tp.topic, tp.partition)));
  const requireAssigned = (tp: TopicPartition) => {
    if (!owned.has(tpKey(tp.topic, tp.partition)))
      throw new IllegalStateError(`replayFrom: ${tp.topic}-${tp.partition} is not assigned to this consumer`);
  };
  if (from instanceof Date || typeof from === 'number') {
    const ms = from instanceof Date ? from.getTime() : from;
    if (!Number.isFinite(ms) || ms < 0)
      throw new ConfigError('replayFrom: the time must be a valid date at or after 1970-01-01');
    const tps = [...(partitions ?? assigned)];
    for (const tp of tps) requireAssigned(tp);
    if (tps.length === 0) return [];
    const found = await lookups.offsetsForTimes(tps.map((tp) => ({ ...tp, timestamp: ms })));
    const past = tps.filter((_, i) => found[i] == null);
    const ends = past.length > 0 ? await lookups.endOffsets(past) : [];
    const endOf = new Map(past.map((tp, i) => [tpKey(tp.topic, tp.partition), ends[i]!]));
    return tps.map((tp, i) => ({
      topic: tp.topic,
      partition: tp.partition,
      offset: found[i]?.offset ?? endOf.get(tpKey(tp.topic, tp.partition))!,
    }));
  }
  const list = Array.isArray(from) ? (from as readonly TopicPartitionOffset[]) : fromRecord(from as object);
  const only = partitions === null ? null : new Set(partitions.map((tp) => tpKey(tp.topic, tp.partition)));
  const out: TopicPartitionOffset[] = [];
  for (const t of list) {
    if (only !== null && !only.has(tpKey(t.topic, t.partition))) continue;
    requireAssigned(t);
    const offset = BigInt(t.offset);
    if (offset < 0n)
      throw new ConfigError(`replayFrom: offset ${offset} of ${t.topic}-${t.partition} is negative`);
    out.push({ topic: t.topic, partition: t.partition, offset });
  }
  return out;
}

/** `{ 'orders-3': 42n }` → a list; the partition is what follows the last '-'. */
function fromRecord(rec: object): TopicPartitionOffset[] {
  return Object.entries(rec as Record<string, bigint | number>).map(([name, offset]) => {
    const i = name.lastIndexOf('-');
    const partition = Number(name.slice(i + 1));
    if (i <= 0 || !/^\d+$/.test(name.slice(i + 1)) || !Number.isSafeInteger(partition))
      throw new ConfigError(
        `replayFrom: "${name}" is not a partition: use "topic-partition", e.g. "orders-3"`,
      );
    if (typeof offset !== 'bigint' && !Number.isSafeInteger(offset))
      throw new ConfigError(`replayFrom: the offset of ${name} must be an integer`);
    return { topic: name.slice(0, i), partition, offset: BigInt(offset) };
  });
}
