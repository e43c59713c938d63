// The durable part of the in-memory "ensemble" (what ZooKeeper keeps on disk, minus ephemerals):
// cluster id, the zxid counter, `/controller_epoch`, topics with their partition states and
// versions, dynamic configs, pending deletions and `/latest_producer_id_block`. Kept in one plain
// structure so that the local store can persist and restore it as a whole. Records are immutable:
// a write replaces the record, so readers may keep what they were given.

import type {
  AclResourceRecord,
  ConfigEntity,
  PartitionState,
  TopicAssignment,
  VersionedAcls,
} from './records.js';

export interface StoredTopic {
  readonly assignment: TopicAssignment;
  /** Partition states by partition index (absent = not written by a controller yet). */
  readonly states: Map<number, PartitionState>;
}

export interface DurableState {
  clusterId: string | null;
  /** Last transaction id handed out; broker epochs are creation zxids, so this only grows. */
  zxid: bigint;
  /** `/controller_epoch` and its version, null until the first election. */
  controllerEpoch: { readonly epoch: number; readonly version: number } | null;
  /** `/latest_producer_id_block`: the first id not yet reserved, and the record's version. */
  producerIds: { readonly next: bigint; readonly version: number } | null;
  readonly topics: Map<string, StoredTopic>;
  /** Dynamic configs by `configKey(entity)`; an entity without overrides has no entry. */
  readonly configs: Map<string, Readonly<Record<string, string>>>;
  /** `/admin/delete_topics` children. */
  readonly deletions: Set<string>;
  /** ACLs by `aclKey(resource)`; a resource without ACLs has no entry. */
  readonly acls: Map<string, VersionedAcls>;
}

export function emptyDurableState(): DurableState {
  return {
    clusterId: null,
    zxid: 0n,
    controllerEpoch: null,
    producerIds: null,
    topics: new Map(),
    configs: new Map(),
    deletions: new Set(),
    acls: new Map(),
  };
}

/** `LITERAL/Topic/name`: one resource pattern's ACLs. */
export function aclKey(r: AclResourceRecord): string {
  return `${r.patternType}/${r.resourceType}/${r.name}`;
}

/** `topics/<name>` or `brokers/<id|<default>>`, the znode path below `/config`. */
export function configKey(entity: ConfigEntity): string {
  return `${entity.type}/${entity.name}`;
}

export function parseConfigKey(key: string): ConfigEntity {
  const slash = key.indexOf('/');
  const type = key.slice(0, slash);
  const name = key.slice(slash + 1);
  if (
    type === 'topics' ||
    type === 'users' ||
    type === 'clients' ||
    type === 'user-clients' ||
    type === 'ips'
  )
    return { type, name };
  return { type: 'brokers', name };
}

/** A deep copy, so a snapshot taken for persistence is not changed by later writes. */
export function cloneDurableState(s: DurableState): DurableState {
  const topics = new Map<string, StoredTopic>();
  for (const [name, t] of s.topics) topics.set(name, { assignment: t.assignment, states: new Map(t.states) });
  return {
    clusterId: s.clusterId,
    zxid: s.zxid,
    controllerEpoch: s.controllerEpoch,
    producerIds: s.producerIds,
    topics,
    configs: new Map(s.configs),
    deletions: new Set(s.deletions),
    acls: new Map(s.acls),
  };
}
