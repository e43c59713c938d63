// One broker of bench/metrics-overhead.ts, in a process of its own: forked by the bench with a
// source tree (this one, or a baseline copy to compare before/after in the same run) and metrics
// on (`http.listener` set) or off; nothing else differs. A process per broker keeps what metrics
// cost process-wide (prom-client's default collectors: the GC observer, the event-loop delay
// monitor) on the broker that has them, keeps the two heaps and JITs apart, and lets the bench
// read each broker's own CPU time, without the client's.
//
// The parent drives it over IPC: `cpu` (process CPU µs), `scavengeAndCpu` (a young-generation
// collection, then the CPU time: the end of a timed phase), `gc` (a full collection, before each
// round), `profileStart` / `profileStop` (a V8 CPU profile of the phase, node:inspector),
// `metricWork` (the metric work of one produce request, timed alone), `close`.

import { type ChildProcess, fork } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { produceAnswer } from './answers.js';

export interface BrokerSpec {
  /** Root of the source tree whose broker runs (its src/testkit). */
  readonly tree: string;
  readonly metrics: boolean;
}

type Op = 'cpu' | 'scavengeAndCpu' | 'gc' | 'profileStart' | 'profileStop' | 'metricWork' | 'close';

/** The parent's handle on a broker process. */
export class BrokerProcess {
  #nextId = 0;
  readonly #pending = new Map<number, { resolve: (value: unknown) => void; reject: (e: Error) => void }>();

  private constructor(
    private readonly child: ChildProcess,
    readonly port: number,
  ) {
    child.on('message', (m: { id: number; result?: unknown; error?: string }) => {
      const p = this.#pending.get(m.id);
      this.#pending.delete(m.id);
      if (m.error === undefined) p?.resolve(m.result);
      else p?.reject(new Error(`broker process: ${m.error}`));
    });
    child.on('exit', (code) => {
      for (const p of this.#pending.values()) p.reject(new Error(`broker process exited (${code})`));
      this.#pending.clear();
    });
  }

  static start(spec: BrokerSpec): Promise<BrokerProcess> {
    const child = fork(fileURLToPath(import.meta.url), ['--serve', JSON.stringify(spec)], {
      execArgv: [...process.execArgv, '--expose-gc'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    return new Promise((resolvePort, reject) => {
      child.once('message', (m: { port: number }) => resolvePort(new BrokerProcess(child, m.port)));
      child.once('exit', (code) => reject(new Error(`broker process exited (${code})`)));
    });
  }

  call<T>(op: Op, arg?: string): Promise<T> {
    const id = this.#nextId++;
    return new Promise<T>((resolve, reject) => {
      this.#pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.child.send({ id, op, arg });
    });
  }

  async close(): Promise<void> {
    await this.call('close');
  }
}

/**
 * The metric work one acks=1 produce request of one batch adds, timed alone in a loop, with the
 * metrics classes of the process's tree (what the dispatcher and the produce handler call when
 * metrics are on): ns per request, at the loop's rate (so with the request timing sampled, where
 * the tree samples it). Machine noise swamps a 2 % difference in the throughput rounds; this
 * figure does not depend on it. Knows the earlier APIs too, for a baseline tree.
 */
async function metricWorkNs(tree: string): Promise<number> {
  const url = pathToFileURL(resolve(tree, 'src/broker/metrics/broker-metrics.ts')).href;
  const { BrokerMetrics } = (await import(url)) as { BrokerMetrics: new () => AnyMetrics };
  const m = new BrokerMetrics();
  const frames = Array.from({ length: 64 }, () => Buffer.alloc(64));
  const append = { baseOffset: 100n, lastOffset: 109n, logAppendTime: -1n, logStartOffset: 0n };
  // The produce handler's answer for one partition, as the dispatcher counts its error codes.
  const response = produceAnswer(1, 1, 100n);
  const n = 1_000_000;
  const run = () => {
    const t0 = performance.now();
    for (let i = 0; i < n; i++) {
      const frame = frames[i & 63]!;
      m.timer.arrived(frame);
      const timing = m.timer.start(frame);
      m.topics.produceAttempted?.('bench');
      m.topics.appended('bench', 1200, append);
      if (m.timer.settled === undefined) timing!.handled('Produce', 9)();
      else {
        m.timer.settled();
        const stats = m.requests.api('Produce');
        stats.counted(9);
        stats.countErrors?.(response, 0);
        timing?.handled(stats)();
      }
    }
    return ((performance.now() - t0) * 1e6) / n;
  };
  run(); // warm-up (JIT)
  return Math.min(run(), run(), run());
}

/** The metrics classes of this tree or of the one before it (`handled(name, version)`). */
interface AnyMetrics {
  timer: {
    arrived(frame: Buffer): void;
    start(frame: Buffer): { handled(api: unknown, version?: number): () => void } | undefined;
    settled?: () => void;
  };
  requests: {
    api(name: string): {
      counted(version: number): void;
      /** Since ErrorsPerSec. */
      countErrors?(response: object, apiKey: number): void;
    };
  };
  topics: {
    appended(topic: string, bytes: number, r: unknown): void;
    /** Since the Total/FailedProduceRequests counts. */
    produceAttempted?(topic: string): void;
  };
}

async function serve(spec: BrokerSpec): Promise<void> {
  const testkit = pathToFileURL(resolve(spec.tree, 'src/testkit/index.ts')).href;
  const { startTestBroker } = (await import(testkit)) as typeof import('../src/testkit/index.js');
  const broker = await startTestBroker(spec.metrics ? { overrides: { 'http.listener': '127.0.0.1:0' } } : {});
  const { Session } = await import('node:inspector/promises');
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 100 });
  const collect = (globalThis as { gc?: (options?: { type: 'minor' | 'major' }) => void }).gc!;
  const cpu = () => {
    const u = process.cpuUsage();
    return u.user + u.system;
  };
  const ops: Record<Op, (arg?: string) => Promise<unknown> | unknown> = {
    cpu,
    scavengeAndCpu: () => {
      collect({ type: 'minor' });
      return cpu();
    },
    gc: () => collect(),
    profileStart: () => session.post('Profiler.start'),
    profileStop: async (file) => {
      const { profile } = await session.post('Profiler.stop');
      writeFileSync(file!, JSON.stringify(profile));
    },
    metricWork: () => metricWorkNs(spec.tree),
    close: async () => {
      session.disconnect();
      await broker.close();
      setImmediate(() => process.exit(0));
    },
  };
  process.on('message', async (m: { id: number; op: Op; arg?: string }) => {
    try {
      const result = await ops[m.op](m.arg);
      process.send!({ id: m.id, result: result ?? null });
    } catch (e) {
      process.send!({ id: m.id, error: String(e) });
    }
  });
  process.send!({ port: broker.port });
}

const serveAt = process.argv.indexOf('--serve');
if (serveAt >= 0)
  serve(JSON.parse(process.argv[serveAt + 1]!) as BrokerSpec).catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
