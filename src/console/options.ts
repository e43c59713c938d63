// What the console is told: the cluster to reach (client options), read-only mode, the login
// (basic auth from config, or each user's own SASL credentials checked against the cluster), how
// often it samples the cluster. `consoleSettingsFrom` reads the `console.*` keys of a broker's
// server.properties for `samsa start`; `samsa console` builds the same object from its flags.
import { readFileSync } from 'node:fs';
import type { ClientOptions, ClientSaslMechanism } from '../client/index.js';

export interface ConsoleUser {
  readonly user: string;
  readonly password: string;
}

export const SASL_LOGIN_MECHANISMS: readonly ClientSaslMechanism[] = [
  'SCRAM-SHA-256',
  'SCRAM-SHA-512',
  'PLAIN',
];

export interface SaslLoginOptions {
  /** Mechanisms the login page offers (the first is the default); the cluster must enable them. */
  readonly mechanisms: readonly ClientSaslMechanism[];
  /** A session ends this long after its login (ms). */
  readonly sessionTimeoutMs?: number;
}

export interface ConsoleOptions {
  /** How the console's Admin, Consumer and Producer reach the cluster. */
  readonly client: ClientOptions;
  /** Refuse every write (the API answers 403, the UI hides write actions). */
  readonly readOnly?: boolean;
  /** Basic-auth users; empty or absent = no login. */
  readonly users?: readonly ConsoleUser[];
  /**
   * Log in with SASL credentials: the console authenticates a client connection with them and
   * then acts as that user (the cluster's ACLs decide what each user sees and does). Exclusive
   * with `users`.
   */
  readonly saslLogin?: SaslLoginOptions;
  /** How often the console samples the cluster (lag, throughput) while a page is open (ms). */
  readonly refreshMs?: number;
  /** How often it samples while no page is open (ms); 0 = not at all. */
  readonly idleRefreshMs?: number;
  /** The sliding window throughput rates average over (ms). */
  readonly throughputWindowMs?: number;
  /** Lag samples kept per group. */
  readonly historySize?: number;
}

/** The broker keys `samsa start` reads for the console it mounts on `http.listener`. */
export const CONSOLE_KEYS = [
  'console.enable',
  'console.read.only',
  'console.auth.user',
  'console.auth.password',
  'console.auth.file',
  'console.auth.sasl.mechanisms',
  'console.auth.session.timeout.ms',
  'console.refresh.ms',
  'console.idle.refresh.ms',
  'console.throughput.window.ms',
] as const;

export interface ConsoleSettings {
  readonly enabled: boolean;
  readonly readOnly: boolean;
  readonly users: ConsoleUser[];
  readonly saslLogin: SaslLoginOptions | undefined;
  readonly refreshMs: number | undefined;
  readonly idleRefreshMs: number | undefined;
  readonly throughputWindowMs: number | undefined;
}

export class ConsoleConfigError extends Error {
  override name = 'ConsoleConfigError';
}

function bool(props: ReadonlyMap<string, string>, key: string, dflt: boolean): boolean {
  const v = props.get(key)?.trim().toLowerCase();
  if (v === undefined || v === '') return dflt;
  if (v === 'true' || v === 'false') return v === 'true';
  throw new ConsoleConfigError(`${key} must be true or false, got ${JSON.stringify(props.get(key))}`);
}

function millis(props: ReadonlyMap<string, string>, key: string, min: number): number | undefined {
  const v = props.get(key);
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v.trim()))
    throw new ConsoleConfigError(`${key} must be a number of milliseconds, got ${JSON.stringify(v)}`);
  return Math.max(min, Number(v));
}

/** `SCRAM-SHA-256,PLAIN` → the mechanisms, each one the client speaks, no repeats. */
export function parseSaslMechanisms(text: string, what: string): ClientSaslMechanism[] {
  const list = text
    .split(',')
    .map((m) => m.trim().toUpperCase())
    .filter((m) => m !== '');
  if (list.length === 0) throw new ConsoleConfigError(`${what} names no SASL mechanism`);
  for (const m of list)
    if (!(SASL_LOGIN_MECHANISMS as readonly string[]).includes(m))
      throw new ConsoleConfigError(`${what}: ${m} is not one of ${SASL_LOGIN_MECHANISMS.join(', ')}`);
  return [...new Set(list)] as ClientSaslMechanism[];
}

/** Reads `console.*` keys; an unknown `console.` key is an error (a typo must not open a login). */
export function consoleSettingsFrom(props: ReadonlyMap<string, string>): ConsoleSettings {
  for (const k of props.keys())
    if (k.startsWith('console.') && !(CONSOLE_KEYS as readonly string[]).includes(k))
      throw new ConsoleConfigError(`unknown console config ${k} (known: ${CONSOLE_KEYS.join(', ')})`);
  const user = props.get('console.auth.user');
  const password = props.get('console.auth.password');
  if ((user === undefined) !== (password === undefined))
    throw new ConsoleConfigError('console.auth.user and console.auth.password go together');
  const users: ConsoleUser[] = user !== undefined ? [{ user, password: password! }] : [];
  const file = props.get('console.auth.file');
  if (file !== undefined) users.push(...readUsersFile(file));
  const mechanisms = props.get('console.auth.sasl.mechanisms');
  const sessionTimeoutMs = millis(props, 'console.auth.session.timeout.ms', 1000);
  if (mechanisms !== undefined && users.length > 0)
    throw new ConsoleConfigError(
      'console.auth.sasl.mechanisms (log in with SASL credentials) and console.auth.user/console.auth.file (basic auth) exclude each other',
    );
  if (mechanisms === undefined && sessionTimeoutMs !== undefined)
    throw new ConsoleConfigError('console.auth.session.timeout.ms needs console.auth.sasl.mechanisms');
  return {
    enabled: bool(props, 'console.enable', true),
    readOnly: bool(props, 'console.read.only', false),
    users,
    saslLogin:
      mechanisms === undefined
        ? undefined
        : {
            mechanisms: parseSaslMechanisms(mechanisms, 'console.auth.sasl.mechanisms'),
            ...(sessionTimeoutMs !== undefined ? { sessionTimeoutMs } : {}),
          },
    refreshMs: millis(props, 'console.refresh.ms', 250),
    idleRefreshMs: millis(props, 'console.idle.refresh.ms', 0),
    throughputWindowMs: millis(props, 'console.throughput.window.ms', 1000),
  };
}

/** A users file: one `user:password` per line; blank lines and `#` comments are skipped. */
export function readUsersFile(path: string): ConsoleUser[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new ConsoleConfigError(`cannot read console users file ${path}: ${(e as Error).message}`);
  }
  const users: ConsoleUser[] = [];
  for (const [i, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const colon = line.indexOf(':');
    if (colon <= 0) throw new ConsoleConfigError(`${path}:${i + 1}: expected user:password`);
    users.push({ user: line.slice(0, colon), password: line.slice(colon + 1) });
  }
  if (users.length === 0) throw new ConsoleConfigError(`${path} names no user`);
  return users;
}
