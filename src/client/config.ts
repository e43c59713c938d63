// Client, producer and admin options: camelCase versions of Kafka's config keys with Kafka's
// defaults, validated up front so that mistakes fail at construction and not mid-send.
// `fromKafkaProperties` maps the dotted Kafka names (`linger.ms=5`) for the CLI's --producer-props.
import type { ThrottleEvent } from '../net/broker-link.js';
import type { TlsConnectOptions } from '../net/connection.js';
import { SaslOptionError, type SaslOptions, validateSaslOptions } from '../net/sasl/sasl-options.js';
import { ConfigError } from './errors.js';

export interface ClientOptions {
  /** `host:port` strings (or one comma-separated string). */
  bootstrapServers: string | readonly string[];
  clientId?: string;
  /** request.timeout.ms, default 30000. */
  requestTimeoutMs?: number;
  /** socket.connection.setup.timeout.ms, default 10000. */
  connectionTimeoutMs?: number;
  /** reconnect.backoff.ms / reconnect.backoff.max.ms, defaults 50 / 1000. */
  reconnectBackoffMs?: number;
  reconnectBackoffMaxMs?: number;
  /** retry.backoff.ms / retry.backoff.max.ms, defaults 100 / 1000. */
  retryBackoffMs?: number;
  retryBackoffMaxMs?: number;
  /** metadata.max.age.ms, default 300000. */
  metadataMaxAgeMs?: number;
  /**
   * Connect with TLS (security.protocol=SSL): `true` trusts the system CAs, or node:tls options
   * (`ca`, `cert`, `key`, `pfx`, `passphrase`, `rejectUnauthorized`, `servername`, …).
   * `sslFromKafkaProperties` builds them from `ssl.truststore.*` / `ssl.keystore.*`.
   */
  ssl?: boolean | TlsConnectOptions;
  /**
   * Authenticate with SASL (security.protocol=SASL_PLAINTEXT, or SASL_SSL together with `ssl`):
   * `{ mechanism: 'PLAIN' | 'SCRAM-SHA-256' | 'SCRAM-SHA-512', username, password }`.
   */
  sasl?: SaslOptions;
  /**
   * Called when a broker throttles this client (a response with throttle_time_ms > 0, KIP-219;
   * librdkafka's throttle_cb). The client already holds its requests to that broker that long.
   */
  onThrottle?: (event: ThrottleEvent) => void;
}

export interface ResolvedClientOptions {
  bootstrapServers: { host: string; port: number }[];
  clientId: string;
  requestTimeoutMs: number;
  connectionTimeoutMs: number;
  reconnectBackoffMs: number;
  reconnectBackoffMaxMs: number;
  retryBackoffMs: number;
  retryBackoffMaxMs: number;
  metadataMaxAgeMs: number;
  /** TLS settings of every connection; absent = plaintext. */
  tls?: TlsConnectOptions;
  /** SASL credentials of every connection; absent = no authentication. */
  sasl?: SaslOptions;
  onThrottle?: (event: ThrottleEvent) => void;
}

function resolveSasl(o: SaslOptions): SaslOptions {
  try {
    return validateSaslOptions(o);
  } catch (e) {
    if (e instanceof SaslOptionError) throw new ConfigError(e.message);
    throw e;
  }
}

export function parseHostPort(s: string): { host: string; port: number } {
  const t = s.trim();
  const m = /^\[?([^\]]+?)\]?:(\d+)$/.exec(t);
  if (!m) throw new ConfigError(`bootstrap server "${s}" is not host:port`);
  const port = Number(m[2]);
  if (port < 1 || port > 65535) throw new ConfigError(`bootstrap server "${s}" has an invalid port`);
  return { host: m[1]!, port };
}

export function intOption(
  name: string,
  v: number | undefined,
  def: number,
  min: number,
  max = 2 ** 31 - 1,
): number {
  if (v === undefined) return def;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
    throw new ConfigError(`${name} must be an integer in [${min}, ${max}], got ${String(v)}`);
  }
  return v;
}

export function resolveClientOptions(o: ClientOptions): ResolvedClientOptions {
  const list = typeof o.bootstrapServers === 'string' ? o.bootstrapServers.split(',') : o.bootstrapServers;
  const servers = list.filter((s) => s.trim() !== '').map(parseHostPort);
  if (servers.length === 0) throw new ConfigError('bootstrapServers must name at least one broker');
  const reconnectBackoffMs = intOption('reconnectBackoffMs', o.reconnectBackoffMs, 50, 0);
  const retryBackoffMs = intOption('retryBackoffMs', o.retryBackoffMs, 100, 0);
  return {
    bootstrapServers: servers,
    clientId: o.clientId ?? 'samsa',
    requestTimeoutMs: intOption('requestTimeoutMs', o.requestTimeoutMs, 30000, 1),
    connectionTimeoutMs: intOption('connectionTimeoutMs', o.connectionTimeoutMs, 10000, 1),
    reconnectBackoffMs,
    reconnectBackoffMaxMs: Math.max(
      reconnectBackoffMs,
      intOption('reconnectBackoffMaxMs', o.reconnectBackoffMaxMs, 1000, 0),
    ),
    retryBackoffMs,
    retryBackoffMaxMs: Math.max(retryBackoffMs, intOption('retryBackoffMaxMs', o.retryBackoffMaxMs, 1000, 0)),
    metadataMaxAgeMs: intOption('metadataMaxAgeMs', o.metadataMaxAgeMs, 300000, 0),
    ...(o.ssl ? { tls: o.ssl === true ? {} : { ...o.ssl } } : {}),
    ...(o.sasl ? { sasl: resolveSasl(o.sasl) } : {}),
    ...(o.onThrottle ? { onThrottle: o.onThrottle } : {}),
  };
}

// Kafka property name → our option name, with its value type. Only what a CLI user plausibly
// passes; unknown keys are an error so that typos do not silently keep a default.
const KAFKA_KEYS: Record<string, [string, 'int' | 'string' | 'bool' | 'acks']> = {
  'bootstrap.servers': ['bootstrapServers', 'string'],
  'client.id': ['clientId', 'string'],
  'request.timeout.ms': ['requestTimeoutMs', 'int'],
  'socket.connection.setup.timeout.ms': ['connectionTimeoutMs', 'int'],
  'reconnect.backoff.ms': ['reconnectBackoffMs', 'int'],
  'reconnect.backoff.max.ms': ['reconnectBackoffMaxMs', 'int'],
  'retry.backoff.ms': ['retryBackoffMs', 'int'],
  'retry.backoff.max.ms': ['retryBackoffMaxMs', 'int'],
  'metadata.max.age.ms': ['metadataMaxAgeMs', 'int'],
  acks: ['acks', 'acks'],
  'batch.size': ['batchSize', 'int'],
  'batch.max.size': ['batchMaxSize', 'int'],
  'linger.ms': ['lingerMs', 'int'],
  'buffer.memory': ['bufferMemory', 'int'],
  'max.block.ms': ['maxBlockMs', 'int'],
  'max.request.size': ['maxRequestSize', 'int'],
  'max.in.flight.requests.per.connection': ['maxInFlightRequestsPerConnection', 'int'],
  retries: ['retries', 'int'],
  'delivery.timeout.ms': ['deliveryTimeoutMs', 'int'],
  'enable.idempotence': ['enableIdempotence', 'bool'],
  'transactional.id': ['transactionalId', 'string'],
  'transaction.timeout.ms': ['transactionTimeoutMs', 'int'],
  'compression.type': ['compressionType', 'string'],
  partitioner: ['partitioner', 'string'],
  'partitioner.ignore.keys': ['partitionerIgnoreKeys', 'bool'],
};

/** Converts `{ 'linger.ms': '5', acks: 'all' }` into producer/client options. */
export function fromKafkaProperties(
  props: Record<string, string>,
): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const [k, raw] of Object.entries(props)) {
    const spec = KAFKA_KEYS[k];
    if (!spec) throw new ConfigError(`unknown or unsupported property "${k}"`);
    const [name, type] = spec;
    const v = raw.trim();
    if (type === 'string') out[name] = v;
    else if (type === 'bool') {
      if (v !== 'true' && v !== 'false') throw new ConfigError(`${k} must be true or false`);
      out[name] = v === 'true';
    } else if (type === 'acks') {
      if (v === 'all' || v === '-1') out[name] = -1;
      else if (v === '0' || v === '1') out[name] = Number(v);
      else throw new ConfigError(`acks must be 0, 1, -1 or all`);
    } else {
      if (!/^-?\d+$/.test(v)) throw new ConfigError(`${k} must be an integer`);
      out[name] = Number(v);
    }
  }
  return out;
}
