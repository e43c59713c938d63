// Kafka's `ssl.enabled.protocols` and `ssl.cipher.suites` in node:tls terms. Node takes a version
// range, not a set, so the range spans the enabled versions. Kafka names cipher suites the IANA
// way (TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256) and OpenSSL its own way
// (ECDHE-RSA-AES128-GCM-SHA256); both are accepted, TLS 1.3 suites have one name in both.

import type { SecureVersion } from 'node:tls';

const VERSIONS: readonly SecureVersion[] = ['TLSv1', 'TLSv1.1', 'TLSv1.2', 'TLSv1.3'];

export class TlsSettingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TlsSettingError';
  }
}

export function tlsVersionRange(enabled: readonly string[]): {
  minVersion: SecureVersion;
  maxVersion: SecureVersion;
} {
  if (enabled.length === 0) return { minVersion: 'TLSv1.2', maxVersion: 'TLSv1.3' };
  const indexes = enabled.map((p) => {
    const i = VERSIONS.indexOf(p.trim() as SecureVersion);
    if (i < 0)
      throw new TlsSettingError(
        `ssl.enabled.protocols: unsupported protocol ${p} (one of ${VERSIONS.join(', ')})`,
      );
    return i;
  });
  return { minVersion: VERSIONS[Math.min(...indexes)]!, maxVersion: VERSIONS[Math.max(...indexes)]! };
}

const KEY_EXCHANGES: Record<string, string> = {
  ECDHE_RSA: 'ECDHE-RSA-',
  ECDHE_ECDSA: 'ECDHE-ECDSA-',
  DHE_RSA: 'DHE-RSA-',
  RSA: '',
};

/** One suite name in OpenSSL's form (IANA names converted, others unchanged). */
export function opensslCipherName(name: string): string {
  const m = /^TLS_([A-Z0-9_]+?)_WITH_(AES_(128|256)_(GCM|CBC)|CHACHA20_POLY1305)_(SHA|SHA256|SHA384)$/.exec(
    name.trim(),
  );
  if (!m || KEY_EXCHANGES[m[1]!] === undefined) return name.trim();
  const kx = KEY_EXCHANGES[m[1]!]!;
  if (m[2] === 'CHACHA20_POLY1305') return `${kx}CHACHA20-POLY1305`;
  return m[4] === 'GCM' ? `${kx}AES${m[3]}-GCM-${m[5]}` : `${kx}AES${m[3]}-${m[5]}`;
}

/** The `ciphers` option for a `ssl.cipher.suites` list; undefined = Node's defaults. */
export function opensslCipherList(suites: readonly string[]): string | undefined {
  return suites.length === 0 ? undefined : suites.map(opensslCipherName).join(':');
}
