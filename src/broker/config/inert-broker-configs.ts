// Kafka 3.9's dynamic broker keys that Samsa accepts, stores and describes but does not act on
// (TLS engine settings, Kerberos, thread pools, quotas, tiered storage: Samsa has no such machinery). Kafka's types
// and defaults, so DescribeConfigs shows what a Kafka broker shows and AlterConfigs validates
// values as Kafka would. Kept apart from BROKER_CONFIGS: `samsa start` still says a
// server.properties key from this list has no effect.

import { BROKER_CONFIGS, type BrokerConfigDef, brokerConfigDef as def } from './broker-configs.js';
import { atLeast, between, LONG_MAX } from './config-def.js';

const INT_MAX = '2147483647';
const DOUBLE_MAX = '1.7976931348623157E308';

const INERT: readonly BrokerConfigDef[] = [
  def('ssl.protocol', 'string', 'TLSv1.3', 'SSLContext protocol.'),
  def('ssl.provider', 'string', null, 'Security provider.'),
  def('ssl.keymanager.algorithm', 'string', 'SunX509', 'Key manager algorithm.'),
  def('ssl.trustmanager.algorithm', 'string', 'PKIX', 'Trust manager algorithm.'),
  def('ssl.secure.random.implementation', 'string', null, 'SecureRandom implementation.'),
  def('ssl.engine.factory.class', 'class', null, 'SSLEngine factory.'),
  def(
    'principal.builder.class',
    'class',
    'org.apache.kafka.common.security.authenticator.DefaultKafkaPrincipalBuilder',
    'Principal builder.',
  ),
  def('sasl.kerberos.service.name', 'string', null, 'Kerberos principal name.'),
  def('sasl.kerberos.kinit.cmd', 'string', '/usr/bin/kinit', 'kinit path.'),
  def('sasl.kerberos.ticket.renew.window.factor', 'double', '0.8', 'Ticket renew window.'),
  def('sasl.kerberos.ticket.renew.jitter', 'double', '0.05', 'Ticket renew jitter.'),
  def('sasl.kerberos.min.time.before.relogin', 'long', '60000', 'Sleep between refresh attempts.'),
  def('sasl.kerberos.principal.to.local.rules', 'list', 'DEFAULT', 'Principal mapping rules.'),
  def('sasl.login.refresh.window.factor', 'double', '0.8', 'Login refresh window.'),
  def('sasl.login.refresh.window.jitter', 'double', '0.05', 'Login refresh jitter.'),
  def('sasl.login.refresh.min.period.seconds', 'short', '60', 'Min login refresh period.'),
  def('sasl.login.refresh.buffer.seconds', 'short', '300', 'Login refresh buffer.'),
  def('max.connection.creation.rate', 'int', INT_MAX, 'New connections per second.', {
    validate: atLeast(0),
  }),
  def('log.cleaner.threads', 'int', '1', 'Cleaner threads.', { validate: atLeast(0) }),
  def('log.cleaner.dedupe.buffer.size', 'long', '134217728', 'Cleaner dedupe memory.'),
  def('log.cleaner.io.buffer.load.factor', 'double', '0.9', 'Dedupe buffer load factor.'),
  def('log.cleaner.io.buffer.size', 'int', '524288', 'Cleaner I/O buffers.', { validate: atLeast(0) }),
  def('log.cleaner.io.max.bytes.per.second', 'double', DOUBLE_MAX, 'Cleaner I/O throttle.'),
  def('log.cleaner.backoff.ms', 'long', '15000', 'Sleep when nothing is to clean.', { validate: atLeast(0) }),
  def('compression.gzip.level', 'int', '-1', 'gzip level.', { validate: between(-1, 9) }),
  def('compression.lz4.level', 'int', '9', 'lz4 level.', { validate: between(1, 17) }),
  def('compression.zstd.level', 'int', '3', 'zstd level.', { validate: between(-131072, 22) }),
  def('num.io.threads', 'int', '8', 'Request handler threads.', { validate: atLeast(1) }),
  def('background.threads', 'int', '10', 'Background task threads.', { validate: atLeast(1) }),
  def('metric.reporters', 'list', '', 'Metric reporter classes.'),
  def('remote.log.index.file.cache.total.size.bytes', 'long', '1073741824', 'Remote index cache.', {
    validate: atLeast(1),
  }),
  def('remote.fetch.max.wait.ms', 'int', '500', 'Remote fetch wait.', { validate: atLeast(1) }),
  def('remote.log.manager.copy.max.bytes.per.second', 'long', LONG_MAX, 'Remote copy throttle.', {
    validate: atLeast(1),
  }),
  def('remote.log.manager.fetch.max.bytes.per.second', 'long', LONG_MAX, 'Remote fetch throttle.', {
    validate: atLeast(1),
  }),
  ...[
    'leader.replication.throttled.rate',
    'follower.replication.throttled.rate',
    'replica.alter.log.dirs.io.max.bytes.per.second',
  ].map(
    (name): BrokerConfigDef => ({
      ...def(name, 'long', LONG_MAX, 'Replication throttle in bytes/s.', { validate: atLeast(0) }),
      describedWhenUnset: false,
    }),
  ),
];

export const INERT_BROKER_CONFIGS: ReadonlyMap<string, BrokerConfigDef> = new Map(
  INERT.map((d) => [d.name, d]),
);

/** Every broker key DescribeConfigs knows: Samsa's own and the inert dynamic ones. */
export const DESCRIBED_BROKER_CONFIGS: ReadonlyMap<string, BrokerConfigDef> = new Map([
  ...BROKER_CONFIGS,
  ...INERT_BROKER_CONFIGS,
]);
