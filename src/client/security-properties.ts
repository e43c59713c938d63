// Kafka's client security properties → the `ssl` and `sasl` client options:
// `security.protocol` (PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL), the `ssl.*` keys through
// `sslFromKafkaProperties`, and `sasl.mechanism` + `sasl.jaas.config` (the `username` and
// `password` options of PlainLoginModule / ScramLoginModule). Errors never quote a value.

import type { TlsConnectOptions } from '../net/connection.js';
import { SaslOptionError, type SaslOptions, saslFromKafkaProperties } from '../net/sasl/sasl-options.js';
import { ConfigError } from './errors.js';
import { CLIENT_TLS_KEYS, sslFromKafkaProperties } from './tls-properties.js';

/** Every key this mapping reads. */
export const CLIENT_SECURITY_KEYS: readonly string[] = [
  ...CLIENT_TLS_KEYS,
  'sasl.mechanism',
  'sasl.jaas.config',
];

export interface SecurityOptions {
  ssl?: TlsConnectOptions;
  sasl?: SaslOptions;
}

export function securityFromKafkaProperties(props: Readonly<Record<string, string>>): SecurityOptions {
  const protocol = (props['security.protocol'] ?? 'PLAINTEXT').trim().toUpperCase();
  if (!['PLAINTEXT', 'SSL', 'SASL_PLAINTEXT', 'SASL_SSL'].includes(protocol))
    throw new ConfigError(
      `security.protocol=${protocol} is not one of PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL`,
    );
  const out: SecurityOptions = {};
  const ssl = sslFromKafkaProperties({ ...props, 'security.protocol': protocol });
  if (ssl !== undefined) out.ssl = ssl;
  if (protocol.startsWith('SASL_')) {
    try {
      out.sasl = saslFromKafkaProperties(props);
    } catch (e) {
      if (e instanceof SaslOptionError) throw new ConfigError(e.message);
      throw e;
    }
  }
  return out;
}
