// Kafka 3.x znode contents, continued (see zk-data.ts): entity configs and their change
// notifications, admin requests (topic deletion, legacy reassignment, preferred leader election),
// ISR change notifications, producer id blocks and the finalized features.

import { JsonObjectReader, jsonBytes } from './zk-json.js';
import { CONFIG_ENTITY_TYPES, type ConfigEntityType } from './zk-paths.js';

// ---- /config/<type>/<name> ---------------------------------------------------------------------

/** `{"version":1,"config":{...}}`; values are strings, as in a Properties object. */
export function encodeEntityConfig(config: Readonly<Record<string, string>>): Buffer {
  return jsonBytes({ version: 1, config });
}

/** Null data or no "config" means no overrides (as Kafka reads it). */
export function decodeEntityConfig(what: string, data: Buffer | null): Record<string, string> {
  // A parent created on the way to a child (`/config/users/<u>` of `…/clients/<c>`) is empty.
  if (data === null || data.length === 0) return {};
  const r: JsonObjectReader = JsonObjectReader.parse(data, what);
  const c = r.optionalObject('config');
  // fromEntries defines own properties: a "__proto__" key stays a key.
  return Object.fromEntries((c?.keys() ?? []).map((k) => [k, c!.string(k)]));
}

// ---- /config/changes/config_change_NNNNNNNNNN --------------------------------------------------

export interface ConfigChangeNotification {
  readonly entityType: ConfigEntityType;
  /** Sanitized entity name; may hold '/' for nested entities (`<user>/clients/<client-id>`). */
  readonly entityName: string;
}

/** Version 2: `{"version":2,"entity_path":"topics/my-topic"}`. */
export function encodeConfigChangeNotification(entityType: ConfigEntityType, entityName: string): Buffer {
  return jsonBytes({ version: 2, entity_path: `${entityType}/${entityName}` });
}

function isEntityType(s: string): s is ConfigEntityType {
  return (CONFIG_ENTITY_TYPES as readonly string[]).includes(s);
}

/** Versions 1 (entity_type ∈ topics|clients + entity_name) and 2 (entity_path), as Kafka's ZkConfigManager. */
export function decodeConfigChangeNotification(what: string, data: Buffer | null): ConfigChangeNotification {
  const r: JsonObjectReader = JsonObjectReader.parse(data, what);
  const version = r.int32('version');
  if (version === 1) {
    const entityType = r.string('entity_type');
    if (entityType !== 'topics' && entityType !== 'clients')
      r.fail('entity_type', `must be "topics" or "clients" in version 1, got ${JSON.stringify(entityType)}`);
    return { entityType, entityName: r.string('entity_name') };
  }
  if (version === 2) {
    const path = r.string('entity_path');
    const i = path.indexOf('/');
    const type = i < 0 ? '' : path.slice(0, i);
    if (!isEntityType(type) || i === path.length - 1)
      r.fail('entity_path', `must be <${CONFIG_ENTITY_TYPES.join('|')}>/<name>, got ${JSON.stringify(path)}`);
    return { entityType: type, entityName: path.slice(i + 1) };
  }
  return r.fail('version', `${version} is not a config change notification version (1 or 2)`);
}

// ---- partitions lists: ISR changes, preferred leader election, legacy reassignment -------------

export interface TopicPartitionRef {
  readonly topic: string;
  readonly partition: number;
}

function encodePartitionList(partitions: Iterable<TopicPartitionRef>): Buffer {
  return jsonBytes({
    version: 1,
    partitions: [...partitions].map((p) => ({ topic: p.topic, partition: p.partition })),
  });
}

function decodePartitionList(what: string, data: Buffer | null): TopicPartitionRef[] {
  const r: JsonObjectReader = JsonObjectReader.parse(data, what);
  const seen = new Set<string>();
  const out: TopicPartitionRef[] = [];
  r.array('partitions').forEach((v, i) => {
    const p = r.asObject(`partitions[${i}]`, v);
    const ref = { topic: p.string('topic'), partition: p.int32('partition') };
    const key = `${ref.partition}:${ref.topic}`;
    if (!seen.has(key)) {
      seen.add(key);
      out.push(ref);
    }
  });
  return out;
}

/** /isr_change_notification/isr_change_N: `{"version":1,"partitions":[{"topic":…,"partition":…}]}`. */
export function encodeIsrChangeNotification(partitions: Iterable<TopicPartitionRef>): Buffer {
  return encodePartitionList(partitions);
}

/** Distinct partitions, in order of first appearance. */
export function decodeIsrChangeNotification(what: string, data: Buffer | null): TopicPartitionRef[] {
  return decodePartitionList(what, data);
}

/** /admin/preferred_replica_election, same layout as ISR change notifications. */
export function encodePreferredReplicaElection(partitions: Iterable<TopicPartitionRef>): Buffer {
  return encodePartitionList(partitions);
}

export function decodePreferredReplicaElection(data: Buffer | null): TopicPartitionRef[] {
  return decodePartitionList('/admin/preferred_replica_election', data);
}

export interface LegacyReassignment extends TopicPartitionRef {
  readonly replicas: readonly number[];
}

/** /admin/reassign_partitions: `{"version":1,"partitions":[{"topic","partition","replicas"}]}`. */
export function encodeReassignPartitions(entries: Iterable<LegacyReassignment>): Buffer {
  return jsonBytes({
    version: 1,
    partitions: [...entries].map((e) => ({
      topic: e.topic,
      partition: e.partition,
      replicas: [...e.replicas],
    })),
  });
}

export function decodeReassignPartitions(data: Buffer | null): LegacyReassignment[] {
  const r: JsonObjectReader = JsonObjectReader.parse(data, '/admin/reassign_partitions');
  return r.array('partitions').map((v, i) => {
    const p = r.asObject(`partitions[${i}]`, v);
    return { topic: p.string('topic'), partition: p.int32('partition'), replicas: p.int32Array('replicas') };
  });
}

// ---- /latest_producer_id_block -----------------------------------------------------------------

export interface ProducerIdBlock {
  /** The broker that took the block. */
  readonly brokerId: number;
  readonly firstProducerId: bigint;
  /** Inclusive. */
  readonly lastProducerId: bigint;
}

/** `{"version":1,"broker":N,"block_start":"first","block_end":"last"}`: ids as decimal strings. */
export function encodeProducerIdBlock(b: ProducerIdBlock): Buffer {
  return jsonBytes({
    version: 1,
    broker: b.brokerId,
    block_start: b.firstProducerId.toString(),
    block_end: b.lastProducerId.toString(),
  });
}

export function decodeProducerIdBlock(data: Buffer | null): ProducerIdBlock {
  const r: JsonObjectReader = JsonObjectReader.parse(data, '/latest_producer_id_block');
  const brokerId = r.int32('broker');
  const firstProducerId = r.decimalString('block_start');
  const lastProducerId = r.decimalString('block_end');
  if (firstProducerId < 0n) r.fail('block_start', 'must not be negative');
  // Kafka sizes the block with Math.toIntExact(end - start + 1).
  const size = lastProducerId - firstProducerId + 1n;
  if (size < 1n || size > 0x7fffffffn)
    r.fail('block_end', `must be >= block_start and give a block of at most 2^31-1 ids (size ${size})`);
  return { brokerId, firstProducerId, lastProducerId };
}

// ---- /feature ----------------------------------------------------------------------------------

export interface FinalizedFeatures {
  /** 1 (Kafka < 3.3, min and max levels) or 2 (max level only). */
  readonly version: 1 | 2;
  readonly enabled: boolean;
  /** Finalized max version level per feature. */
  readonly features: Readonly<Record<string, number>>;
}

export function encodeFinalizedFeatures(f: FinalizedFeatures): Buffer {
  const features = Object.fromEntries(
    Object.entries(f.features).map(([name, level]) => [
      name,
      f.version === 1 ? { max_version_level: level, min_version_level: level } : { max_version_level: level },
    ]),
  );
  return jsonBytes({ version: f.version, status: f.enabled ? 1 : 0, features });
}

/** With Kafka's FeatureZNode.decode checks (version 1|2, status 0|1, levels >= 1, min <= max in v1). */
export function decodeFinalizedFeatures(data: Buffer | null): FinalizedFeatures {
  const r: JsonObjectReader = JsonObjectReader.parse(data, '/feature');
  const version = r.int32('version');
  if (version !== 1 && version !== 2) r.fail('version', `${version} is not supported (1 or 2)`);
  const status = r.int32('status');
  if (status !== 0 && status !== 1) r.fail('status', `must be 0 (disabled) or 1 (enabled), got ${status}`);
  const fs = r.object('features');
  const entries = fs.keys().map((name): [string, number] => {
    const f = fs.object(name);
    const max = f.int32('max_version_level');
    if (version === 1) {
      const min = f.int32('min_version_level');
      if (min < 1 || max < min) f.fail('min_version_level', `must satisfy 1 <= min (${min}) <= max (${max})`);
    }
    if (max < 1 || max > 0x7fff) f.fail('max_version_level', `must be in 1..32767, got ${max}`);
    return [name, max];
  });
  return { version, enabled: status === 1, features: Object.fromEntries(entries) };
}
