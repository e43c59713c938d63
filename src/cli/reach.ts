// Before a client command starts its producer, consumer or admin client, it checks that a
// bootstrap server accepts TCP connections. The clients themselves retry a down broker for their
// full timeouts (30-60 s, then an error about the topic); a person at a terminal wants to hear
// "cannot reach localhost:9092 (connection refused)" within seconds. The check retries for a
// few seconds (a broker that is just starting), saying so once, then gives up with that line.

import { connect } from 'node:net';
import { parseHostPort } from '../client/config.js';
import { CommandError, type CommandIO, CommandUsageError } from './commands/common.js';

/** How long a command waits for an unreachable bootstrap server before giving up. */
export const REACH_TIMEOUT_MS = 3000;

const REASONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ENOTFOUND: 'unknown host',
  EAI_AGAIN: 'host name lookup failed',
  EADDRNOTAVAIL: 'address not available',
};

function reasonOf(e: unknown): string {
  const err = e as { code?: unknown; errors?: { code?: unknown }[]; message?: string };
  const code =
    typeof err.code === 'string' ? err.code : err.errors?.find((x) => typeof x.code === 'string')?.code;
  if (typeof code === 'string') return REASONS[code] ?? code;
  return err.message ?? String(e);
}

/** Resolves when a TCP connection to host:port opens, rejects with the reason otherwise. */
function tryConnect(host: string, port: number, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' }));
    }, timeoutMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.destroy();
      resolve();
    });
    socket.once('error', (e) => {
      clearTimeout(timer);
      socket.destroy();
      reject(e);
    });
  });
}

function parseServers(bootstrap: string): { host: string; port: number; text: string }[] {
  const list = bootstrap
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (list.length === 0) throw new CommandUsageError('--bootstrap-server names no broker');
  return list.map((text) => {
    try {
      return { ...parseHostPort(text), text };
    } catch {
      throw new CommandUsageError(`bootstrap server "${text}" is not host:port`);
    }
  });
}

/**
 * Waits until one of the bootstrap servers accepts a connection, for at most `timeoutMs`;
 * then throws "cannot reach HOST:PORT (reason)". Says once on stderr that it is retrying.
 */
export async function ensureReachable(
  bootstrap: string,
  io: CommandIO,
  timeoutMs: number = REACH_TIMEOUT_MS,
): Promise<void> {
  const servers = parseServers(bootstrap);
  const deadline = Date.now() + timeoutMs;
  let wait = 100;
  for (let attempt = 0; ; attempt++) {
    const perAttempt = Math.max(200, Math.min(2000, deadline - Date.now()));
    const results = await Promise.allSettled(servers.map((s) => tryConnect(s.host, s.port, perAttempt)));
    if (results.some((r) => r.status === 'fulfilled')) return;
    const failures = servers
      .map((s, i) => `${s.text} (${reasonOf((results[i] as PromiseRejectedResult).reason)})`)
      .join(', ');
    const left = deadline - Date.now();
    if (left <= 0) throw new CommandError(`cannot reach ${failures}`);
    if (attempt === 0) {
      io.stderr.write(
        `samsa: cannot reach ${failures}; retrying for ${(Math.max(left, 0) / 1000).toFixed(0)} s\n`,
      );
    }
    await new Promise((r) => setTimeout(r, Math.min(wait, left)));
    wait = Math.min(wait * 2, 1000);
  }
}
