// The JSON file of the local store (`samsa-metadata.json` in the first log dir): a snapshot of the
// durable state of the in-memory ensemble — topics with their assignment and every partition state
// with its version, configs of every entity, pending deletions, the controller epoch, the
// producer-id block and the zxid counter broker epochs are taken from. Version 3 adds
// `journalSeq`: the last journal entry (local-store-journal.ts) the snapshot already holds; later
// entries are replayed on top of it. Version 2 (the same without a journal) and version 1 (written
// by the single-broker store before the cluster work) are still read, so existing data dirs keep
// working: version 1 partitions carry leader/leaderEpoch/replicas/isr, its topics their config
// overrides, and its broker configs use '' for the cluster default, which is `<default>` here as
// in ZooKeeper.

import {
  aclKey,
  configKey,
  type DurableState,
  emptyDurableState,
  parseConfigKey,
  type StoredTopic,
} from './memory-state.js';
import { MetadataStoreError } from './metadata-store.js';
import type { PartitionState, TopicAssignment, VersionedAcls } from './records.js';

export const METADATA_FILE = 'samsa-metadata.json';
export const FORMAT_VERSION = 3;

/** A topic as files hold it (the snapshot's `topics` entries and the journal's). */
export interface FileTopic {
  name: string;
  topicId: string;
  partitions: number[][];
  addingReplicas?: Record<string, readonly number[]>;
  removingReplicas?: Record<string, readonly number[]>;
  states: (PartitionState & { partition: number })[];
}

interface FileState {
  version: 3;
  journalSeq: number;
  clusterId: string | null;
  lastZxid: string;
  controllerEpoch: { epoch: number; version: number } | null;
  producerIds: { nextProducerId: string; version: number } | null;
  topics: FileTopic[];
  configs: {
    topics: Record<string, Record<string, string>>;
    brokers: Record<string, Record<string, string>>;
    /** SCRAM credentials and quotas by user (absent in files written before SASL). */
    users?: Record<string, Record<string, string>>;
    /** Quotas (absent in files written before quotas). */
    clients?: Record<string, Record<string, string>>;
    'user-clients'?: Record<string, Record<string, string>>;
    ips?: Record<string, Record<string, string>>;
  };
  pendingDeletions: string[];
  /** ACLs per resource pattern (absent in files written before ACLs). */
  acls?: VersionedAcls[];
}

export function topicToFile({ assignment: a, states }: StoredTopic): FileTopic {
  return {
    name: a.name,
    topicId: a.topicId,
    partitions: a.partitions.map((r) => [...r]),
    ...(a.addingReplicas !== undefined ? { addingReplicas: { ...a.addingReplicas } } : {}),
    ...(a.removingReplicas !== undefined ? { removingReplicas: { ...a.removingReplicas } } : {}),
    states: [...states].sort(([x], [y]) => x - y).map(([partition, st]) => ({ partition, ...st })),
  };
}

/** The scalar parts of the state, as the snapshot and every journal entry hold them. */
export function scalarsToFile(
  s: DurableState,
): Pick<FileState, 'clusterId' | 'lastZxid' | 'controllerEpoch' | 'producerIds'> {
  return {
    clusterId: s.clusterId,
    lastZxid: String(s.zxid),
    controllerEpoch: s.controllerEpoch,
    producerIds:
      s.producerIds === null
        ? null
        : { nextProducerId: String(s.producerIds.next), version: s.producerIds.version },
  };
}

export function serializeState(s: DurableState, journalSeq: number): string {
  const file: FileState = {
    version: 3,
    journalSeq,
    ...scalarsToFile(s),
    topics: [...s.topics.values()].map(topicToFile),
    configs: { topics: {}, brokers: {}, users: {} },
    pendingDeletions: [...s.deletions],
    acls: [...s.acls.values()],
  };
  for (const [key, value] of s.configs) {
    const slash = key.indexOf('/');
    const type = parseConfigKey(key).type;
    const byName = file.configs[type] ?? {};
    file.configs[type] = byName;
    byName[key.slice(slash + 1)] = { ...value };
  }
  return JSON.stringify(file, null, 1);
}

export interface ParsedStateFile {
  state: DurableState;
  version: 1 | 2 | 3;
  /** The last journal entry the snapshot holds (0 before version 3: no journal). */
  journalSeq: number;
}

/** Parses a version 1, 2 or 3 file. Throws MetadataStoreError('CORRUPT') naming the file. */
export function parseStateFile(text: string, path: string): ParsedStateFile {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw corrupt(path, `not valid JSON (${(e as Error).message})`);
  }
  if (!isObject(raw)) throw corrupt(path, 'not a JSON object');
  try {
    if (raw['version'] === 1) return { state: fromV1(raw), version: 1, journalSeq: 0 };
    if (raw['version'] === 2) return { state: fromV2(raw), version: 2, journalSeq: 0 };
    if (raw['version'] === 3)
      return { state: fromV2(raw), version: 3, journalSeq: int(raw['journalSeq'], 'journalSeq') };
  } catch (e) {
    if (e instanceof FormatError) throw corrupt(path, e.message);
    throw e;
  }
  throw corrupt(path, `unsupported format version ${JSON.stringify(raw['version'])}`);
}

/** Versions 2 and 3 (which only adds `journalSeq`). */
function fromV2(o: Record<string, unknown>): DurableState {
  const s = emptyDurableState();
  applyScalars(s, o);
  for (const t of arr(o['topics'], 'topics')) {
    const topic = topicFromFile(t);
    s.topics.set(topic.assignment.name, topic);
  }
  const configs = o['configs'];
  if (isObject(configs)) {
    for (const type of ['topics', 'brokers', 'users', 'clients', 'user-clients', 'ips'] as const) {
      const byName = configs[type];
      if (!isObject(byName)) continue;
      for (const [name, value] of Object.entries(byName))
        s.configs.set(configKey({ type, name }), stringRecord(value, `${type}/${name} configs`));
    }
  }
  for (const d of arr(o['pendingDeletions'] ?? [], 'pendingDeletions'))
    s.deletions.add(str(d, 'pending deletion'));
  for (const a of arr(o['acls'] ?? [], 'acls')) {
    const acls = aclsFromFile(a);
    s.acls.set(aclKey(acls.resource), acls);
  }
  return s;
}

/** One resource's ACLs of a snapshot or a journal entry. Throws FormatError. */
export function aclsFromFile(v: unknown): VersionedAcls {
  if (!isObject(v) || !isObject(v['resource'])) throw new FormatError('an ACL resource is not an object');
  const r = v['resource'];
  const patternType = str(r['patternType'], 'ACL pattern type');
  if (patternType !== 'LITERAL' && patternType !== 'PREFIXED')
    throw new FormatError(`unknown ACL pattern type ${patternType}`);
  const resource = {
    resourceType: str(r['resourceType'], 'ACL resource type'),
    patternType,
    name: str(r['name'], 'ACL resource name'),
  } as const;
  const acls = arr(v['acls'], 'acls').map((e) => {
    const f = stringRecord(e, `ACL of ${resource.name}`);
    return {
      principal: str(f['principal'], 'ACL principal'),
      permissionType: str(f['permissionType'], 'ACL permissionType'),
      operation: str(f['operation'], 'ACL operation'),
      host: str(f['host'], 'ACL host'),
    };
  });
  return { resource, acls, version: int(v['version'], 'ACL version') };
}

/** Sets the scalar parts of `s` from a snapshot or a journal entry. Throws FormatError. */
export function applyScalars(s: DurableState, o: Record<string, unknown>): void {
  s.clusterId = o['clusterId'] === null ? null : str(o['clusterId'], 'clusterId');
  s.zxid = bigintText(o['lastZxid'], 'lastZxid');
  s.controllerEpoch = null;
  const ce = o['controllerEpoch'];
  if (ce !== null && ce !== undefined) {
    if (!isObject(ce)) throw new FormatError('controllerEpoch is not an object');
    s.controllerEpoch = {
      epoch: int(ce['epoch'], 'controllerEpoch.epoch'),
      version: int(ce['version'], 'controllerEpoch.version'),
    };
  }
  s.producerIds = null;
  const pid = o['producerIds'];
  if (pid !== null && pid !== undefined) {
    if (!isObject(pid)) throw new FormatError('producerIds is not an object');
    s.producerIds = {
      next: bigintText(pid['nextProducerId'], 'producerIds.nextProducerId'),
      version: int(pid['version'], 'producerIds.version'),
    };
  }
}

/** A topic of a snapshot or a journal entry. Throws FormatError. */
export function topicFromFile(t: unknown): StoredTopic {
  if (!isObject(t)) throw new FormatError('a topic is not an object');
  const name = str(t['name'], 'topic name');
  const partitions = arr(t['partitions'], `${name}.partitions`).map((r) => ints(r, `${name} replicas`));
  const assignment: TopicAssignment = {
    name,
    topicId: str(t['topicId'], `${name}.topicId`),
    partitions,
    ...(isObject(t['addingReplicas']) ? { addingReplicas: replicaMap(t['addingReplicas'], name) } : {}),
    ...(isObject(t['removingReplicas']) ? { removingReplicas: replicaMap(t['removingReplicas'], name) } : {}),
  };
  const states = new Map<number, PartitionState>();
  for (const st of arr(t['states'], `${name}.states`)) {
    if (!isObject(st)) throw new FormatError(`a partition state of ${name} is not an object`);
    const p = int(st['partition'], `${name} state partition`);
    const recovery = st['leaderRecoveryState'] === 1 ? 1 : 0;
    states.set(p, {
      leader: int(st['leader'], `${name}-${p} leader`),
      leaderEpoch: int(st['leaderEpoch'], `${name}-${p} leaderEpoch`),
      isr: ints(st['isr'], `${name}-${p} isr`),
      controllerEpoch: int(st['controllerEpoch'], `${name}-${p} controllerEpoch`),
      leaderRecoveryState: recovery,
      version: int(st['version'], `${name}-${p} version`),
    });
  }
  return { assignment, states };
}

/** The single-broker format: each partition's state becomes version 0 written by no controller yet (epoch 0). */
function fromV1(o: Record<string, unknown>): DurableState {
  const s = emptyDurableState();
  s.clusterId = str(o['clusterId'], 'clusterId');
  const next = o['nextProducerId'];
  if (typeof next === 'string' && /^\d+$/.test(next)) s.producerIds = { next: BigInt(next), version: 0 };
  for (const t of arr(o['topics'], 'topics')) {
    if (!isObject(t)) throw new FormatError('a topic is not an object');
    const name = str(t['name'], 'topic name');
    const parts = arr(t['partitions'], `${name}.partitions`).map((p) => {
      if (!isObject(p)) throw new FormatError(`a partition of ${name} is not an object`);
      return p;
    });
    parts.sort((a, b) => int(a['partition'], 'partition') - int(b['partition'], 'partition'));
    const states = new Map<number, PartitionState>();
    const replicas: number[][] = [];
    parts.forEach((p, i) => {
      if (int(p['partition'], 'partition') !== i)
        throw new FormatError(`partitions of ${name} are not 0..n-1`);
      replicas.push(ints(p['replicas'], `${name}-${i} replicas`));
      states.set(i, {
        leader: int(p['leader'], `${name}-${i} leader`),
        leaderEpoch: int(p['leaderEpoch'], `${name}-${i} leaderEpoch`),
        isr: ints(p['isr'], `${name}-${i} isr`),
        controllerEpoch: 0,
        leaderRecoveryState: 0,
        version: 0,
      });
    });
    const topic: StoredTopic = {
      assignment: { name, topicId: str(t['topicId'], `${name}.topicId`), partitions: replicas },
      states,
    };
    s.topics.set(name, topic);
    const overrides = t['configs'] === undefined ? {} : stringRecord(t['configs'], `${name} configs`);
    if (Object.keys(overrides).length > 0) s.configs.set(configKey({ type: 'topics', name }), overrides);
  }
  const brokerConfigs = o['brokerConfigs'];
  if (isObject(brokerConfigs)) {
    for (const [entity, value] of Object.entries(brokerConfigs)) {
      const configs = stringRecord(value, `broker ${entity} configs`);
      if (Object.keys(configs).length === 0) continue;
      s.configs.set(configKey({ type: 'brokers', name: entity === '' ? '<default>' : entity }), configs);
    }
  }
  return s;
}

/** A structural fault in a file's JSON; the callers turn it into CORRUPT naming their file. */
export class FormatError extends Error {}

export function corrupt(path: string, why: string): MetadataStoreError {
  return new MetadataStoreError('CORRUPT', `${path}: unsupported or damaged metadata file: ${why}`);
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function str(v: unknown, what: string): string {
  if (typeof v !== 'string') throw new FormatError(`${what} is not a string`);
  return v;
}

export function int(v: unknown, what: string): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v)) throw new FormatError(`${what} is not an integer`);
  return v;
}

export function arr(v: unknown, what: string): unknown[] {
  if (!Array.isArray(v)) throw new FormatError(`${what} is not an array`);
  return v;
}

function ints(v: unknown, what: string): number[] {
  return arr(v, what).map((x) => int(x, what));
}

function bigintText(v: unknown, what: string): bigint {
  if (typeof v !== 'string' || !/^\d+$/.test(v)) throw new FormatError(`${what} is not a decimal string`);
  return BigInt(v);
}

export function stringRecord(v: unknown, what: string): Record<string, string> {
  if (!isObject(v)) throw new FormatError(`${what} is not an object`);
  const out: Record<string, string> = {};
  for (const [k, x] of Object.entries(v)) out[k] = str(x, `${what}: ${k}`);
  return out;
}

function replicaMap(v: Record<string, unknown>, topic: string): Record<number, number[]> {
  const out: Record<number, number[]> = {};
  for (const [k, x] of Object.entries(v)) out[Number(k)] = ints(x, `${topic} reassignment`);
  return out;
}
