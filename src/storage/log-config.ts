// Per-topic log configuration: Kafka's topic-level keys (`segment.bytes`, `retention.ms`, ...)
// as camelCase fields, with Kafka's defaults. The broker keeps topic overrides as Kafka's
// dotted strings and converts them with `logConfigFromProperties`; `logConfigToProperties`
// renders a config back for DescribeConfigs.
import { ErrorCode, KafkaError } from '../protocol/errors.js';

export type CleanupPolicy = 'delete' | 'compact' | 'compact,delete';
export type TimestampType = 'CreateTime' | 'LogAppendTime';

export interface LogConfig {
  /** segment.bytes: roll the active segment once it would grow past this. */
  segmentBytes: number;
  /** segment.ms: roll once the active segment's first batch is this old. */
  segmentMs: number;
  /** segment.jitter.ms: random reduction of segment.ms so partitions do not roll together. */
  segmentJitterMs: number;
  /** segment.index.bytes: maximum size of a segment's `.index`/`.timeindex`; full → roll. */
  segmentIndexBytes: number;
  /** index.interval.bytes: bytes of log between two offset-index entries. */
  indexIntervalBytes: number;
  /** retention.ms: delete segments whose newest record is older; -1 = keep forever. */
  retentionMs: number;
  /** retention.bytes: delete oldest segments while the log is larger; -1 = unlimited. */
  retentionBytes: number;
  cleanupPolicy: CleanupPolicy;
  /** delete.retention.ms: how long compaction keeps tombstones (and aborted-txn markers). */
  deleteRetentionMs: number;
  /** min.compaction.lag.ms: records younger than this are never compacted. */
  minCompactionLagMs: number;
  /** max.compaction.lag.ms: a log with dirty records older than this is compacted regardless of ratio. */
  maxCompactionLagMs: number;
  /** min.cleanable.dirty.ratio: compact when dirty bytes / total bytes reach this. */
  minCleanableDirtyRatio: number;
  /** flush.messages: fsync after this many records; Infinity = never (page cache only). */
  flushMessages: number;
  /** flush.ms: fsync when the oldest unflushed append is this old; Infinity = never. */
  flushMs: number;
  messageTimestampType: TimestampType;
  /** max.message.bytes: largest batch accepted (after compression). */
  maxMessageBytes: number;
  /** file.delete.delay.ms: deleted segments are renamed `.deleted` and removed this much later. */
  fileDeleteDelayMs: number;
  /** message.timestamp.before.max.ms / after.max.ms: CreateTime skew allowed vs broker time. */
  messageTimestampBeforeMaxMs: number;
  messageTimestampAfterMaxMs: number;
}

const DAY = 24 * 60 * 60 * 1000;

/** Kafka's defaults (`LogConfig.java`, `ServerLogConfigs.java`). */
export const DEFAULT_LOG_CONFIG: Readonly<LogConfig> = Object.freeze({
  segmentBytes: 1024 * 1024 * 1024,
  segmentMs: 7 * DAY,
  segmentJitterMs: 0,
  segmentIndexBytes: 10 * 1024 * 1024,
  indexIntervalBytes: 4096,
  retentionMs: 7 * DAY,
  retentionBytes: -1,
  cleanupPolicy: 'delete',
  deleteRetentionMs: DAY,
  minCompactionLagMs: 0,
  maxCompactionLagMs: Number.POSITIVE_INFINITY,
  minCleanableDirtyRatio: 0.5,
  flushMessages: Number.POSITIVE_INFINITY,
  flushMs: Number.POSITIVE_INFINITY,
  messageTimestampType: 'CreateTime',
  maxMessageBytes: 1024 * 1024 + 12,
  fileDeleteDelayMs: 60_000,
  messageTimestampBeforeMaxMs: Number.POSITIVE_INFINITY,
  messageTimestampAfterMaxMs: Number.POSITIVE_INFINITY,
});

type Kind = 'int' | 'long' | 'ratio' | 'policy' | 'tstype';

/** Kafka key → [field, kind, minimum]. `long` values of Long.MAX_VALUE mean "unset" (Infinity). */
const KEYS: Record<string, [keyof LogConfig, Kind, number]> = {
  'segment.bytes': ['segmentBytes', 'int', 14],
  'segment.ms': ['segmentMs', 'long', 1],
  'segment.jitter.ms': ['segmentJitterMs', 'long', 0],
  'segment.index.bytes': ['segmentIndexBytes', 'int', 4],
  'index.interval.bytes': ['indexIntervalBytes', 'int', 0],
  'retention.ms': ['retentionMs', 'long', -1],
  'retention.bytes': ['retentionBytes', 'long', -1],
  'cleanup.policy': ['cleanupPolicy', 'policy', 0],
  'delete.retention.ms': ['deleteRetentionMs', 'long', 0],
  'min.compaction.lag.ms': ['minCompactionLagMs', 'long', 0],
  'max.compaction.lag.ms': ['maxCompactionLagMs', 'long', 1],
  'min.cleanable.dirty.ratio': ['minCleanableDirtyRatio', 'ratio', 0],
  'flush.messages': ['flushMessages', 'long', 1],
  'flush.ms': ['flushMs', 'long', 0],
  'message.timestamp.type': ['messageTimestampType', 'tstype', 0],
  'max.message.bytes': ['maxMessageBytes', 'int', 0],
  'file.delete.delay.ms': ['fileDeleteDelayMs', 'long', 0],
  'message.timestamp.before.max.ms': ['messageTimestampBeforeMaxMs', 'long', 0],
  'message.timestamp.after.max.ms': ['messageTimestampAfterMaxMs', 'long', 0],
  // Deprecated alias kept by Kafka 3.x: one bound for both directions.
  'message.timestamp.difference.max.ms': ['messageTimestampBeforeMaxMs', 'long', 0],
};

const LONG_MAX = 9223372036854775807n;
const INT_MAX = 2147483647;

/** The Kafka topic-config names this module understands. */
export const LOG_CONFIG_KEYS: readonly string[] = Object.keys(KEYS);

function invalid(key: string, value: string, why: string): KafkaError {
  return new KafkaError(
    ErrorCode.INVALID_CONFIG,
    `Invalid value ${JSON.stringify(value)} for ${key}: ${why}`,
  );
}

function parseValue(key: string, raw: string, kind: Kind, min: number): LogConfig[keyof LogConfig] {
  const value = raw.trim();
  switch (kind) {
    case 'policy': {
      const parts = value
        .split(',')
        .map((p) => p.trim().toLowerCase())
        .filter((p) => p !== '');
      const set = new Set(parts);
      if (parts.length === 0 || [...set].some((p) => p !== 'delete' && p !== 'compact')) {
        throw invalid(key, raw, "expected 'delete', 'compact' or 'compact,delete'");
      }
      return set.size === 2 ? 'compact,delete' : (parts[0] as 'delete' | 'compact');
    }
    case 'tstype':
      if (value !== 'CreateTime' && value !== 'LogAppendTime')
        throw invalid(key, raw, 'expected CreateTime or LogAppendTime');
      return value;
    case 'ratio': {
      const n = Number(value);
      if (value === '' || !Number.isFinite(n) || n < 0 || n > 1)
        throw invalid(key, raw, 'expected a number in [0, 1]');
      return n;
    }
    default: {
      if (!/^-?\d+$/.test(value)) throw invalid(key, raw, 'expected an integer');
      const big = BigInt(value);
      if (big < BigInt(min)) throw invalid(key, raw, `must be at least ${min}`);
      if (kind === 'int') {
        if (big > BigInt(INT_MAX)) throw invalid(key, raw, 'must fit in an int32');
        return Number(big);
      }
      if (big > LONG_MAX) throw invalid(key, raw, 'must fit in an int64');
      // Kafka spells "unset" as Long.MAX_VALUE; anything beyond 2^53 is as good as forever.
      return big > BigInt(Number.MAX_SAFE_INTEGER) ? Number.POSITIVE_INFINITY : Number(big);
    }
  }
}

/**
 * Converts Kafka's dotted topic-config names (`retention.ms`, `cleanup.policy`, ...) into a
 * partial `LogConfig`. Keys this layer does not own (e.g. `min.insync.replicas`) are ignored.
 * Throws `KafkaError(INVALID_CONFIG)` for a malformed value of a known key.
 */
export function logConfigFromProperties(
  props: ReadonlyMap<string, string | null> | Readonly<Record<string, string | null | undefined>>,
): Partial<LogConfig> {
  const out: Partial<Record<keyof LogConfig, LogConfig[keyof LogConfig]>> = {};
  const entries = props instanceof Map ? [...props.entries()] : Object.entries(props);
  for (const [key, raw] of entries) {
    const spec = KEYS[key];
    if (spec === undefined || raw === null || raw === undefined) continue;
    const [field, kind, min] = spec;
    const value = parseValue(key, raw, kind, min);
    out[field] = value;
    if (key === 'message.timestamp.difference.max.ms') out.messageTimestampAfterMaxMs = value;
  }
  return out as Partial<LogConfig>;
}

/** Renders a config with Kafka's names and spellings (Infinity → Long.MAX_VALUE). */
export function logConfigToProperties(config: LogConfig): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, [field]] of Object.entries(KEYS)) {
    if (key === 'message.timestamp.difference.max.ms') continue;
    const v = config[field];
    out[key] = v === Number.POSITIVE_INFINITY ? LONG_MAX.toString() : String(v);
  }
  return out;
}

/** Defaults ← broker defaults ← topic overrides. */
export function resolveLogConfig(...layers: (Partial<LogConfig> | undefined)[]): LogConfig {
  const out: LogConfig = { ...DEFAULT_LOG_CONFIG };
  for (const layer of layers) {
    if (layer === undefined) continue;
    for (const [k, v] of Object.entries(layer)) {
      if (v !== undefined) (out as unknown as Record<string, unknown>)[k] = v;
    }
  }
  return out;
}

export function isCompacted(config: LogConfig): boolean {
  return config.cleanupPolicy !== 'delete';
}

export function isDeleteRetained(config: LogConfig): boolean {
  return config.cleanupPolicy !== 'compact';
}
