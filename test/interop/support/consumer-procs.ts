// Runs consumer child processes and collects what each one printed.
import { type ChildProcess, spawn } from 'node:child_process';
import { nodeArgs, repoFile } from '../../support/repo.js';
import { scaled, TestTimeoutError } from '../../support/timeouts.js';

export interface ConsumedRecord {
  partition: number;
  offset: number;
}

export class ConsumerProc {
  readonly records: ConsumedRecord[] = [];
  /** kafkajs: the whole assignment after each join. */
  readonly assignments: number[][] = [];
  /** librdkafka: rebalance callbacks (incremental with cooperative-sticky). */
  readonly events: Array<{ kind: 'assign' | 'revoke'; partitions: number[] }> = [];
  stderr = '';
  #buf = '';
  readonly exited: Promise<number | null>;

  constructor(
    readonly name: string,
    readonly child: ChildProcess,
  ) {
    child.stdout?.on('data', (d: Buffer) => {
      this.#buf += d.toString();
      let nl = this.#buf.indexOf('\n');
      while (nl >= 0) {
        this.#line(this.#buf.slice(0, nl));
        this.#buf = this.#buf.slice(nl + 1);
        nl = this.#buf.indexOf('\n');
      }
    });
    child.stderr?.on('data', (d: Buffer) => (this.stderr += d.toString()));
    this.exited = new Promise((r) => child.once('exit', (code) => r(code)));
  }

  #line(line: string): void {
    if (line.startsWith('m ')) {
      const [, p, o] = line.split(' ');
      this.records.push({ partition: Number(p), offset: Number(o) });
    } else if (line.startsWith('assigned ')) {
      this.assignments.push(JSON.parse(line.slice(9)) as number[]);
    } else if (line.startsWith('assign ') || line.startsWith('revoke ')) {
      this.events.push({
        kind: line.slice(0, 6) as 'assign' | 'revoke',
        partitions: JSON.parse(line.slice(7)) as number[],
      });
    }
  }

  static node(name: string, script: string, args: string[]): ConsumerProc {
    return new ConsumerProc(
      name,
      spawn(process.execPath, nodeArgs(`test/interop/support/${script}`, ...args), {
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    );
  }

  static python(name: string, args: string[]): ConsumerProc {
    const path = repoFile('test/interop/support/ck_consumer.py');
    return new ConsumerProc(
      name,
      spawn('/usr/bin/python3', ['-u', path, ...args], { stdio: ['ignore', 'pipe', 'pipe'] }),
    );
  }

  /** Partitions owned now, from the rebalance callbacks (eager: assign replaces; cooperative: adds). */
  owned(incremental: boolean): number[] {
    let owned = new Set<number>();
    for (const e of this.events) {
      if (e.kind === 'assign')
        owned = incremental ? new Set([...owned, ...e.partitions]) : new Set(e.partitions);
      else for (const p of e.partitions) owned.delete(p);
    }
    return [...owned].sort((a, b) => a - b);
  }

  async kill(signal: 'SIGTERM' | 'SIGKILL'): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.kill(signal);
    await this.exited;
  }
}

/** Polls `cond` every 100 ms; `timeoutMs` is scaled (SAMSA_TEST_TIMEOUT_SCALE). */
export async function waitFor(cond: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const ms = scaled(timeoutMs);
  const start = Date.now();
  while (!cond()) {
    if (Date.now() - start > ms) throw new TestTimeoutError(what, ms);
    await new Promise((r) => setTimeout(r, 100));
  }
}
