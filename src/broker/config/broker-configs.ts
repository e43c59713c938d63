// Broker configs with Kafka's keys, types and defaults. Samsa's own deviations are the
// embedded-friendly defaults noted inline (listen on 127.0.0.1:9092, data in ./data, node id 1,
// a bounded request-memory budget). `dynamic` comes from Kafka's classification
// (dynamic-broker-keys.ts), never from this list, so DescribeConfigs' readOnly and what
// AlterConfigs accepts cannot drift from Kafka's.

import { atLeast, between, type ConfigDef, LONG_MAX, listOf, oneOf } from './config-def.js';
import { validateIpOverrides } from './connection-limits.js';
import { dynamicMode } from './dynamic-broker-keys.js';
import { DEFAULT_MESSAGE_FORMAT_VERSION, validateMetadataVersion } from './message-format-version.js';
import { SECURITY_BROKER_CONFIGS } from './security-broker-configs.js';
import { COMPRESSION_TYPES } from './topic-configs.js';

export interface BrokerConfigDef extends ConfigDef {
  /** Kafka lets AlterConfigs change it at runtime (per broker or cluster-wide). */
  readonly dynamic: boolean;
  /** Listed by DescribeConfigs only once set (Kafka's dynamic-only quota keys). */
  readonly describedWhenUnset?: boolean;
}

function def(
  name: string,
  type: ConfigDef['type'],
  dflt: string | null,
  doc: string,
  opts: { validate?: ConfigDef['validate'] } = {},
): BrokerConfigDef {
  return {
    name,
    type,
    default: dflt,
    doc,
    dynamic: dynamicMode(name) !== null,
    ...(opts.validate ? { validate: opts.validate } : {}),
  };
}

/** `HOST:PORT`, `[v6]:PORT` or `:PORT` (every interface); port 0 = an ephemeral port. */
function hostPort(v: string): string | null {
  // Empty = no listener, like leaving the key out.
  return v.trim() === '' || parseHostPort(v) !== null ? null : 'Value must be HOST:PORT, e.g. 127.0.0.1:9404';
}

export function parseHostPort(v: string): { host: string; port: number } | null {
  const m = /^(\[[^\]]+\]|[^:[\]]*):(\d{1,5})$/.exec(v.trim());
  if (!m || Number(m[2]) > 65535) return null;
  const host = m[1]!.startsWith('[') ? m[1]!.slice(1, -1) : m[1]!;
  return { host: host === '' ? '0.0.0.0' : host, port: Number(m[2]) };
}

/** Only a validator: whether a key is dynamic is Kafka's table's business. */
const checked = (validate?: ConfigDef['validate']) => (validate ? { validate } : {});

const DEFS: readonly BrokerConfigDef[] = [
  // Identity and networking.
  def('node.id', 'int', '1', 'Node id (Samsa default 1 for the embedded broker).', { validate: atLeast(0) }),
  def('broker.id', 'int', null, 'Legacy alias of node.id.', { validate: atLeast(0) }),
  def('broker.rack', 'string', null, 'Rack of the broker.'),
  def('listeners', 'string', 'PLAINTEXT://127.0.0.1:9092', 'Listener URI (Samsa default: loopback only).'),
  def('advertised.listeners', 'string', null, 'Listener advertised to clients; defaults to listeners.'),
  def(
    'http.listener',
    'string',
    null,
    'HOST:PORT of the HTTP listener serving /metrics and /health (Samsa only); unset = none.',
    { validate: hostPort },
  ),
  def(
    'log.format',
    'string',
    'text',
    "Line format of samsa start's log on stderr (Samsa only): text or json; --log-format wins.",
    { validate: oneOf(['text', 'json']) },
  ),
  def(
    'socket.request.max.bytes',
    'int',
    '104857600',
    'Largest request accepted, checked from the size prefix.',
    { validate: atLeast(1) },
  ),
  def(
    'queued.max.request.bytes',
    'long',
    '104857600',
    'Broker-wide budget for buffered requests (Samsa default 100 MiB; Kafka: -1).',
    { validate: atLeast(-1) },
  ),
  def(
    'num.network.threads',
    'int',
    '1',
    'Threads on the request path: 1 (Samsa default) = the event loop does all; N > 1 = N − 1 network threads own the sockets, the event loop handles every request. Read at start (Kafka: 3, per listener).',
    { validate: atLeast(1) },
  ),
  def('connections.max.idle.ms', 'long', '600000', 'Idle connections are closed after this long.', {
    validate: atLeast(1),
  }),
  def('max.connections', 'int', '2147483647', 'Max simultaneous connections.', { validate: atLeast(0) }),
  def('max.connections.per.ip', 'int', '2147483647', 'Connections per IP.', { validate: atLeast(0) }),
  def('max.connections.per.ip.overrides', 'string', '', 'Per-IP connection limits (host:count,...).', {
    validate: validateIpOverrides,
  }),
  def('quota.window.num', 'int', '11', 'Samples kept per client quota rate.', { validate: atLeast(1) }),
  def('quota.window.size.seconds', 'int', '1', 'Time span of each quota sample.', { validate: atLeast(1) }),
  def('fetch.max.bytes', 'int', '57671680', 'Max bytes returned by one Fetch.', { validate: atLeast(1024) }),
  def('max.incremental.fetch.session.cache.slots', 'int', '1000', 'Incremental fetch sessions kept.', {
    validate: atLeast(0),
  }),
  def(
    'max.request.partition.size.limit',
    'int',
    '2000',
    'Max partitions in one DescribeTopicPartitions answer.',
    {
      validate: atLeast(1),
    },
  ),
  def('replica.lag.time.max.ms', 'long', '30000', 'Followers behind longer leave the ISR.', {
    validate: atLeast(1),
  }),
  // Replication: the follower's fetchers.
  def('num.replica.fetchers', 'int', '1', 'Replica fetchers per source broker.', { validate: atLeast(1) }),
  def('replica.fetch.max.bytes', 'int', '1048576', 'Bytes a follower fetches per partition.', {
    validate: atLeast(0),
  }),
  def('replica.fetch.min.bytes', 'int', '1', 'Bytes a follower fetch waits for.', { validate: atLeast(1) }),
  def('replica.fetch.wait.max.ms', 'int', '500', 'Longest wait of a follower fetch.', {
    validate: atLeast(0),
  }),
  def('replica.fetch.response.max.bytes', 'int', '10485760', 'Bytes a follower fetches per request.', {
    validate: atLeast(0),
  }),
  def('replica.fetch.backoff.ms', 'int', '1000', 'Pause of a follower fetch after an error.', {
    validate: atLeast(0),
  }),
  def('replica.socket.timeout.ms', 'int', '30000', 'Request timeout of follower fetches.', {
    validate: atLeast(1),
  }),
  // Cluster: ZooKeeper and the controller.
  def(
    'zookeeper.connect',
    'string',
    null,
    'host:port[,host:port...][/chroot]; unset = embedded single broker.',
  ),
  def('zookeeper.session.timeout.ms', 'int', '18000', 'ZooKeeper session timeout.', { validate: atLeast(1) }),
  def(
    'zookeeper.connection.timeout.ms',
    'int',
    null,
    'Wait for the first ZooKeeper connection (default: the session timeout).',
    {
      validate: atLeast(1),
    },
  ),
  def('controlled.shutdown.enable', 'boolean', 'true', 'Move leaderships away before a clean stop.'),
  def('controlled.shutdown.max.retries', 'int', '3', 'ControlledShutdown attempts before stopping anyway.', {
    validate: atLeast(0),
  }),
  def('controlled.shutdown.retry.backoff.ms', 'long', '5000', 'Wait between ControlledShutdown attempts.', {
    validate: atLeast(0),
  }),
  def('auto.leader.rebalance.enable', 'boolean', 'true', 'Move leaderships back to preferred replicas.'),
  def('leader.imbalance.check.interval.seconds', 'long', '300', 'Seconds between leader imbalance checks.', {
    validate: atLeast(1),
  }),
  def('leader.imbalance.per.broker.percentage', 'int', '10', 'Leader imbalance allowed per broker (%).', {
    validate: atLeast(0),
  }),
  // Log storage.
  def('log.dirs', 'string', null, 'Data directories (comma-separated).'),
  def('log.dir', 'string', './data', 'Data directory when log.dirs is unset (Samsa default ./data).'),
  def('num.partitions', 'int', '1', 'Default partitions for auto-created topics.', {
    validate: atLeast(1),
  }),
  def('default.replication.factor', 'int', '1', 'Default replication factor.', { validate: atLeast(1) }),
  def('auto.create.topics.enable', 'boolean', 'true', 'Create topics on Metadata/Produce for unknown names.'),
  def('delete.topic.enable', 'boolean', 'true', 'Allow DeleteTopics.'),
  def('min.insync.replicas', 'int', '1', 'Min ISR size for acks=all.', checked(atLeast(1))),
  def('message.max.bytes', 'int', '1048588', 'Largest record batch.', checked(atLeast(0))),
  def(
    'compression.type',
    'string',
    'producer',
    'Topic compression default.',
    checked(oneOf(COMPRESSION_TYPES)),
  ),
  def(
    'log.cleanup.policy',
    'list',
    'delete',
    'Default cleanup policy.',
    checked(listOf(['compact', 'delete'])),
  ),
  def('log.cleaner.enable', 'boolean', 'true', 'Run the log cleaner.'),
  def('log.cleaner.delete.retention.ms', 'long', '86400000', 'Tombstone retention.', checked(atLeast(0))),
  def(
    'log.cleaner.min.cleanable.ratio',
    'double',
    '0.5',
    'Dirty ratio for compaction.',
    checked(between(0, 1)),
  ),
  def('log.cleaner.min.compaction.lag.ms', 'long', '0', 'Min compaction lag.', checked(atLeast(0))),
  def('log.cleaner.max.compaction.lag.ms', 'long', LONG_MAX, 'Max compaction lag.', checked(atLeast(1))),
  def('log.segment.bytes', 'int', '1073741824', 'Segment size.', checked(atLeast(14))),
  def('log.segment.delete.delay.ms', 'long', '60000', 'Delay before deleting files.', checked(atLeast(0))),
  def('log.index.interval.bytes', 'int', '4096', 'Bytes between index entries.', checked(atLeast(0))),
  def('log.index.size.max.bytes', 'int', '10485760', 'Offset index size.', checked(atLeast(4))),
  def('log.flush.interval.messages', 'long', LONG_MAX, 'Messages between fsyncs.', checked(atLeast(1))),
  def(
    'log.flush.interval.ms',
    'long',
    null,
    'Time between fsyncs (unset: log.flush.scheduler.interval.ms).',
    checked(atLeast(0)),
  ),
  def('log.flush.scheduler.interval.ms', 'long', LONG_MAX, 'Flusher check interval.'),
  def('log.flush.offset.checkpoint.interval.ms', 'int', '60000', 'Recovery point checkpoint interval.', {
    validate: atLeast(0),
  }),
  def('log.retention.bytes', 'long', '-1', 'Max partition size.', checked()),
  def('log.retention.ms', 'long', null, 'Retention time in ms.', checked(atLeast(-1))),
  def('log.retention.minutes', 'int', null, 'Retention time in minutes.'),
  def('log.retention.hours', 'int', '168', 'Retention time in hours.'),
  def('log.retention.check.interval.ms', 'long', '300000', 'Retention check period.', {
    validate: atLeast(1),
  }),
  def('log.roll.ms', 'long', null, 'Segment roll time in ms.', checked(atLeast(1))),
  def('log.roll.hours', 'int', '168', 'Segment roll time in hours.', { validate: atLeast(1) }),
  def('log.roll.jitter.ms', 'long', null, 'Segment roll jitter in ms.', checked()),
  def('log.roll.jitter.hours', 'int', '0', 'Segment roll jitter in hours.', { validate: atLeast(0) }),
  def('log.preallocate', 'boolean', 'false', 'Preallocate segments.', checked()),
  def(
    'log.message.timestamp.type',
    'string',
    'CreateTime',
    'Timestamp type.',
    checked(oneOf(['CreateTime', 'LogAppendTime'])),
  ),
  def(
    'log.message.timestamp.difference.max.ms',
    'long',
    LONG_MAX,
    'Deprecated timestamp difference.',
    checked(atLeast(0)),
  ),
  def('log.message.timestamp.before.max.ms', 'long', LONG_MAX, 'Max timestamp age.', checked(atLeast(0))),
  def('log.message.timestamp.after.max.ms', 'long', LONG_MAX, 'Max timestamp lead.', checked(atLeast(0))),
  def('log.message.downconversion.enable', 'boolean', 'true', 'Down-conversion.', checked()),
  def(
    'log.message.format.version',
    'string',
    DEFAULT_MESSAGE_FORMAT_VERSION,
    'Deprecated, ignored (inter.broker.protocol.version is 3.0 or higher): batches are always v2.',
    { validate: validateMetadataVersion },
  ),
  def('log.local.retention.bytes', 'long', '-2', 'Local retention bytes.', checked(atLeast(-2))),
  def('log.local.retention.ms', 'long', '-2', 'Local retention ms.', checked(atLeast(-2))),
  def('unclean.leader.election.enable', 'boolean', 'false', 'Unclean election.', checked()),
  def('num.recovery.threads.per.data.dir', 'int', '1', 'Recovery threads.', { validate: atLeast(1) }),
  // Coordinators (used by the group and transaction issues).
  def('offsets.topic.num.partitions', 'int', '50', '__consumer_offsets partitions.', {
    validate: atLeast(1),
  }),
  def(
    'offsets.topic.replication.factor',
    'short',
    '3',
    '__consumer_offsets replication (capped by cluster size).',
    { validate: atLeast(1) },
  ),
  def('offsets.retention.minutes', 'int', '10080', 'Committed offset retention.', { validate: atLeast(1) }),
  def('transaction.state.log.num.partitions', 'int', '50', '__transaction_state partitions.', {
    validate: atLeast(1),
  }),
  def('transaction.state.log.replication.factor', 'short', '3', '__transaction_state replication.', {
    validate: atLeast(1),
  }),
  def('transaction.state.log.min.isr', 'int', '2', '__transaction_state min ISR.', { validate: atLeast(1) }),
  def('transaction.max.timeout.ms', 'int', '900000', 'Max transaction timeout.', { validate: atLeast(1) }),
  def(
    'transaction.partition.verification.enable',
    'boolean',
    'true',
    'Verify with the coordinator that a partition is in the transaction before the first transactional write (KIP-890).',
  ),
  def(
    'transaction.version',
    'short',
    '2',
    "Finalized level of Kafka's transaction.version feature (2 = KIP-890 transaction protocol v2, Kafka 4.0's default).",
    { validate: between(0, 2) },
  ),
  def('transactional.id.expiration.ms', 'int', '604800000', 'Transactional id expiration.', {
    validate: atLeast(1),
  }),
  def('producer.id.expiration.ms', 'int', '86400000', 'Idle producer id expiration.', {
    validate: atLeast(1),
  }),
  def('group.initial.rebalance.delay.ms', 'int', '3000', 'Initial rebalance delay.'),
  def('group.min.session.timeout.ms', 'int', '6000', 'Min session timeout.'),
  def('group.max.session.timeout.ms', 'int', '1800000', 'Max session timeout.'),
  def(
    'group.consumer.migration.policy',
    'string',
    'bidirectional',
    'Whether a classic group with members may become a consumer group (upgrade) and back (downgrade).',
    { validate: oneOf(['bidirectional', 'upgrade', 'downgrade', 'disabled'], true) },
  ),
  ...SECURITY_BROKER_CONFIGS,
];

export { def as brokerConfigDef };

export const BROKER_CONFIGS: ReadonlyMap<string, BrokerConfigDef> = new Map(DEFS.map((d) => [d.name, d]));
