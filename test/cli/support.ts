// Running the `samsa` command in tests: as a child process through tsx (no build needed), with its
// exit status, output and duration; and in-process through a command's run function with
// captured streams.

import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { PassThrough } from 'node:stream';
import { LOADER_FLAGS, moduleFile, repoFile } from '../support/repo.js';
import { scaled, TestTimeoutError } from '../support/timeouts.js';

export const MAIN = moduleFile('src/cli/main.ts');
export const REPO = repoFile('./');

export interface CliResult {
  code: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Runs `samsa ARGS` to its end; fails after (scaled) `timeoutMs`, killing it. */
export function runCli(
  args: readonly string[],
  o: { stdin?: string; timeoutMs?: number; env?: NodeJS.ProcessEnv } = {},
): Promise<CliResult> {
  const started = Date.now();
  const child = spawn(process.execPath, [...LOADER_FLAGS, MAIN, ...args], {
    cwd: REPO,
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, ...o.env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => {
    stdout += d.toString();
  });
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  child.stdin.on('error', () => {});
  child.stdin.end(o.stdin ?? '');
  // A liveness bound: a fresh process compiles the TypeScript it loads (tsx), which at a load
  // of 25+ on two cores takes most of a minute for `samsa start`.
  const ms = scaled(o.timeoutMs ?? 120_000);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new TestTimeoutError(`samsa ${args.join(' ')} to exit`, ms, `stdout: ${stdout}\nstderr: ${stderr}`),
      );
    }, ms);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, ms: Date.now() - started });
    });
  });
}

/** A port nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

/** Streams for a command's run function, and what was written to them. */
export function captureIO(stdinText = '') {
  const out: string[] = [];
  const err: string[] = [];
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  stdout.on('data', (d: Buffer) => out.push(d.toString()));
  stderr.on('data', (d: Buffer) => err.push(d.toString()));
  stdin.end(stdinText);
  return {
    io: { stdin, stdout, stderr },
    stdout: () => out.join(''),
    stderr: () => err.join(''),
  };
}

/** Lines of a text, without the empty last one. */
export function lines(text: string): string[] {
  return text.split('\n').filter((l, i, all) => l !== '' || i < all.length - 1);
}
