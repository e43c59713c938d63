// SCRAM's derived keys (RFC 5802 §3, RFC 7677 for SHA-256), shared by the client and the broker:
// SaltedPassword = PBKDF2-HMAC(password, salt, iterations), ClientKey = HMAC(SaltedPassword,
// "Client Key"), StoredKey = H(ClientKey), ServerKey = HMAC(SaltedPassword, "Server Key").
// Kafka stores salt, StoredKey, ServerKey and the iteration count, never the password.

import { createHash, createHmac, pbkdf2Sync, randomBytes, timingSafeEqual } from 'node:crypto';

export const SCRAM_MECHANISMS = ['SCRAM-SHA-256', 'SCRAM-SHA-512'] as const;
export type ScramMechanism = (typeof SCRAM_MECHANISMS)[number];

/** Kafka's ScramMechanism bounds (AlterUserScramCredentials refuses values outside them). */
export const SCRAM_MIN_ITERATIONS = 4096;
export const SCRAM_MAX_ITERATIONS = 16384;

export interface ScramCredential {
  readonly salt: Buffer;
  readonly storedKey: Buffer;
  readonly serverKey: Buffer;
  readonly iterations: number;
}

export function isScramMechanism(m: string): m is ScramMechanism {
  return (SCRAM_MECHANISMS as readonly string[]).includes(m);
}

export function hashName(m: ScramMechanism): 'sha256' | 'sha512' {
  return m === 'SCRAM-SHA-256' ? 'sha256' : 'sha512';
}

export function hmac(m: ScramMechanism, key: Buffer, data: Buffer | string): Buffer {
  return createHmac(hashName(m), key).update(data).digest();
}

export function hash(m: ScramMechanism, data: Buffer): Buffer {
  return createHash(hashName(m)).update(data).digest();
}

export function saltedPassword(
  m: ScramMechanism,
  password: string,
  salt: Buffer,
  iterations: number,
): Buffer {
  // Kafka (ScramFormatter) and librdkafka use the UTF-8 bytes as they are, without SASLprep.
  const h = hashName(m);
  return pbkdf2Sync(Buffer.from(password, 'utf8'), salt, iterations, h === 'sha256' ? 32 : 64, h);
}

export function clientKey(m: ScramMechanism, salted: Buffer): Buffer {
  return hmac(m, salted, 'Client Key');
}

export function serverKey(m: ScramMechanism, salted: Buffer): Buffer {
  return hmac(m, salted, 'Server Key');
}

/** What the broker stores for a salted password (AlterUserScramCredentials sends the latter). */
export function credentialFromSaltedPassword(
  m: ScramMechanism,
  salt: Buffer,
  salted: Buffer,
  iterations: number,
): ScramCredential {
  return { salt, storedKey: hash(m, clientKey(m, salted)), serverKey: serverKey(m, salted), iterations };
}

export function newScramCredential(
  m: ScramMechanism,
  password: string,
  iterations = SCRAM_MIN_ITERATIONS,
): ScramCredential {
  const salt = randomBytes(32);
  return credentialFromSaltedPassword(m, salt, saltedPassword(m, password, salt, iterations), iterations);
}

export function xor(a: Buffer, b: Buffer): Buffer {
  const out = Buffer.alloc(a.length);
  for (let i = 0; i < a.length; i++) out[i] = a[i]! ^ (b[i] ?? 0);
  return out;
}

export function constantTimeEqual(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** A printable nonce (RFC 5802 forbids ','), as Kafka's ScramFormatter makes one. */
export function scramNonce(): string {
  return randomBytes(24).toString('base64url');
}

/** Kafka's stored form (ScramCredentialUtils): `salt=…,stored_key=…,server_key=…,iterations=N`. */
export function credentialToString(c: ScramCredential): string {
  return `salt=${c.salt.toString('base64')},stored_key=${c.storedKey.toString('base64')},server_key=${c.serverKey.toString('base64')},iterations=${c.iterations}`;
}

export function credentialFromString(s: string): ScramCredential {
  const fields = new Map<string, string>();
  for (const part of s.split(',')) {
    const eq = part.indexOf('=');
    if (eq <= 0) throw new Error('malformed SCRAM credential');
    fields.set(part.slice(0, eq), part.slice(eq + 1));
  }
  const iterations = Number(fields.get('iterations'));
  const salt = fields.get('salt');
  const stored = fields.get('stored_key');
  const server = fields.get('server_key');
  if (fields.size !== 4 || !salt || !stored || !server || !Number.isInteger(iterations))
    throw new Error('malformed SCRAM credential');
  return {
    salt: Buffer.from(salt, 'base64'),
    storedKey: Buffer.from(stored, 'base64'),
    serverKey: Buffer.from(server, 'base64'),
    iterations,
  };
}
