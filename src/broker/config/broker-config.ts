// The broker's typed configuration, built from Kafka-style properties (file, then overrides)
// and validated against BROKER_CONFIGS. Unknown keys are kept (Kafka only warns about them)
// so that a stock `server.properties` loads unchanged.

import { readFileSync } from 'node:fs';
import { BROKER_CONFIGS, parseHostPort } from './broker-configs.js';
import { parseList, toBoolean, toNumber, validateConfigValue } from './config-def.js';
import { ConfigError } from './config-error.js';
import { type ListenerEndpoint, type ListenersConfig, resolveListeners } from './listeners.js';
import { parseProperties } from './properties.js';

export { ConfigError };

export interface BrokerConfig {
  readonly nodeId: number;
  /** Address to bind of the first listener. */
  readonly host: string;
  readonly port: number;
  /** Advertised address of the first listener; null = derive from the bound address. */
  readonly advertisedHost: string | null;
  readonly advertisedPort: number | null;
  /** Every listener (bound, advertised) and the inter-broker listener's name. */
  readonly listeners: ListenersConfig;
  readonly rack: string | null;
  readonly logDirs: readonly string[];
  readonly socketRequestMaxBytes: number;
  /** Broker-wide budget for requests being buffered/handled; <= 0 = unlimited. */
  readonly queuedMaxRequestBytes: number;
  /** `num.network.threads`: 1 = the event loop does the socket I/O; N = N − 1 network threads do. */
  readonly numNetworkThreads: number;
  readonly connectionsMaxIdleMs: number;
  readonly maxConnections: number;
  readonly fetchMaxBytes: number;
  readonly numPartitions: number;
  readonly defaultReplicationFactor: number;
  readonly autoCreateTopicsEnable: boolean;
  readonly deleteTopicEnable: boolean;
  readonly logFlushOffsetCheckpointIntervalMs: number;
  readonly logRetentionCheckIntervalMs: number;
  /** `zookeeper.connect`; null = the embedded single broker (local metadata store). */
  readonly zookeeperConnect: string | null;
  readonly zookeeperSessionTimeoutMs: number;
  readonly zookeeperConnectionTimeoutMs: number;
  readonly controlledShutdownEnable: boolean;
  readonly controlledShutdownMaxRetries: number;
  readonly controlledShutdownRetryBackoffMs: number;
  /** `auto.leader.rebalance.enable`, `leader.imbalance.check.interval.seconds` (as ms), `leader.imbalance.per.broker.percentage`. */
  readonly leaderRebalance: {
    readonly enable: boolean;
    readonly checkIntervalMs: number;
    readonly imbalancePerBrokerPercentage: number;
  };
  /** `http.listener`: where /metrics and /health are served; null = no HTTP listener. */
  readonly httpListener: { readonly host: string; readonly port: number } | null;
  /** Every key supplied statically (file + overrides), as strings. */
  readonly props: ReadonlyMap<string, string>;
}

export interface BrokerConfigInput {
  /** Path of a `server.properties` file. */
  configFile?: string;
  /** Applied after the file; `undefined` values are ignored. */
  overrides?: Readonly<Record<string, string | number | boolean | undefined>>;
  host?: string;
  port?: number;
  dataDir?: string;
  nodeId?: number;
}

export function loadBrokerConfig(input: BrokerConfigInput = {}): BrokerConfig {
  const props = new Map<string, string>();
  if (input.configFile !== undefined) {
    let text: string;
    try {
      text = readFileSync(input.configFile, 'utf8');
    } catch (e) {
      throw new ConfigError(`cannot read config file ${input.configFile}: ${(e as Error).message}`);
    }
    for (const [k, v] of parseProperties(text)) props.set(k, v);
  }
  for (const [k, v] of Object.entries(input.overrides ?? {})) if (v !== undefined) props.set(k, String(v));
  if (input.dataDir !== undefined) {
    props.set('log.dirs', input.dataDir);
  }
  if (input.nodeId !== undefined) props.set('node.id', String(input.nodeId));
  if (input.host !== undefined || input.port !== undefined) {
    // --host/--port move the first listener; the others stay as configured.
    const [first, ...rest] = parseList(props.get('listeners') ?? BROKER_CONFIGS.get('listeners')!.default!);
    const current = parseListener(first ?? '');
    const host = input.host ?? current.host;
    const port = input.port ?? current.port;
    props.set('listeners', [`${current.name}://${formatHost(host)}:${port}`, ...rest].join(','));
  }
  return buildBrokerConfig(props);
}

/** Validates every known key and derives the typed view. */
export function buildBrokerConfig(props: ReadonlyMap<string, string>): BrokerConfig {
  for (const [k, v] of props) {
    const d = BROKER_CONFIGS.get(k);
    if (!d) continue;
    const err = validateConfigValue(d, v);
    if (err) throw new ConfigError(err);
  }
  const get = (k: string): string | null => props.get(k) ?? BROKER_CONFIGS.get(k)?.default ?? null;
  const num = (k: string): number => toNumber(get(k)!);
  const listeners = resolveListeners(get, (k) => props.has(k));
  const listener = bindAddress(listeners.listeners[0]!);
  const advertised = props.get('advertised.listeners')
    ? listeners.advertised.find((a) => a.name === listeners.listeners[0]!.name)
    : undefined;
  const nodeIdRaw = props.get('node.id') ?? props.get('broker.id') ?? get('node.id')!;
  const logDirs = parseList(get('log.dirs') ?? get('log.dir')!);
  if (logDirs.length === 0) throw new ConfigError('log.dirs must name at least one directory');
  return {
    nodeId: toNumber(nodeIdRaw),
    host: listener.host,
    port: listener.port,
    advertisedHost: advertised?.host || null,
    advertisedPort: advertised ? advertised.port : null,
    listeners,
    rack: get('broker.rack'),
    logDirs,
    socketRequestMaxBytes: num('socket.request.max.bytes'),
    queuedMaxRequestBytes: num('queued.max.request.bytes'),
    numNetworkThreads: num('num.network.threads'),
    connectionsMaxIdleMs: num('connections.max.idle.ms'),
    maxConnections: num('max.connections'),
    fetchMaxBytes: num('fetch.max.bytes'),
    numPartitions: num('num.partitions'),
    defaultReplicationFactor: num('default.replication.factor'),
    autoCreateTopicsEnable: toBoolean(get('auto.create.topics.enable')!),
    deleteTopicEnable: toBoolean(get('delete.topic.enable')!),
    logFlushOffsetCheckpointIntervalMs: num('log.flush.offset.checkpoint.interval.ms'),
    logRetentionCheckIntervalMs: num('log.retention.check.interval.ms'),
    zookeeperConnect: get('zookeeper.connect')?.trim() || null,
    zookeeperSessionTimeoutMs: num('zookeeper.session.timeout.ms'),
    zookeeperConnectionTimeoutMs: toNumber(
      get('zookeeper.connection.timeout.ms') ?? get('zookeeper.session.timeout.ms')!,
    ),
    controlledShutdownEnable: toBoolean(get('controlled.shutdown.enable')!),
    controlledShutdownMaxRetries: num('controlled.shutdown.max.retries'),
    controlledShutdownRetryBackoffMs: num('controlled.shutdown.retry.backoff.ms'),
    leaderRebalance: {
      enable: toBoolean(get('auto.leader.rebalance.enable')!),
      checkIntervalMs: num('leader.imbalance.check.interval.seconds') * 1000,
      imbalancePerBrokerPercentage: num('leader.imbalance.per.broker.percentage'),
    },
    httpListener: parseHostPort(props.get('http.listener') ?? ''),
    props,
  };
}

export interface Listener {
  readonly name: string;
  readonly host: string;
  readonly port: number;
}

/** Parses the first entry of a Kafka listener list, e.g. `PLAINTEXT://127.0.0.1:9092`. */
export function parseListener(value: string): Listener {
  const first = parseList(value)[0];
  const m = first ? /^([A-Za-z0-9_]+):\/\/(\[[^\]]*\]|[^:]*):(\d+)$/.exec(first) : null;
  if (!m) throw new ConfigError(`Invalid listener ${JSON.stringify(value)}: expected NAME://host:port`);
  const port = Number(m[3]);
  if (port > 65535) throw new ConfigError(`Invalid port in listener ${first}`);
  const host = m[2]!.startsWith('[') ? m[2]!.slice(1, -1) : m[2]!;
  // Kafka binds every interface when the host is empty.
  return { name: m[1]!, host: host === '' ? '0.0.0.0' : host, port };
}

/** Where a listener binds: Kafka binds every interface when the host is empty. */
export function bindAddress(l: ListenerEndpoint): { host: string; port: number } {
  return { host: l.host === '' ? '0.0.0.0' : l.host, port: l.port };
}

function formatHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}
