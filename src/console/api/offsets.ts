// Log start and high watermark of many partitions at once (two ListOffsets rounds, one request per
// leader each). Partitions without a leader are left out: their leader would be waited for.
import type { Admin, TopicDescription, TopicPartition } from '../../client/index.js';

export interface PartitionRange {
  /** Log start offset. */
  start: number;
  /** High watermark (ListOffsets latest, read_uncommitted). */
  end: number;
}

export const tpKey = (tp: TopicPartition): string => `${tp.topic}\u0000${tp.partition}`;

export function leaderedPartitions(topics: readonly TopicDescription[]): TopicPartition[] {
  return topics.flatMap((t) =>
    t.partitions.filter((p) => p.leader >= 0).map((p) => ({ topic: t.name, partition: p.partition })),
  );
}

export async function partitionRanges(
  admin: Admin,
  tps: readonly TopicPartition[],
): Promise<Map<string, PartitionRange>> {
  const out = new Map<string, PartitionRange>();
  if (tps.length === 0) return out;
  const [earliest, latest] = await Promise.all([
    admin.listOffsets(tps.map((tp) => ({ ...tp, spec: 'earliest' as const }))),
    admin.listOffsets(tps.map((tp) => ({ ...tp, spec: 'latest' as const }))),
  ]);
  for (const e of earliest) out.set(tpKey(e), { start: Number(e.offset), end: Number(e.offset) });
  for (const l of latest) {
    const r = out.get(tpKey(l));
    if (r) r.end = Number(l.offset);
  }
  return out;
}
