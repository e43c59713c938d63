// Which broker keys Kafka 3.9 lets AlterConfigs change at runtime, and where (DynamicBrokerConfig:
// AllDynamicConfigs, PerBrokerConfigs, the quota keys of DynamicConfig.Broker). Every other Kafka
// broker key is read-only: DescribeConfigs reports it `readOnly`, AlterConfigs refuses it.
// - per-broker: only on the resource `<broker id>` (listeners, security, SASL login settings);
// - cluster-wide: on `<broker id>` or on the cluster default (resource name '').
// The SSL keystore/truststore keys are per-broker too but accepted only with a listener prefix
// (`listener.name.<listener>.ssl.keystore.location`); a prefixed key is per-broker unless its
// base name is one of the cluster-level listener keys.

export type DynamicMode = 'per-broker' | 'cluster-wide';

const PER_BROKER: readonly string[] = [
  // DynamicListenerConfig: listeners.
  'advertised.listeners',
  'listeners',
  'listener.security.protocol.map',
  // DynamicListenerConfig: SSL.
  'principal.builder.class',
  'ssl.protocol',
  'ssl.provider',
  'ssl.cipher.suites',
  'ssl.enabled.protocols',
  'ssl.keymanager.algorithm',
  'ssl.trustmanager.algorithm',
  'ssl.endpoint.identification.algorithm',
  'ssl.secure.random.implementation',
  'ssl.client.auth',
  'ssl.engine.factory.class',
  // DynamicListenerConfig: SASL.
  'sasl.mechanism.inter.broker.protocol',
  'sasl.jaas.config',
  'sasl.enabled.mechanisms',
  'sasl.kerberos.service.name',
  'sasl.kerberos.kinit.cmd',
  'sasl.kerberos.ticket.renew.window.factor',
  'sasl.kerberos.ticket.renew.jitter',
  'sasl.kerberos.min.time.before.relogin',
  'sasl.kerberos.principal.to.local.rules',
  'sasl.login.refresh.window.factor',
  'sasl.login.refresh.window.jitter',
  'sasl.login.refresh.min.period.seconds',
  'sasl.login.refresh.buffer.seconds',
];

/** SslConfigs.RECONFIGURABLE_CONFIGS: per-broker, and only under a listener prefix. */
export const LISTENER_PREFIX_ONLY: ReadonlySet<string> = new Set([
  'ssl.keystore.type',
  'ssl.keystore.location',
  'ssl.keystore.password',
  'ssl.key.password',
  'ssl.truststore.type',
  'ssl.truststore.location',
  'ssl.truststore.password',
  'ssl.keystore.certificate.chain',
  'ssl.keystore.key',
  'ssl.truststore.certificates',
]);

/** Listener keys that stay cluster-wide (DynamicBrokerConfig.ClusterLevelListenerConfigs). */
const CLUSTER_LEVEL_LISTENER_KEYS: ReadonlySet<string> = new Set([
  'max.connections',
  'max.connection.creation.rate',
  'num.network.threads',
]);

const CLUSTER_WIDE: readonly string[] = [
  ...CLUSTER_LEVEL_LISTENER_KEYS,
  // SocketServer.ReconfigurableConfigs.
  'max.connections.per.ip',
  'max.connections.per.ip.overrides',
  // LogCleaner.ReconfigurableConfigs.
  'log.cleaner.threads',
  'log.cleaner.dedupe.buffer.size',
  'log.cleaner.io.buffer.load.factor',
  'log.cleaner.io.buffer.size',
  'log.cleaner.io.max.bytes.per.second',
  'log.cleaner.backoff.ms',
  'message.max.bytes',
  // DynamicLogConfig: the first broker synonym of every topic key but message.format.version.
  'log.segment.bytes',
  'log.roll.ms',
  'log.roll.jitter.ms',
  'log.index.size.max.bytes',
  'log.flush.interval.messages',
  'log.flush.interval.ms',
  'log.retention.bytes',
  'log.retention.ms',
  'log.index.interval.bytes',
  'log.cleaner.delete.retention.ms',
  'log.cleaner.min.compaction.lag.ms',
  'log.cleaner.max.compaction.lag.ms',
  'log.segment.delete.delay.ms',
  'log.cleaner.min.cleanable.ratio',
  'log.cleanup.policy',
  'unclean.leader.election.enable',
  'min.insync.replicas',
  'compression.type',
  'compression.gzip.level',
  'compression.lz4.level',
  'compression.zstd.level',
  'log.preallocate',
  'log.message.timestamp.type',
  'log.message.timestamp.difference.max.ms',
  'log.message.timestamp.before.max.ms',
  'log.message.timestamp.after.max.ms',
  'log.message.downconversion.enable',
  'log.local.retention.ms',
  'log.local.retention.bytes',
  // DynamicThreadPool.
  'num.io.threads',
  'num.replica.fetchers',
  'num.recovery.threads.per.data.dir',
  'background.threads',
  // Metrics, producer state, tiered storage.
  'metric.reporters',
  'producer.id.expiration.ms',
  'transaction.partition.verification.enable',
  'remote.log.index.file.cache.total.size.bytes',
  'remote.fetch.max.wait.ms',
  'remote.log.manager.copy.max.bytes.per.second',
  'remote.log.manager.fetch.max.bytes.per.second',
  // DynamicConfig.Broker's quota keys (dynamic only: no server.properties form).
  'leader.replication.throttled.rate',
  'follower.replication.throttled.rate',
  'replica.alter.log.dirs.io.max.bytes.per.second',
];

/** Every dynamic broker key of Kafka 3.9 (without listener prefix) and where it may be set. */
export const DYNAMIC_BROKER_KEYS: ReadonlyMap<string, DynamicMode> = new Map([
  ...PER_BROKER.map((k) => [k, 'per-broker'] as const),
  ...[...LISTENER_PREFIX_ONLY].map((k) => [k, 'per-broker'] as const),
  ...CLUSTER_WIDE.map((k) => [k, 'cluster-wide'] as const),
]);

const LISTENER_KEY = /^listener\.name\.[^.]*\.(.+)$/;

/** The base name of a `listener.name.<listener>.<key>` override, else null. */
export function listenerOverrideBase(name: string): string | null {
  return LISTENER_KEY.exec(name)?.[1] ?? null;
}

/** Where a key may be set dynamically; null for a read-only (or unknown) key. */
export function dynamicMode(name: string): DynamicMode | null {
  const base = listenerOverrideBase(name);
  if (base !== null) return CLUSTER_LEVEL_LISTENER_KEYS.has(base) ? 'cluster-wide' : 'per-broker';
  return DYNAMIC_BROKER_KEYS.get(name) ?? null;
}
