// One line for each way `samsa start` (or any command) can fail for a reason the user can fix: a
// port in use, a log dir that is a file or not writable, an invalid config value. Only a failure
// we did not foresee (a bug) still prints its stack.

import { ConfigError } from '../broker/config/broker-config.js';
import { PropertiesSyntaxError } from '../broker/config/properties.js';
import { ErrorCode, KafkaError } from '../protocol/errors.js';
import { CommandUsageError } from './commands/common.js';

interface SystemError extends Error {
  code: string;
  syscall?: string;
  path?: string;
  address?: string;
  port?: number;
  hostname?: string;
}

function isSystemError(e: unknown): e is SystemError {
  const code = (e as { code?: unknown })?.code;
  return e instanceof Error && typeof code === 'string' && /^E[A-Z0-9_]+$/.test(code);
}

const FS_REASONS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on device',
  EDQUOT: 'disk quota exceeded',
  ENOTDIR: 'a part of the path is not a directory',
  EISDIR: 'is a directory',
  ENOENT: 'no such file or directory',
  EMFILE: 'too many open files',
  ENFILE: 'too many open files in the system',
  ELOOP: 'too many symbolic links',
  ENAMETOOLONG: 'file name too long',
};

function describeSystemError(e: SystemError): string {
  if (e.syscall === 'listen' || e.syscall === 'bind') {
    const where =
      e.address === undefined ? 'the listener' : e.port === undefined ? e.address : `${e.address}:${e.port}`;
    if (e.code === 'EADDRINUSE')
      return `cannot listen on ${where}: address already in use (is another broker running? choose another port with --port or listeners)`;
    if (e.code === 'EADDRNOTAVAIL') return `cannot listen on ${where}: no such address on this machine`;
    if (e.code === 'EACCES')
      return `cannot listen on ${where}: permission denied (ports below 1024 need privileges)`;
    return `cannot listen on ${where}: ${e.code}`;
  }
  if (e.syscall === 'getaddrinfo')
    return `cannot resolve host ${e.hostname ?? ''}: ${e.code}`.replace(/ +:/, ':');
  if (e.code === 'EEXIST' && e.syscall === 'mkdir') return `${e.path} exists and is not a directory`;
  const reason = FS_REASONS[e.code] ?? e.code;
  if (e.path !== undefined) return `cannot ${e.syscall ?? 'use'} ${e.path}: ${reason}`;
  return `${e.syscall ?? 'system call'} failed: ${reason}`;
}

/** The one line to print for an error the user can act on, or null for an unexpected one. */
export function describeFailure(err: unknown): string | null {
  if (err instanceof CommandUsageError) return err.message;
  if (err instanceof ConfigError || err instanceof PropertiesSyntaxError)
    return `invalid configuration: ${err.message}`;
  if (err instanceof KafkaError) {
    return err.code === ErrorCode.INVALID_CONFIG ? `invalid configuration: ${err.message}` : err.message;
  }
  if (isSystemError(err)) return describeSystemError(err);
  // Errors with a stable string code of our own (LOG_DIR_IN_USE, INVALID_CONFIG, …) say what
  // happened in their message.
  const code = (err as { code?: unknown })?.code;
  if (err instanceof Error && typeof code === 'string' && /^[A-Z][A-Z0-9_]+$/.test(code)) return err.message;
  return null;
}
