// Kafka client TLS properties → the `ssl` client option: `security.protocol=SSL`,
// `ssl.truststore.*` (PEM or PKCS12; JKS refused with the keytool command), `ssl.keystore.*` and
// `ssl.key.password` (a client certificate for mTLS), `ssl.endpoint.identification.algorithm`
// (https, the default, checks the broker's host name; empty does not), `ssl.enabled.protocols`,
// `ssl.cipher.suites`. SASL_SSL takes the same keys; the SASL side is `security-properties.ts`.

import type { TlsConnectOptions } from '../net/connection.js';
import { opensslCipherList, tlsVersionRange } from '../net/tls-settings.js';
import { loadKeyStore, loadTrustStore } from '../net/tls-stores.js';
import { ConfigError } from './errors.js';

/** The TLS keys this mapping reads (prefix-free Kafka client names). */
export const CLIENT_TLS_KEYS: readonly string[] = [
  'security.protocol',
  'ssl.truststore.type',
  'ssl.truststore.location',
  'ssl.truststore.password',
  'ssl.truststore.certificates',
  'ssl.keystore.type',
  'ssl.keystore.location',
  'ssl.keystore.password',
  'ssl.key.password',
  'ssl.keystore.certificate.chain',
  'ssl.keystore.key',
  'ssl.endpoint.identification.algorithm',
  'ssl.enabled.protocols',
  'ssl.cipher.suites',
];

const list = (v: string | undefined) =>
  (v ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');

/**
 * `undefined` for PLAINTEXT (the default) and SASL_PLAINTEXT; throws `ConfigError` on what cannot
 * be honoured.
 */
export function sslFromKafkaProperties(
  props: Readonly<Record<string, string>>,
): TlsConnectOptions | undefined {
  const protocol = (props['security.protocol'] ?? 'PLAINTEXT').trim().toUpperCase();
  if (protocol === 'PLAINTEXT' || protocol === 'SASL_PLAINTEXT') return undefined;
  if (protocol !== 'SSL' && protocol !== 'SASL_SSL')
    throw new ConfigError(
      `security.protocol=${protocol} is not one of PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL`,
    );
  try {
    const ca = loadTrustStore({
      type: props['ssl.truststore.type'] ?? null,
      location: props['ssl.truststore.location'] ?? null,
      password: props['ssl.truststore.password'] ?? null,
      certificates: props['ssl.truststore.certificates'] ?? null,
    });
    const identity = loadKeyStore({
      type: props['ssl.keystore.type'] ?? null,
      location: props['ssl.keystore.location'] ?? null,
      password: props['ssl.keystore.password'] ?? null,
      keyPassword: props['ssl.key.password'] ?? null,
      certificateChain: props['ssl.keystore.certificate.chain'] ?? null,
      key: props['ssl.keystore.key'] ?? null,
    });
    const ciphers = opensslCipherList(list(props['ssl.cipher.suites']));
    const hostCheck = (props['ssl.endpoint.identification.algorithm'] ?? 'https').trim();
    return {
      ...(ca !== null ? { ca } : {}),
      ...(identity ?? {}),
      ...tlsVersionRange(list(props['ssl.enabled.protocols'])),
      ...(ciphers !== undefined ? { ciphers } : {}),
      ...(hostCheck === '' ? { checkServerIdentity: () => undefined } : {}),
    };
  } catch (e) {
    if (e instanceof ConfigError) throw e;
    throw new ConfigError((e as Error).message);
  }
}
