// Topic detail and topic writes. Per replica, the public protocol gives: the leader's log start
// and high watermark (ListOffsets), from each replica's broker its size and offsetLag
// (DescribeLogDirs) and its own log end offset (ListOffsets with replica id -2, which Kafka and
// Samsa answer on followers too). When a broker does not answer the latter, the UI falls back to
// HW − offsetLag (offsetLag = max(0, that replica's HW − its LEO)) and says so.
import type { Admin, NewTopic } from '../../client/index.js';
import { ApiError, intParam } from '../http-util.js';
import { isUnderReplicated } from './cluster.js';
import { topicReassignments } from './leadership.js';
import { partitionRanges, tpKey } from './offsets.js';

/** Groups consuming a topic are found by their committed offsets; past this many groups, not looked for. */
const MAX_GROUPS_SCANNED = 200;

export async function topicDetail(admin: Admin, name: string) {
  const [topic] = await admin.describeTopics([name]);
  if (topic === undefined) throw new ApiError(404, `no topic ${name}`);
  const leadered = topic.partitions
    .filter((p) => p.leader >= 0)
    .map((p) => ({ topic: name, partition: p.partition }));
  const [ranges, dirs, configs, groups, logEnds, moving] = await Promise.all([
    partitionRanges(admin, leadered).catch(() => null),
    admin.describeLogDirs().catch(() => null),
    admin.describeConfigs([{ type: 'topic', name }]).catch(() => null),
    groupsConsuming(admin, name).catch(() => []),
    admin
      .replicaLogEndOffsets(
        topic.partitions.map((p) => ({ topic: name, partition: p.partition, replicas: p.replicas })),
      )
      .catch(() => []),
    topicReassignments(
      admin,
      name,
      topic.partitions.map((p) => p.partition),
    ).catch(() => null),
  ]);
  const replicaEnd = new Map<string, number>();
  for (const e of logEnds)
    if (e.logEndOffset !== null) replicaEnd.set(`${e.broker}/${e.partition}`, Number(e.logEndOffset));
  const replicaInfo = new Map<string, { sizeBytes: number; offsetLag: number }>();
  for (const d of dirs ?? [])
    for (const r of d.replicas)
      if (r.topic === name && !r.isFuture)
        replicaInfo.set(`${d.broker}/${r.partition}`, {
          sizeBytes: Number(r.sizeBytes),
          offsetLag: Number(r.offsetLag),
        });
  return {
    name,
    topicId: topic.topicId,
    internal: topic.isInternal,
    logDirsKnown: dirs !== null,
    /** Partitions being moved (null: the cluster did not say). */
    reassignments: moving,
    partitions: topic.partitions.map((p) => {
      const r = ranges?.get(tpKey({ topic: name, partition: p.partition }));
      return {
        partition: p.partition,
        leader: p.leader,
        leaderEpoch: p.leaderEpoch,
        preferredLeader: p.replicas[0] ?? -1,
        replicas: p.replicas,
        isr: p.isr,
        offlineReplicas: p.offlineReplicas,
        underReplicated: isUnderReplicated(p),
        logStartOffset: r?.start ?? null,
        highWatermark: r?.end ?? null,
        replicaLogs: p.replicas.map((b) => ({
          broker: b,
          leader: b === p.leader,
          inIsr: p.isr.includes(b),
          offline: p.offlineReplicas.includes(b),
          sizeBytes: replicaInfo.get(`${b}/${p.partition}`)?.sizeBytes ?? null,
          offsetLag: replicaInfo.get(`${b}/${p.partition}`)?.offsetLag ?? null,
          logEndOffset: replicaEnd.get(`${b}/${p.partition}`) ?? null,
        })),
      };
    }),
    configs: (configs?.[0]?.entries ?? [])
      .map((e) => ({
        name: e.name,
        value: e.isSensitive ? null : e.value,
        source: e.source,
        isDefault: e.isDefault || e.source === 'DEFAULT_CONFIG',
        readOnly: e.readOnly,
        sensitive: e.isSensitive,
      }))
      .sort((a, b) => a.name.localeCompare(b.name)),
    groups,
  };
}

async function groupsConsuming(admin: Admin, topic: string): Promise<string[]> {
  const groups = (await admin.listGroups()).slice(0, MAX_GROUPS_SCANNED);
  const found = await Promise.all(
    groups.map(async (g) => {
      const offsets = await admin.listConsumerGroupOffsets(g.groupId).catch(() => []);
      return offsets.some((o) => o.topic === topic) ? g.groupId : null;
    }),
  );
  return found.filter((g): g is string => g !== null).sort();
}

function stringMap(v: unknown, what: string): Record<string, string> {
  if (v === undefined || v === null) return {};
  if (typeof v !== 'object' || Array.isArray(v))
    throw new ApiError(400, `${what} must be an object of strings`);
  const out: Record<string, string> = {};
  for (const [k, x] of Object.entries(v)) {
    if (typeof x !== 'string') throw new ApiError(400, `${what}.${k} must be a string`);
    out[k] = x;
  }
  return out;
}

export async function createTopic(admin: Admin, body: Record<string, unknown>) {
  const name = body.name;
  if (typeof name !== 'string' || !/^[a-zA-Z0-9._-]{1,249}$/.test(name))
    throw new ApiError(400, 'a topic name is 1-249 of a-z A-Z 0-9 . _ -');
  const topic: NewTopic = { name, configs: stringMap(body.configs, 'configs') };
  if (body.partitions !== undefined && body.partitions !== '')
    topic.numPartitions = intParam(body.partitions, 'partitions', 1);
  if (body.replicationFactor !== undefined && body.replicationFactor !== '')
    topic.replicationFactor = intParam(body.replicationFactor, 'replicationFactor', 1);
  const [created] = await admin.createTopics([topic]);
  return created;
}

export async function addPartitions(admin: Admin, name: string, body: Record<string, unknown>) {
  const count = intParam(body.count, 'count', 1);
  await admin.createPartitions([{ topic: name, count }]);
  return { topic: name, count };
}

/** `{ set: { key: value }, delete: [key] }` through IncrementalAlterConfigs. */
export async function alterTopicConfigs(admin: Admin, name: string, body: Record<string, unknown>) {
  const set = stringMap(body.set, 'set');
  const del = body.delete ?? [];
  if (!Array.isArray(del) || del.some((k) => typeof k !== 'string'))
    throw new ApiError(400, 'delete must be a list of keys');
  const ops = [
    ...Object.entries(set).map(([key, value]) => ({ key, op: 'set' as const, value })),
    ...(del as string[]).map((key) => ({ key, op: 'delete' as const })),
  ];
  if (ops.length === 0) throw new ApiError(400, 'nothing to change');
  await admin.incrementalAlterConfigs([{ type: 'topic', name, ops }]);
  return { topic: name, changed: ops.length };
}
