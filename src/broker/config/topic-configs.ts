// Topic-level configs with Kafka's names, types, defaults and validators (Kafka 3.x
// `LogConfig`/`TopicConfig`), plus the broker keys ("synonyms") that supply their defaults,
// in Kafka's order of precedence. DescribeConfigs and CreateTopics/AlterConfigs use this table.

import { atLeast, between, type ConfigDef, LONG_MAX, listOf, oneOf } from './config-def.js';
import { DEFAULT_MESSAGE_FORMAT_VERSION, validateMetadataVersion } from './message-format-version.js';

export interface Synonym {
  /** Broker config key. */
  readonly name: string;
  /** Converts the broker value into the topic config's unit (e.g. hours → ms). */
  readonly convert?: (value: string) => string;
}

export interface TopicConfigDef extends ConfigDef {
  /** Broker keys that supply the default, most specific first. */
  readonly synonyms: readonly Synonym[];
}

const hoursToMs = (v: string): string => String(BigInt(v.trim()) * 3_600_000n);
const minutesToMs = (v: string): string => String(BigInt(v.trim()) * 60_000n);
/** Kafka's logRetentionTimeMillis: any negative retention from the broker keys means -1 (forever). */
const atLeastMinusOne = (ms: string): string => (BigInt(ms) < 0n ? '-1' : ms);

export const COMPRESSION_TYPES = ['uncompressed', 'zstd', 'lz4', 'snappy', 'gzip', 'producer'] as const;

function def(
  name: string,
  type: ConfigDef['type'],
  dflt: string | null,
  synonyms: readonly (string | Synonym)[],
  doc: string,
  validate?: ConfigDef['validate'],
): TopicConfigDef {
  return {
    name,
    type,
    default: dflt,
    synonyms: synonyms.map((s) => (typeof s === 'string' ? { name: s } : s)),
    doc,
    ...(validate ? { validate } : {}),
  };
}

const DEFS: readonly TopicConfigDef[] = [
  def(
    'cleanup.policy',
    'list',
    'delete',
    ['log.cleanup.policy'],
    'Retention policy: delete and/or compact.',
    listOf(['compact', 'delete']),
  ),
  def(
    'compression.type',
    'string',
    'producer',
    ['compression.type'],
    'Final compression type of the topic.',
    oneOf(COMPRESSION_TYPES),
  ),
  def(
    'delete.retention.ms',
    'long',
    '86400000',
    ['log.cleaner.delete.retention.ms'],
    'How long delete tombstones are retained.',
    atLeast(0),
  ),
  def(
    'file.delete.delay.ms',
    'long',
    '60000',
    ['log.segment.delete.delay.ms'],
    'Delay before deleting a file from the filesystem.',
    atLeast(0),
  ),
  def(
    'flush.messages',
    'long',
    LONG_MAX,
    ['log.flush.interval.messages'],
    'Messages between forced fsyncs.',
    atLeast(1),
  ),
  def(
    'flush.ms',
    'long',
    LONG_MAX,
    ['log.flush.interval.ms', 'log.flush.scheduler.interval.ms'],
    'Time between forced fsyncs.',
    atLeast(0),
  ),
  def('follower.replication.throttled.replicas', 'list', '', [], 'Throttled follower replicas.'),
  def(
    'index.interval.bytes',
    'int',
    '4096',
    ['log.index.interval.bytes'],
    'Bytes between offset index entries.',
    atLeast(0),
  ),
  def('leader.replication.throttled.replicas', 'list', '', [], 'Throttled leader replicas.'),
  def(
    'local.retention.bytes',
    'long',
    '-2',
    ['log.local.retention.bytes'],
    'Local retention bytes (tiered storage).',
    atLeast(-2),
  ),
  def(
    'local.retention.ms',
    'long',
    '-2',
    ['log.local.retention.ms'],
    'Local retention time (tiered storage).',
    atLeast(-2),
  ),
  def(
    'max.compaction.lag.ms',
    'long',
    LONG_MAX,
    ['log.cleaner.max.compaction.lag.ms'],
    'Max time a message stays ineligible for compaction.',
    atLeast(1),
  ),
  def(
    'max.message.bytes',
    'int',
    '1048588',
    ['message.max.bytes'],
    'Largest record batch size allowed.',
    atLeast(0),
  ),
  def(
    'message.downconversion.enable',
    'boolean',
    'true',
    ['log.message.downconversion.enable'],
    'Whether down-conversion is enabled.',
  ),
  def(
    'message.format.version',
    'string',
    DEFAULT_MESSAGE_FORMAT_VERSION,
    ['log.message.format.version'],
    '[DEPRECATED] Ignored: always 3.0 (RecordBatch v2) since inter.broker.protocol.version is 3.0 or higher.',
    validateMetadataVersion,
  ),
  def(
    'message.timestamp.after.max.ms',
    'long',
    LONG_MAX,
    ['log.message.timestamp.after.max.ms'],
    'Max allowed timestamp ahead of the broker clock.',
    atLeast(0),
  ),
  def(
    'message.timestamp.before.max.ms',
    'long',
    LONG_MAX,
    ['log.message.timestamp.before.max.ms'],
    'Max allowed timestamp behind the broker clock.',
    atLeast(0),
  ),
  def(
    'message.timestamp.difference.max.ms',
    'long',
    LONG_MAX,
    ['log.message.timestamp.difference.max.ms'],
    'Deprecated: max timestamp difference.',
    atLeast(0),
  ),
  def(
    'message.timestamp.type',
    'string',
    'CreateTime',
    ['log.message.timestamp.type'],
    'CreateTime or LogAppendTime.',
    oneOf(['CreateTime', 'LogAppendTime']),
  ),
  def(
    'min.cleanable.dirty.ratio',
    'double',
    '0.5',
    ['log.cleaner.min.cleanable.ratio'],
    'Dirty ratio that triggers compaction.',
    between(0, 1),
  ),
  def(
    'min.compaction.lag.ms',
    'long',
    '0',
    ['log.cleaner.min.compaction.lag.ms'],
    'Min time a message stays uncompacted.',
    atLeast(0),
  ),
  def(
    'min.insync.replicas',
    'int',
    '1',
    ['min.insync.replicas'],
    'Min in-sync replicas for acks=all.',
    atLeast(1),
  ),
  def('preallocate', 'boolean', 'false', ['log.preallocate'], 'Preallocate segment files.'),
  def('remote.storage.enable', 'boolean', 'false', [], 'Tiered storage for the topic.'),
  def(
    'retention.bytes',
    'long',
    '-1',
    ['log.retention.bytes'],
    'Max partition size before old segments are deleted.',
  ),
  def(
    'retention.ms',
    'long',
    '604800000',
    [
      'log.retention.ms',
      { name: 'log.retention.minutes', convert: (v) => atLeastMinusOne(minutesToMs(v)) },
      { name: 'log.retention.hours', convert: (v) => atLeastMinusOne(hoursToMs(v)) },
    ],
    'Max age of a segment before deletion.',
    atLeast(-1),
  ),
  def('segment.bytes', 'int', '1073741824', ['log.segment.bytes'], 'Segment file size.', atLeast(14)),
  def(
    'segment.index.bytes',
    'int',
    '10485760',
    ['log.index.size.max.bytes'],
    'Offset index size.',
    atLeast(4),
  ),
  def(
    'segment.jitter.ms',
    'long',
    '0',
    ['log.roll.jitter.ms', { name: 'log.roll.jitter.hours', convert: hoursToMs }],
    'Random jitter on segment roll time.',
    atLeast(0),
  ),
  def(
    'segment.ms',
    'long',
    '604800000',
    ['log.roll.ms', { name: 'log.roll.hours', convert: hoursToMs }],
    'Time after which a segment is rolled.',
    atLeast(1),
  ),
  def(
    'unclean.leader.election.enable',
    'boolean',
    'false',
    ['unclean.leader.election.enable'],
    'Allow out-of-sync leaders.',
  ),
];

export const TOPIC_CONFIGS: ReadonlyMap<string, TopicConfigDef> = new Map(DEFS.map((d) => [d.name, d]));

/** Names of all broker keys that act as topic-config defaults. */
export const TOPIC_CONFIG_SYNONYMS: ReadonlySet<string> = new Set(
  DEFS.flatMap((d) => d.synonyms.map((s) => s.name)),
);
