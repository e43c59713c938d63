// Cluster overview and the topics list: DescribeCluster, Metadata (every topic), DescribeLogDirs
// (sizes; left out when the cluster refuses it) and ListOffsets (message counts).
import type { Admin, LogDirDescription, TopicDescription } from '../../client/index.js';
import { leaderedPartitions, partitionRanges, tpKey } from './offsets.js';

export interface BrokerRow {
  nodeId: number;
  host: string;
  port: number;
  rack: string | null;
  leaders: number;
  partitions: number;
  /** Bytes of every replica on the broker; null when DescribeLogDirs is not allowed. */
  sizeBytes: number | null;
}

export interface TopicRow {
  name: string;
  internal: boolean;
  partitions: number;
  replicationFactor: number;
  underReplicated: number;
  offline: number;
  /** Bytes of the leader replicas; null when unknown. */
  sizeBytes: number | null;
  /** Sum over partitions of high watermark − log start. */
  messages: number;
}

export const isUnderReplicated = (p: { isr: number[]; replicas: number[] }): boolean =>
  p.isr.length < p.replicas.length;

async function logDirsOrNull(admin: Admin): Promise<LogDirDescription[] | null> {
  try {
    return await admin.describeLogDirs();
  } catch {
    return null; // not authorized, or an old cluster: sizes show as unknown
  }
}

/** Replica sizes by `broker/topic/partition`. */
function sizeIndex(dirs: LogDirDescription[] | null): Map<string, number> | null {
  if (dirs === null) return null;
  const m = new Map<string, number>();
  for (const d of dirs)
    for (const r of d.replicas) if (!r.isFuture) m.set(`${d.broker}/${tpKey(r)}`, Number(r.sizeBytes));
  return m;
}

export async function clusterOverview(admin: Admin) {
  const [cluster, topics, dirs] = await Promise.all([
    admin.describeCluster(),
    admin.describeTopics(),
    logDirsOrNull(admin),
  ]);
  const brokers: BrokerRow[] = cluster.brokers.map((b) => ({
    ...b,
    leaders: 0,
    partitions: 0,
    sizeBytes: dirs === null ? null : 0,
  }));
  const byId = new Map(brokers.map((b) => [b.nodeId, b]));
  let partitions = 0;
  let underReplicated = 0;
  let offline = 0;
  for (const t of topics)
    for (const p of t.partitions) {
      partitions++;
      if (p.leader < 0) offline++;
      else if (isUnderReplicated(p)) underReplicated++;
      const leader = byId.get(p.leader);
      if (leader) leader.leaders++;
      for (const r of p.replicas) {
        const b = byId.get(r);
        if (b) b.partitions++;
      }
    }
  for (const d of dirs ?? []) {
    const b = byId.get(d.broker);
    if (b && b.sizeBytes !== null) for (const r of d.replicas) b.sizeBytes += Number(r.sizeBytes);
  }
  return {
    clusterId: cluster.clusterId,
    controller: cluster.controller,
    brokers,
    topics: topics.length,
    internalTopics: topics.filter((t) => t.isInternal).length,
    partitions,
    underReplicated,
    offline,
  };
}

export async function topicRows(admin: Admin): Promise<TopicRow[]> {
  const [topics, dirs] = await Promise.all([admin.describeTopics(), logDirsOrNull(admin)]);
  const sizes = sizeIndex(dirs);
  const ranges = await partitionRanges(admin, leaderedPartitions(topics)).catch(() => null);
  return topics.map((t: TopicDescription) => {
    let size: number | null = sizes === null ? null : 0;
    let messages = 0;
    for (const p of t.partitions) {
      const k = tpKey({ topic: t.name, partition: p.partition });
      if (size !== null) size += sizes?.get(`${p.leader}/${k}`) ?? 0;
      const r = ranges?.get(k);
      if (r) messages += r.end - r.start;
    }
    return {
      name: t.name,
      internal: t.isInternal,
      partitions: t.partitions.length,
      replicationFactor: t.partitions[0]?.replicas.length ?? 0,
      underReplicated: t.partitions.filter((p) => p.leader >= 0 && isUnderReplicated(p)).length,
      offline: t.partitions.filter((p) => p.leader < 0).length,
      sizeBytes: size,
      messages,
    };
  });
}
