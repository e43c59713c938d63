// Runs `samsa start` as a child process (through tsx, so no build is needed) for tests that
// must stop the broker abruptly (SIGKILL) or check the CLI itself.

import { type ChildProcess, spawn } from 'node:child_process';
import { LOADER_FLAGS, moduleFile } from '../../support/repo.js';
import { scaled } from '../../support/timeouts.js';

const MAIN = moduleFile('src/cli/main.ts');

export interface BrokerProcess {
  readonly child: ChildProcess;
  readonly host: string;
  readonly port: number;
  readonly output: () => string;
  /** Resolves with the exit code (or signal name). */
  readonly exited: Promise<number | string>;
}

/** Starts `samsa start ARGS`; waits (scaled) `timeoutMs` for its "listening on" line. */
export async function spawnBroker(args: readonly string[], timeoutMs = 60_000): Promise<BrokerProcess> {
  const child = spawn(process.execPath, [...LOADER_FLAGS, MAIN, 'start', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stderr!.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const exited = new Promise<number | string>((resolve) =>
    child.on('exit', (code, signal) => resolve(code ?? signal ?? -1)),
  );
  const ms = scaled(timeoutMs);
  const deadline = Date.now() + ms;
  for (;;) {
    const m = /listening on (\S+):(\d+)/.exec(out);
    if (m) return { child, host: m[1]!, port: Number(m[2]), output: () => out, exited };
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      const why = child.exitCode !== null ? `exited with ${child.exitCode}` : `timed out after ${ms} ms`;
      throw new Error(`broker did not start (${why}):\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}
