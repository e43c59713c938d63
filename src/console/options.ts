// What the console is told: the cluster to reach (client options), read-only mode, the login,
// how often it samples the cluster. `consoleSettingsFrom` reads the `console.*` keys of a broker's
// server.properties for `samsa start`; `samsa console` builds the same object from its flags.
import { readFileSync } from 'node:fs';
import type { ClientOptions } from '../client/index.js';

export interface ConsoleUser {
  readonly user: string;
  readonly password: string;
}

export interface ConsoleOptions {
  /** How the console's Admin, Consumer and Producer reach the cluster. */
  readonly client: ClientOptions;
  /** Refuse every write (the API answers 403, the UI hides write actions). */
  readonly readOnly?: boolean;
  /** Basic-auth users; empty or absent = no login. */
  readonly users?: readonly ConsoleUser[];
  /** How often group lag is sampled for the history chart and pushed to open pages (ms). */
  readonly refreshMs?: number;
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
  'console.refresh.ms',
] as const;

export interface ConsoleSettings {
  readonly enabled: boolean;
  readonly readOnly: boolean;
  readonly users: ConsoleUser[];
  readonly refreshMs: number | undefined;
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
  const refresh = props.get('console.refresh.ms');
  if (refresh !== undefined && !/^\d+$/.test(refresh.trim()))
    throw new ConsoleConfigError(`console.refresh.ms must be a number of milliseconds, got ${refresh}`);
  return {
    enabled: bool(props, 'console.enable', true),
    readOnly: bool(props, 'console.read.only', false),
    users,
    refreshMs: refresh === undefined ? undefined : Math.max(250, Number(refresh)),
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
