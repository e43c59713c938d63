// Kafka's key and trust stores (`ssl.keystore.*`, `ssl.truststore.*`) turned into what node:tls
// takes, for the broker's listeners and for clients alike. PEM (inline or a file) and PKCS12 are
// read; JKS, which Node cannot read, is refused with the keytool command that converts it. The
// format is told from the bytes, not only from the type: Java reads a PKCS12 file under Kafka's
// default type JKS, so a `.p12` without `ssl.keystore.type` works here too.

import { readFileSync } from 'node:fs';
import { pkcs12Certificates } from './pkcs12-certs.js';

export class TlsStoreError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TlsStoreError';
  }
}

/** `ssl.keystore.*` (the prefix-free key names' values). */
export interface KeyStoreSpec {
  readonly type?: string | null;
  readonly location?: string | null;
  readonly password?: string | null;
  readonly keyPassword?: string | null;
  /** `ssl.keystore.certificate.chain` / `ssl.keystore.key`: PEM text (type PEM). */
  readonly certificateChain?: string | null;
  readonly key?: string | null;
}

/** `ssl.truststore.*`. */
export interface TrustStoreSpec {
  readonly type?: string | null;
  readonly location?: string | null;
  readonly password?: string | null;
  /** `ssl.truststore.certificates`: PEM text (type PEM). */
  readonly certificates?: string | null;
}

/** A certificate and its key, as `tls.createSecureContext` options. */
export type TlsIdentity =
  | { readonly cert: string; readonly key: string; readonly passphrase?: string }
  | { readonly pfx: Buffer; readonly passphrase: string };

const JKS_MAGIC = 0xfeedfeed;
const JCEKS_MAGIC = 0xcececece;

function readStore(location: string, what: string): Buffer {
  try {
    return readFileSync(location);
  } catch (e) {
    throw new TlsStoreError(
      `cannot read the ${what} ${location}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
    );
  }
}

function refuseJks(file: Buffer, location: string, what: string): void {
  if (file.length < 4) return;
  const magic = file.readUInt32BE(0);
  if (magic !== JKS_MAGIC && magic !== JCEKS_MAGIC) return;
  const kind = magic === JKS_MAGIC ? 'JKS' : 'JCEKS';
  const target = `${location.replace(/\.(jks|jceks|keystore|truststore)$/i, '')}.p12`;
  throw new TlsStoreError(
    `the ${what} ${location} is a ${kind} file, which Node cannot read: convert it to PKCS12 with ` +
      `"keytool -importkeystore -srckeystore ${location} -srcstoretype ${kind} -destkeystore ${target} -deststoretype PKCS12"` +
      ' and set its type to PKCS12',
  );
}

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?-----END \1-----/g;

function pemBlocks(text: string, kind: (label: string) => boolean): string[] {
  return [...text.matchAll(PEM_BLOCK)].filter((m) => kind(m[1]!)).map((m) => `${m[0]}\n`);
}

const isCert = (label: string) => label === 'CERTIFICATE';
const isKey = (label: string) => label.endsWith('PRIVATE KEY');

function normalType(type: string | null | undefined): string {
  return (type ?? 'JKS').trim().toUpperCase();
}

/** The identity a keystore holds; null when none is configured. */
export function loadKeyStore(spec: KeyStoreSpec, what = 'keystore'): TlsIdentity | null {
  const type = normalType(spec.type);
  const passphrase = spec.keyPassword ?? undefined;
  if (spec.certificateChain || spec.key) {
    if (type !== 'PEM')
      throw new TlsStoreError(
        `ssl.keystore.certificate.chain and ssl.keystore.key need ssl.keystore.type=PEM (got ${type})`,
      );
    if (!spec.certificateChain || !spec.key)
      throw new TlsStoreError('ssl.keystore.certificate.chain and ssl.keystore.key must be set together');
    return identity(spec.certificateChain, spec.key, passphrase, 'ssl.keystore.certificate.chain');
  }
  if (!spec.location) return null;
  const file = readStore(spec.location, what);
  if (type === 'PEM') {
    const text = file.toString('utf8');
    return identity(text, text, passphrase, spec.location);
  }
  if (type !== 'JKS' && type !== 'PKCS12' && type !== 'JCEKS')
    throw new TlsStoreError(`unknown ${what} type ${type} (PKCS12 or PEM)`);
  refuseJks(file, spec.location, what);
  // Node opens a PKCS12 with one password; Kafka's keystores use the same one for the key.
  return { pfx: file, passphrase: spec.password ?? spec.keyPassword ?? '' };
}

function identity(
  certText: string,
  keyText: string,
  passphrase: string | undefined,
  where: string,
): TlsIdentity {
  const certs = pemBlocks(certText, isCert);
  const keys = pemBlocks(keyText, isKey);
  if (certs.length === 0) throw new TlsStoreError(`no certificate (PEM) in ${where}`);
  if (keys.length !== 1)
    throw new TlsStoreError(`expected one private key (PEM) in ${where}, found ${keys.length}`);
  return { cert: certs.join(''), key: keys[0]!, ...(passphrase !== undefined ? { passphrase } : {}) };
}

/** The trusted certificates (PEM); null when no truststore is configured (system CAs). */
export function loadTrustStore(spec: TrustStoreSpec, what = 'truststore'): string[] | null {
  const type = normalType(spec.type);
  if (spec.certificates) {
    if (type !== 'PEM')
      throw new TlsStoreError(`ssl.truststore.certificates needs ssl.truststore.type=PEM (got ${type})`);
    return trusted(pemBlocks(spec.certificates, isCert), 'ssl.truststore.certificates');
  }
  if (!spec.location) return null;
  const file = readStore(spec.location, what);
  if (type === 'PEM') return trusted(pemBlocks(file.toString('utf8'), isCert), spec.location);
  if (type !== 'JKS' && type !== 'PKCS12' && type !== 'JCEKS')
    throw new TlsStoreError(`unknown ${what} type ${type} (PKCS12 or PEM)`);
  refuseJks(file, spec.location, what);
  try {
    return trusted(pkcs12Certificates(file, spec.password ?? ''), spec.location);
  } catch (e) {
    if (e instanceof TlsStoreError) throw e;
    throw new TlsStoreError(`cannot read the ${what} ${spec.location}: ${(e as Error).message}`);
  }
}

function trusted(certs: string[], where: string): string[] {
  if (certs.length === 0) throw new TlsStoreError(`no certificate in ${where}`);
  return certs;
}
