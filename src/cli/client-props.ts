// Kafka client properties as users paste them into the console tools: `--producer.config FILE`,
// `--producer-property k=v`, `--consumer.config`, `--command-config`. A key samsa's client
// supports becomes an option; a Kafka key it does not (send.buffer.bytes, interceptor.classes, …)
// is dropped with a warning, as Kafka's clients warn about keys they do not use; a key that no
// Kafka client knows is an error naming the closest real one, so a typo never keeps a default.
// `security.protocol`, the TLS keys, `sasl.mechanism` and `sasl.jaas.config` become the `ssl`
// and `sasl` options (`client/security-properties.ts`).

import { readFileSync } from 'node:fs';
import { parseProperties } from '../broker/config/properties.js';
import { fromKafkaProperties } from '../client/config.js';
import { consumerOptionsFromProperties } from '../client/consumer/consumer-config.js';
import { CLIENT_SECURITY_KEYS, securityFromKafkaProperties } from '../client/security-properties.js';
import { CommandUsageError } from './commands/common.js';
import { didYouMean } from './suggest.js';

// Kafka's client config names (CommonClientConfigs, ProducerConfig, ConsumerConfig,
// AdminClientConfig), without the ssl.* / sasl.* families, which are matched by prefix.
const COMMON = [
  'bootstrap.servers',
  'client.dns.lookup',
  'client.id',
  'config.providers',
  'connections.max.idle.ms',
  'enable.metrics.push',
  'metadata.max.age.ms',
  'metadata.recovery.strategy',
  'metadata.recovery.rebootstrap.trigger.ms',
  'metric.reporters',
  'metrics.num.samples',
  'metrics.recording.level',
  'metrics.sample.window.ms',
  'auto.include.jmx.reporter',
  'receive.buffer.bytes',
  'reconnect.backoff.max.ms',
  'reconnect.backoff.ms',
  'request.timeout.ms',
  'retry.backoff.max.ms',
  'retry.backoff.ms',
  'security.protocol',
  'security.providers',
  'send.buffer.bytes',
  'socket.connection.setup.timeout.max.ms',
  'socket.connection.setup.timeout.ms',
];

const PRODUCER = [
  ...COMMON,
  'acks',
  'batch.size',
  'buffer.memory',
  'compression.gzip.level',
  'compression.lz4.level',
  'compression.type',
  'compression.zstd.level',
  'delivery.timeout.ms',
  'enable.idempotence',
  'interceptor.classes',
  'key.serializer',
  'linger.ms',
  'max.block.ms',
  'max.in.flight.requests.per.connection',
  'max.request.size',
  'metadata.max.idle.ms',
  'partitioner.adaptive.partitioning.enable',
  'partitioner.availability.timeout.ms',
  'partitioner.class',
  'partitioner.ignore.keys',
  'retries',
  'transaction.timeout.ms',
  'transactional.id',
  'value.serializer',
];

const CONSUMER = [
  ...COMMON,
  'allow.auto.create.topics',
  'auto.commit.interval.ms',
  'auto.offset.reset',
  'check.crcs',
  'client.rack',
  'default.api.timeout.ms',
  'enable.auto.commit',
  'exclude.internal.topics',
  'fetch.max.bytes',
  'fetch.max.wait.ms',
  'fetch.min.bytes',
  'group.id',
  'group.instance.id',
  'group.protocol',
  'group.remote.assignor',
  'heartbeat.interval.ms',
  'interceptor.classes',
  'isolation.level',
  'key.deserializer',
  'max.partition.fetch.bytes',
  'max.poll.interval.ms',
  'max.poll.records',
  'partition.assignment.strategy',
  'session.timeout.ms',
  'value.deserializer',
];

const ADMIN = [...COMMON, 'default.api.timeout.ms', 'retries'];

/** What the admin client takes of the common options (see ClientOptions). */
const ADMIN_OPTIONS = new Set([
  'bootstrapServers',
  'clientId',
  'requestTimeoutMs',
  'connectionTimeoutMs',
  'reconnectBackoffMs',
  'reconnectBackoffMaxMs',
  'retryBackoffMs',
  'retryBackoffMaxMs',
  'metadataMaxAgeMs',
  'ssl',
  'sasl',
]);

/** Serializers the console tools make irrelevant (they move bytes): accepted without a word. */
const QUIETLY_IGNORED = /^(key|value)\.(serializer|deserializer)$/;

export type ClientKind = 'producer' | 'consumer' | 'admin';

const KNOWN: Record<ClientKind, readonly string[]> = { producer: PRODUCER, consumer: CONSUMER, admin: ADMIN };

/** Reads a Java `.properties` file given to --producer.config / --consumer.config / --command-config. */
export function readPropertiesFile(path: string, flag: string): Record<string, string> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new CommandUsageError(`${flag}: cannot read ${path}: ${(e as Error).message}`);
  }
  try {
    return Object.fromEntries(parseProperties(text));
  } catch (e) {
    throw new CommandUsageError(`${flag}: ${path}: ${(e as Error).message}`);
  }
}

function convert(kind: ClientKind, props: Record<string, string>): Record<string, unknown> {
  if (kind === 'consumer') return consumerOptionsFromProperties(props) as Record<string, unknown>;
  const o = fromKafkaProperties(props) as Record<string, unknown>;
  if (kind === 'admin') for (const k of Object.keys(o)) if (!ADMIN_OPTIONS.has(k)) delete o[k];
  return o;
}

function isUnknownKeyError(e: unknown): boolean {
  return /unknown or unsupported/.test((e as Error).message ?? '');
}

/**
 * Kafka properties → client options (camelCase). `warn` receives one line per Kafka key that
 * samsa's client ignores; a key no Kafka client has, or a bad value, is a usage error.
 */
export function clientOptionsFrom(
  kind: ClientKind,
  props: Readonly<Record<string, string>>,
  warn: (line: string) => void,
): Record<string, unknown> {
  const supported: Record<string, string> = {};
  const security: Record<string, string> = {};
  const ignored: string[] = [];
  for (const [k, v] of Object.entries(props)) {
    if (CLIENT_SECURITY_KEYS.includes(k)) {
      security[k] = v;
      continue;
    }
    if (QUIETLY_IGNORED.test(k)) continue;
    try {
      convert(kind, { [k]: v });
      supported[k] = v;
    } catch (e) {
      if (!isUnknownKeyError(e)) throw new CommandUsageError((e as Error).message);
      const known = KNOWN[kind];
      if (known.includes(k) || k.startsWith('ssl.') || k.startsWith('sasl.')) ignored.push(k);
      else throw new CommandUsageError(`unknown ${kind} property ${k}${didYouMean(k, known)}`);
    }
  }
  if (ignored.length > 0)
    warn(`samsa: ignoring ${kind} properties samsa's client does not use: ${ignored.join(', ')}`);
  let secure: Record<string, unknown>;
  try {
    secure = { ...securityFromKafkaProperties(security) };
  } catch (e) {
    throw new CommandUsageError((e as Error).message);
  }
  return { ...convert(kind, supported), ...secure };
}
