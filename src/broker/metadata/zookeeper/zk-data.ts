// The contents of Kafka's znodes (Kafka 3.x ZkData.scala), as pure encode/decode functions: the
// cluster id, broker registrations, the controller and its epoch, topic assignments and partition
// states. Configs, notifications, admin requests, producer id blocks and features are in
// zk-data-admin.ts; paths in zk-paths.ts; all three are re-exported from here.
//
// Encoders write what Kafka 3.x writes (same keys, same JSON types: e.g. timestamps as strings,
// the cluster id's version as the string "1"). Decoders accept what Kafka accepts, check the type
// of every field they use, and check versions only where Kafka does.

import { JsonObjectReader, jsonBytes, ZkDataError, znodeText } from './zk-json.js';

export * from './zk-data-admin.js';
export { ZkDataError } from './zk-json.js';
export * from './zk-paths.js';

// ---- /cluster/id -------------------------------------------------------------------------------

export function encodeClusterId(id: string): Buffer {
  return jsonBytes({ version: '1', id });
}

export function decodeClusterId(data: Buffer | null): string {
  const r: JsonObjectReader = JsonObjectReader.parse(data, '/cluster/id');
  const id = r.string('id');
  if (id === '') r.fail('id', 'is empty');
  return id;
}

// ---- /brokers/ids/<id> -------------------------------------------------------------------------

export const SECURITY_PROTOCOLS = ['PLAINTEXT', 'SSL', 'SASL_PLAINTEXT', 'SASL_SSL'] as const;
export type SecurityProtocol = (typeof SECURITY_PROTOCOLS)[number];

export interface BrokerEndpoint {
  /** Upper case, as Kafka normalises listener names. */
  readonly listenerName: string;
  /** '' when advertised without a host. */
  readonly host: string;
  readonly port: number;
  readonly securityProtocol: SecurityProtocol;
}

/** A supported feature range, KIP-584 (`{"min_version":1,"max_version":3}` in JSON). */
export interface SupportedFeatureRange {
  readonly minVersion: number;
  readonly maxVersion: number;
}

export interface BrokerRegistrationInput {
  /** Advertised listeners, in order. */
  readonly endpoints: readonly BrokerEndpoint[];
  readonly rack?: string | null;
  /** -1: no JMX (Kafka's default). */
  readonly jmxPort?: number;
  readonly features?: Readonly<Record<string, SupportedFeatureRange>>;
}

export interface BrokerRegistration {
  readonly id: number;
  /** The JSON version read (Kafka 3.x writes 5). */
  readonly version: number;
  readonly endpoints: BrokerEndpoint[];
  readonly rack: string | null;
  readonly jmxPort: number;
  readonly features: Record<string, SupportedFeatureRange>;
  /** Registration time (ms), when present. */
  readonly timestampMs: number | null;
}

/** Kafka's EndPoint.connectionString: `NAME://host:port`, IPv6 hosts in brackets. */
export function endpointString(e: BrokerEndpoint): string {
  const host = e.host.includes(':') ? `[${e.host}]` : e.host;
  return `${e.listenerName}://${host}:${e.port}`;
}

/** Version 5 JSON (Kafka ≥ 2.7). The top-level host/port are the first PLAINTEXT endpoint, for old clients. */
export function encodeBrokerRegistration(b: BrokerRegistrationInput, timestampMs = Date.now()): Buffer {
  const plaintext = b.endpoints.find((e) => e.securityProtocol === 'PLAINTEXT');
  const json: Record<string, unknown> = {
    version: 5,
    host: plaintext ? plaintext.host : null,
    port: plaintext ? plaintext.port : -1,
    endpoints: b.endpoints.map(endpointString),
    jmx_port: b.jmxPort ?? -1,
    timestamp: String(timestampMs),
  };
  if (b.rack !== undefined && b.rack !== null) json['rack'] = b.rack;
  json['listener_security_protocol_map'] = Object.fromEntries(
    b.endpoints.map((e) => [e.listenerName, e.securityProtocol]),
  );
  json['features'] = Object.fromEntries(
    Object.entries(b.features ?? {}).map(([name, r]) => [
      name,
      { min_version: r.minVersion, max_version: r.maxVersion },
    ]),
  );
  return jsonBytes(json);
}

const ENDPOINT_RE = /^(.*):\/\/\[?([0-9a-zA-Z\-%._:]*)\]?:(-?[0-9]+)$/;

function isSecurityProtocol(s: string): s is SecurityProtocol {
  return (SECURITY_PROTOCOLS as readonly string[]).includes(s);
}

export function decodeBrokerRegistration(id: number, data: Buffer | null): BrokerRegistration {
  const what = `/brokers/ids/${id}`;
  const r: JsonObjectReader = JsonObjectReader.parse(data, what);
  const version = r.int32('version');
  if (version < 1) r.fail('version', `${version} is not a supported broker registration version`);
  const jmxPort = r.int32('jmx_port');
  let endpoints: BrokerEndpoint[];
  if (version === 1) {
    endpoints = [
      {
        listenerName: 'PLAINTEXT',
        host: r.string('host'),
        port: r.int32('port'),
        securityProtocol: 'PLAINTEXT',
      },
    ];
  } else {
    // Without a map (versions 2–3) a listener is named after its protocol.
    const protocols = new Map<string, SecurityProtocol>(SECURITY_PROTOCOLS.map((p) => [p, p]));
    const map = r.optionalObject('listener_security_protocol_map');
    if (map) {
      protocols.clear();
      for (const name of map.keys()) {
        const p = map.string(name);
        protocols.set(
          name.toUpperCase(),
          isSecurityProtocol(p) ? p : map.fail(name, `is not a security protocol: ${JSON.stringify(p)}`),
        );
      }
    }
    endpoints = r.array('endpoints').map((v, i) => {
      if (typeof v !== 'string') return r.fail(`endpoints[${i}]`, 'must be a string');
      const m = ENDPOINT_RE.exec(v);
      if (!m) return r.fail(`endpoints[${i}]`, `is not NAME://host:port: ${JSON.stringify(v)}`);
      const listenerName = m[1]!.toUpperCase();
      const port = Number(m[3]);
      if (!Number.isInteger(port) || port < -1 || port > 65535)
        return r.fail(`endpoints[${i}]`, `has a bad port: ${v}`);
      const securityProtocol = protocols.get(listenerName);
      if (!securityProtocol)
        return r.fail(`endpoints[${i}]`, `names listener ${listenerName}, which has no security protocol`);
      return { listenerName, host: m[2]!, port, securityProtocol };
    });
  }
  const rack = r.nullableString('rack');
  const features: Record<string, SupportedFeatureRange> = {};
  const fs = r.get('features') === null ? undefined : r.optionalObject('features');
  for (const name of fs?.keys() ?? []) {
    const f = fs!.object(name);
    const minVersion = f.int32('min_version');
    const maxVersion = f.int32('max_version');
    if (minVersion < 0 || maxVersion < minVersion || maxVersion > 0x7fff)
      f.fail(
        'max_version',
        `must satisfy 0 <= min_version (${minVersion}) <= max_version (${maxVersion}) <= 32767`,
      );
    Object.defineProperty(features, name, {
      value: { minVersion, maxVersion },
      enumerable: true,
      writable: true,
    });
  }
  const ts = r.get('timestamp');
  const timestampMs = typeof ts === 'string' && /^\d{1,16}$/.test(ts) ? Number(ts) : null;
  return { id, version, endpoints, rack, jmxPort, features, timestampMs };
}

// ---- /controller, /controller_epoch ------------------------------------------------------------

/** The epoch /controller_epoch is created with, and its data version then. */
export const INITIAL_CONTROLLER_EPOCH = 0;
export const INITIAL_CONTROLLER_EPOCH_ZK_VERSION = 0;

export interface ControllerRegistration {
  readonly brokerId: number;
  readonly timestampMs: number | null;
  /** Only KRaft controllers in a ZooKeeper migration write a value > -1 (version 2). */
  readonly kraftControllerEpoch: number | null;
}

/** What Kafka 3.4+ writes: version 2 with kraftControllerEpoch -1 (3.0–3.3 wrote version 1 without it). */
export function encodeController(brokerId: number, timestampMs = Date.now()): Buffer {
  return jsonBytes({
    version: 2,
    brokerid: brokerId,
    timestamp: String(timestampMs),
    kraftControllerEpoch: -1,
  });
}

export function decodeController(data: Buffer | null): ControllerRegistration {
  const r: JsonObjectReader = JsonObjectReader.parse(data, '/controller');
  const brokerId = r.int32('brokerid');
  const ts = r.get('timestamp');
  const timestampMs = typeof ts === 'string' && /^\d{1,16}$/.test(ts) ? Number(ts) : null;
  const kraftControllerEpoch = r.optionalInt32('kraftControllerEpoch') ?? null;
  return { brokerId, timestampMs, kraftControllerEpoch };
}

export function encodeControllerEpoch(epoch: number): Buffer {
  if (!Number.isInteger(epoch) || epoch < 0 || epoch > 0x7fffffff)
    throw new Error(`invalid controller epoch ${epoch}`);
  return Buffer.from(String(epoch), 'utf8');
}

export function decodeControllerEpoch(data: Buffer | null): number {
  const text = znodeText(data, '/controller_epoch');
  // Java's Integer.parseInt: optional sign, decimal digits, nothing else (no spaces).
  if (!/^[+-]?\d{1,10}$/.test(text))
    throw new ZkDataError('/controller_epoch', 'not a decimal integer', text);
  const n = Number(text);
  if (n < -0x80000000 || n > 0x7fffffff)
    throw new ZkDataError('/controller_epoch', 'out of the 32-bit range', text);
  return n;
}

// ---- /brokers/topics/<topic> -------------------------------------------------------------------

export interface PartitionReplicaAssignment {
  readonly replicas: readonly number[];
  /** Non-empty during a reassignment. */
  readonly addingReplicas: readonly number[];
  readonly removingReplicas: readonly number[];
}

export interface TopicAssignment {
  /** Kafka's Uuid text form (22 chars URL-safe base64), null for topics created before 2.8. */
  readonly topicId: string | null;
  readonly partitions: ReadonlyMap<number, PartitionReplicaAssignment>;
}

function isTopicId(s: string): boolean {
  return /^[A-Za-z0-9_-]{22}$/.test(s) && Buffer.from(s, 'base64url').length === 16;
}

/** Version 3: partitions, adding_replicas, removing_replicas (only non-empty lists), topic_id. */
export function encodeTopicAssignment(a: TopicAssignment): Buffer {
  const ids = [...a.partitions.keys()].sort((x, y) => x - y);
  const pick = (f: (p: PartitionReplicaAssignment) => readonly number[], skipEmpty: boolean) =>
    Object.fromEntries(
      ids.flatMap((p) => {
        const list = f(a.partitions.get(p)!);
        return skipEmpty && list.length === 0 ? [] : [[String(p), [...list]]];
      }),
    );
  const json: Record<string, unknown> = {
    version: 3,
    partitions: pick((p) => p.replicas, false),
    adding_replicas: pick((p) => p.addingReplicas, true),
    removing_replicas: pick((p) => p.removingReplicas, true),
  };
  if (a.topicId !== null) {
    if (!isTopicId(a.topicId)) throw new Error(`invalid topic id ${JSON.stringify(a.topicId)}`);
    json['topic_id'] = a.topicId;
  }
  return jsonBytes(json);
}

export function decodeTopicAssignment(topic: string, data: Buffer | null): TopicAssignment {
  const r: JsonObjectReader = JsonObjectReader.parse(data, `/brokers/topics/${topic}`);
  const topicId = r.optionalString('topic_id') ?? null;
  if (topicId !== null && !isTopicId(topicId))
    r.fail('topic_id', `is not a Kafka uuid: ${JSON.stringify(topicId)}`);
  const adding = r.optionalObject('adding_replicas');
  const removing = r.optionalObject('removing_replicas');
  const parts = r.optionalObject('partitions');
  const partitions = new Map<number, PartitionReplicaAssignment>();
  for (const key of parts?.keys() ?? []) {
    if (!/^\d{1,10}$/.test(key) || Number(key) > 0x7fffffff) parts!.fail(key, 'is not a partition number');
    const extra = (o: JsonObjectReader | undefined) => (o?.has(key) ? o.int32Array(key) : []);
    partitions.set(Number(key), {
      replicas: parts!.int32Array(key),
      addingReplicas: extra(adding),
      removingReplicas: extra(removing),
    });
  }
  return { topicId, partitions };
}

// ---- /brokers/topics/<topic>/partitions/<p>/state ----------------------------------------------

/** 0: RECOVERED; 1: RECOVERING (an unclean leader that has not yet been joined by others, KIP-704). */
export type LeaderRecoveryState = 0 | 1;

export interface PartitionState {
  readonly leader: number;
  readonly leaderEpoch: number;
  readonly isr: readonly number[];
  readonly controllerEpoch: number;
  readonly leaderRecoveryState: LeaderRecoveryState;
}

/** Version 1; leader_recovery_state only when RECOVERING, as Kafka writes it. */
export function encodePartitionState(s: PartitionState): Buffer {
  const json: Record<string, unknown> = {
    version: 1,
    leader: s.leader,
    leader_epoch: s.leaderEpoch,
    controller_epoch: s.controllerEpoch,
    isr: [...s.isr],
  };
  if (s.leaderRecoveryState !== 0) json['leader_recovery_state'] = s.leaderRecoveryState;
  return jsonBytes(json);
}

export function decodePartitionState(topic: string, partition: number, data: Buffer | null): PartitionState {
  const r: JsonObjectReader = JsonObjectReader.parse(
    data,
    `/brokers/topics/${topic}/partitions/${partition}/state`,
  );
  const leader = r.int32('leader');
  const leaderEpoch = r.int32('leader_epoch');
  const isr = r.int32Array('isr');
  const controllerEpoch = r.int32('controller_epoch');
  const lrs = r.optionalInt32('leader_recovery_state') ?? 0;
  if (lrs !== 0 && lrs !== 1) r.fail('leader_recovery_state', `must be 0 or 1, got ${lrs}`);
  return { leader, leaderEpoch, isr, controllerEpoch, leaderRecoveryState: lrs };
}
