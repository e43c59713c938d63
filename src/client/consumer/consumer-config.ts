// Consumer options: camelCase versions of Kafka's consumer config keys with the Java client's
// defaults (ConsumerConfig.java), except isolation.level, which defaults to read_committed as in
// librdkafka and Java 4. Everything is validated at construction, including the relations Kafka
// enforces (heartbeat interval below the session timeout).
import {
  type ClientOptions,
  intOption,
  type ResolvedClientOptions,
  resolveClientOptions,
} from '../config.js';
import { ConfigError } from '../errors.js';
import { BUILTIN_ASSIGNORS, type PartitionAssignor, type RebalanceProtocol } from './assignors/index.js';
import type { RecordHeader } from './types.js';

/** Turns the bytes of a key or value into the application's type. */
export type Deserializer<T> = (data: Buffer | null, topic: string, headers: readonly RecordHeader[]) => T;

export type AutoOffsetReset = 'earliest' | 'latest' | 'none';
export type IsolationLevel = 'read_committed' | 'read_uncommitted';
/** group.protocol: 'classic' (JoinGroup/SyncGroup) or 'consumer' (KIP-848 ConsumerGroupHeartbeat). */
export type GroupProtocol = 'classic' | 'consumer';

/** Structured log sink; the consumer never writes to the console itself. */
export type ConsumerLogger = (
  level: 'debug' | 'info' | 'warn' | 'error',
  message: string,
  fields?: Record<string, unknown>,
) => void;

export interface ConsumerOptions<K = Buffer | null, V = Buffer | null> extends ClientOptions {
  /** group.id: needed for subscribe() and for committing offsets. */
  groupId?: string;
  /** group.instance.id: static membership (KIP-345). */
  groupInstanceId?: string;
  /**
   * group.protocol, default 'classic'. 'consumer' is KIP-848: the coordinator assigns, members
   * heartbeat with ConsumerGroupHeartbeat and rebalance incrementally (no stop-the-world); the
   * session timeout and heartbeat interval are then the broker's (group.consumer.*), and
   * partitionAssignmentStrategy is not used.
   */
  groupProtocol?: GroupProtocol;
  /** group.remote.assignor: the server assignor to ask for with groupProtocol 'consumer' ('uniform' | 'range'); default: the broker's. */
  groupRemoteAssignor?: string;
  /** session.timeout.ms, default 45000. */
  sessionTimeoutMs?: number;
  /** heartbeat.interval.ms, default 3000. */
  heartbeatIntervalMs?: number;
  /** max.poll.interval.ms, default 300000 (also the rebalance timeout). */
  maxPollIntervalMs?: number;
  /** partition.assignment.strategy: names or assignor objects, in order of preference. Default cooperative-sticky. */
  partitionAssignmentStrategy?: readonly (string | PartitionAssignor)[];
  /** enable.auto.commit, default true when a groupId is set. */
  enableAutoCommit?: boolean;
  /** auto.commit.interval.ms, default 5000. */
  autoCommitIntervalMs?: number;
  /** auto.offset.reset, default 'latest'. */
  autoOffsetReset?: AutoOffsetReset;
  /** isolation.level, default 'read_committed'. */
  isolationLevel?: IsolationLevel;
  /** fetch.min.bytes, default 1. */
  fetchMinBytes?: number;
  /** fetch.max.wait.ms, default 500. */
  fetchMaxWaitMs?: number;
  /** fetch.max.bytes, default 52428800. */
  fetchMaxBytes?: number;
  /** max.partition.fetch.bytes, default 1048576. */
  maxPartitionFetchBytes?: number;
  /** max.poll.records, default 500. */
  maxPollRecords?: number;
  /**
   * Upper bound on fetched-but-unconsumed record bytes plus bytes requested in flight
   * (librdkafka's queued.max.messages.kbytes in bytes), default 16 MiB. Prefetching stops at the
   * bound, so memory stays bounded whatever the backlog (plus at most one batch per broker, which
   * Kafka returns even when it exceeds the limits).
   */
  maxBufferedBytes?: number;
  /** check.crcs, default true. */
  checkCrcs?: boolean;
  /**
   * Incremental fetch sessions (KIP-227) with each broker, default true: after a first full
   * Fetch only changed partitions travel, both ways. false = sessionless full fetches (Samsa only).
   */
  fetchSessions?: boolean;
  /** client.rack, default ''. */
  clientRack?: string;
  /** default.api.timeout.ms: bound for commitSync, committed, position, offsetsForTimes; default 60000. */
  defaultApiTimeoutMs?: number;
  /** allow.auto.create.topics, default true. */
  allowAutoCreateTopics?: boolean;
  keyDeserializer?: Deserializer<K>;
  valueDeserializer?: Deserializer<V>;
  logger?: ConsumerLogger;
}

export interface ResolvedConsumerOptions extends ResolvedClientOptions {
  groupId: string | null;
  groupInstanceId: string | null;
  groupProtocol: GroupProtocol;
  groupRemoteAssignor: string | null;
  sessionTimeoutMs: number;
  heartbeatIntervalMs: number;
  maxPollIntervalMs: number;
  assignors: PartitionAssignor[];
  rebalanceProtocol: RebalanceProtocol;
  enableAutoCommit: boolean;
  autoCommitIntervalMs: number;
  autoOffsetReset: AutoOffsetReset;
  isolationLevel: 0 | 1;
  fetchMinBytes: number;
  fetchMaxWaitMs: number;
  fetchMaxBytes: number;
  maxPartitionFetchBytes: number;
  maxPollRecords: number;
  maxBufferedBytes: number;
  checkCrcs: boolean;
  fetchSessions: boolean;
  clientRack: string;
  defaultApiTimeoutMs: number;
  allowAutoCreateTopics: boolean;
  logger: ConsumerLogger;
}

const noLog: ConsumerLogger = () => {};

function oneOf<T extends string>(name: string, v: T | undefined, allowed: readonly T[], def: T): T {
  if (v === undefined) return def;
  if (!allowed.includes(v))
    throw new ConfigError(`${name} must be one of ${allowed.join(', ')}, got ${String(v)}`);
  return v;
}

function resolveAssignors(list: readonly (string | PartitionAssignor)[] | undefined): PartitionAssignor[] {
  const items = list ?? ['cooperative-sticky'];
  if (items.length === 0)
    throw new ConfigError('partitionAssignmentStrategy must name at least one assignor');
  const out = items.map((a) => {
    if (typeof a !== 'string') return a;
    const make = BUILTIN_ASSIGNORS[a];
    if (make === undefined)
      throw new ConfigError(
        `unknown assignor "${a}" (built in: ${Object.keys(BUILTIN_ASSIGNORS).join(', ')})`,
      );
    return make();
  });
  if (new Set(out.map((a) => a.name)).size !== out.length)
    throw new ConfigError('partitionAssignmentStrategy lists an assignor twice');
  return out;
}

function resolveRemoteAssignor(name: string | undefined): string | null {
  if (name === undefined) return null;
  const short = name.trim().toLowerCase();
  if (short === '') throw new ConfigError('groupRemoteAssignor must not be empty');
  // Java accepts the assignor's short name; Kafka's class names are mapped to it.
  if (short.endsWith('uniformassignor')) return 'uniform';
  if (short.endsWith('rangeassignor')) return 'range';
  return short;
}

export function resolveConsumerOptions(o: ConsumerOptions<unknown, unknown>): ResolvedConsumerOptions {
  const base = resolveClientOptions(o);
  const groupId = o.groupId ?? null;
  if (groupId === '') throw new ConfigError('groupId must not be empty');
  if (o.groupInstanceId !== undefined && o.groupInstanceId === '')
    throw new ConfigError('groupInstanceId must not be empty');
  const sessionTimeoutMs = intOption('sessionTimeoutMs', o.sessionTimeoutMs, 45000, 1);
  const heartbeatIntervalMs = intOption('heartbeatIntervalMs', o.heartbeatIntervalMs, 3000, 1);
  if (heartbeatIntervalMs >= sessionTimeoutMs)
    throw new ConfigError('heartbeatIntervalMs must be lower than sessionTimeoutMs');
  const assignors = resolveAssignors(o.partitionAssignmentStrategy);
  // Like Java: cooperative only if every configured assignor supports it.
  const rebalanceProtocol: RebalanceProtocol = assignors.every((a) => a.protocols.includes('COOPERATIVE'))
    ? 'COOPERATIVE'
    : 'EAGER';
  const enableAutoCommit = o.enableAutoCommit ?? groupId !== null;
  if (enableAutoCommit && groupId === null) throw new ConfigError('enableAutoCommit needs a groupId');
  const fetchMaxBytes = intOption('fetchMaxBytes', o.fetchMaxBytes, 52428800, 1);
  return {
    ...base,
    groupId,
    groupInstanceId: o.groupInstanceId ?? null,
    // Kafka's names are upper case (CLASSIC, CONSUMER) in properties files; both spellings work.
    groupProtocol: oneOf(
      'groupProtocol',
      o.groupProtocol?.toLowerCase() as GroupProtocol | undefined,
      ['classic', 'consumer'],
      'classic',
    ),
    groupRemoteAssignor: resolveRemoteAssignor(o.groupRemoteAssignor),
    sessionTimeoutMs,
    heartbeatIntervalMs,
    maxPollIntervalMs: intOption('maxPollIntervalMs', o.maxPollIntervalMs, 300000, 1),
    assignors,
    rebalanceProtocol,
    enableAutoCommit,
    autoCommitIntervalMs: intOption('autoCommitIntervalMs', o.autoCommitIntervalMs, 5000, 0),
    autoOffsetReset: oneOf('autoOffsetReset', o.autoOffsetReset, ['earliest', 'latest', 'none'], 'latest'),
    isolationLevel:
      oneOf('isolationLevel', o.isolationLevel, ['read_committed', 'read_uncommitted'], 'read_committed') ===
      'read_committed'
        ? 1
        : 0,
    fetchMinBytes: intOption('fetchMinBytes', o.fetchMinBytes, 1, 0),
    fetchMaxWaitMs: intOption('fetchMaxWaitMs', o.fetchMaxWaitMs, 500, 0),
    fetchMaxBytes,
    maxPartitionFetchBytes: intOption('maxPartitionFetchBytes', o.maxPartitionFetchBytes, 1048576, 1),
    maxPollRecords: intOption('maxPollRecords', o.maxPollRecords, 500, 1),
    maxBufferedBytes: intOption('maxBufferedBytes', o.maxBufferedBytes, 16 * 1024 * 1024, 1),
    checkCrcs: o.checkCrcs ?? true,
    fetchSessions: o.fetchSessions ?? true,
    clientRack: o.clientRack ?? '',
    defaultApiTimeoutMs: intOption('defaultApiTimeoutMs', o.defaultApiTimeoutMs, 60000, 1),
    allowAutoCreateTopics: o.allowAutoCreateTopics ?? true,
    logger: o.logger ?? noLog,
  };
}

// Kafka consumer property → option name and type, for the CLI's --consumer-props.
const CONSUMER_KEYS: Record<string, [string, 'int' | 'string' | 'bool' | 'list' | 'kbytes']> = {
  'group.id': ['groupId', 'string'],
  'group.instance.id': ['groupInstanceId', 'string'],
  'group.protocol': ['groupProtocol', 'string'],
  'group.remote.assignor': ['groupRemoteAssignor', 'string'],
  'session.timeout.ms': ['sessionTimeoutMs', 'int'],
  'heartbeat.interval.ms': ['heartbeatIntervalMs', 'int'],
  'max.poll.interval.ms': ['maxPollIntervalMs', 'int'],
  'partition.assignment.strategy': ['partitionAssignmentStrategy', 'list'],
  'enable.auto.commit': ['enableAutoCommit', 'bool'],
  'auto.commit.interval.ms': ['autoCommitIntervalMs', 'int'],
  'auto.offset.reset': ['autoOffsetReset', 'string'],
  'isolation.level': ['isolationLevel', 'string'],
  'fetch.min.bytes': ['fetchMinBytes', 'int'],
  'fetch.max.wait.ms': ['fetchMaxWaitMs', 'int'],
  'fetch.max.bytes': ['fetchMaxBytes', 'int'],
  'max.partition.fetch.bytes': ['maxPartitionFetchBytes', 'int'],
  'max.poll.records': ['maxPollRecords', 'int'],
  'queued.max.messages.kbytes': ['maxBufferedBytes', 'kbytes'],
  'check.crcs': ['checkCrcs', 'bool'],
  'client.rack': ['clientRack', 'string'],
  'default.api.timeout.ms': ['defaultApiTimeoutMs', 'int'],
  'allow.auto.create.topics': ['allowAutoCreateTopics', 'bool'],
  'bootstrap.servers': ['bootstrapServers', 'string'],
  'client.id': ['clientId', 'string'],
  'request.timeout.ms': ['requestTimeoutMs', 'int'],
  'retry.backoff.ms': ['retryBackoffMs', 'int'],
  'metadata.max.age.ms': ['metadataMaxAgeMs', 'int'],
};

/** Converts `{ 'max.poll.records': '100' }` into consumer options; unknown keys are an error. */
export function consumerOptionsFromProperties(props: Record<string, string>): Partial<ConsumerOptions> {
  const out: Record<string, unknown> = {};
  for (const [k, raw] of Object.entries(props)) {
    const spec = CONSUMER_KEYS[k];
    if (spec === undefined) throw new ConfigError(`unknown or unsupported consumer property "${k}"`);
    const [name, type] = spec;
    const v = raw.trim();
    if (type === 'string') out[name] = v;
    else if (type === 'list')
      out[name] = v
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== '');
    else if (type === 'bool') {
      if (v !== 'true' && v !== 'false') throw new ConfigError(`${k} must be true or false`);
      out[name] = v === 'true';
    } else {
      if (!/^\d+$/.test(v)) throw new ConfigError(`${k} must be a non-negative integer`);
      out[name] = type === 'kbytes' ? Number(v) * 1024 : Number(v);
    }
  }
  return out as Partial<ConsumerOptions>;
}
