// A broker in its own process (`samsa start` through tsx) on a fixed port and data directory,
// so group tests can SIGKILL it and start it again where clients expect it.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LOADER_FLAGS, moduleFile } from '../../support/repo.js';
import { scaled } from '../../support/timeouts.js';

const MAIN = moduleFile('src/cli/main.ts');

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const addr = s.address();
      const port = typeof addr === 'object' && addr !== null ? addr.port : 0;
      s.close(() => resolve(port));
    });
  });
}

export class BrokerProcess {
  child: ChildProcess | null = null;
  output = '';

  private constructor(
    readonly port: number,
    readonly dataDir: string,
    readonly overrides: Record<string, string | number>,
  ) {}

  static async create(overrides: Record<string, string | number> = {}): Promise<BrokerProcess> {
    return new BrokerProcess(await freePort(), await mkdtemp(join(tmpdir(), 'samsa-groups-')), overrides);
  }

  get bootstrap(): string {
    return `127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const args = [
      ...LOADER_FLAGS,
      MAIN,
      'start',
      '--port',
      String(this.port),
      '--data-dir',
      this.dataDir,
      '--log-level',
      'warn',
    ];
    for (const [k, v] of Object.entries(this.overrides)) args.push('--override', `${k}=${v}`);
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    await new Promise<void>((resolve, reject) => {
      const ms = scaled(60_000);
      const timer = setTimeout(
        () => reject(new Error(`broker did not start: timed out after ${ms} ms:\n${this.output}`)),
        ms,
      );
      const onData = (d: Buffer) => {
        this.output += d.toString();
        if (this.output.includes('listening on')) {
          clearTimeout(timer);
          resolve();
        }
      };
      child.stdout?.on('data', onData);
      child.stderr?.on('data', (d: Buffer) => (this.output += d.toString()));
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`broker exited with ${code}:\n${this.output}`));
      });
    });
  }

  /** SIGTERM (clean shutdown) or SIGKILL; resolves once the process is gone. */
  async stop(signal: 'SIGTERM' | 'SIGKILL'): Promise<void> {
    const child = this.child;
    // A process killed by a signal has no exit code: without the signalCode check, a second
    // stop (the after-hook's, behind a stop a timed-out test abandoned) waited for an 'exit'
    // event that had already been emitted, and the file hung.
    if (child === null || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill(signal);
    await exited;
    this.child = null;
  }

  async destroy(): Promise<void> {
    await this.stop('SIGKILL');
    await rm(this.dataDir, { recursive: true, force: true });
  }
}
