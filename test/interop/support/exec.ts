// Runs an external client (kcat, python3) with a hard timeout and optional stdin.

import { spawn } from 'node:child_process';
import { scaled } from '../../support/timeouts.js';

export interface ExecResult {
  code: number | null;
  stdout: Buffer;
  stderr: string;
  /** Killed at the (scaled) timeout; `stderr` then ends with a "timed out after N ms" line. */
  timedOut: boolean;
}

export function exec(
  cmd: string,
  args: readonly string[],
  opts: { input?: Buffer | string; timeoutMs?: number; env?: NodeJS.ProcessEnv } = {},
): Promise<ExecResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, [...args], { stdio: ['pipe', 'pipe', 'pipe'], env: opts.env ?? process.env });
    const out: Buffer[] = [];
    let err = '';
    let timedOut = false;
    const ms = scaled(opts.timeoutMs ?? 60_000);
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, ms);
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString();
    });
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      if (timedOut) err += `\n${cmd}: timed out after ${ms} ms (killed)\n`;
      resolve({ code, stdout: Buffer.concat(out), stderr: err, timedOut });
    });
    child.stdin.on('error', () => {});
    child.stdin.end(opts.input ?? '');
  });
}
