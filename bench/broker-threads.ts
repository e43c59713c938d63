// Network threads (`num.network.threads`): the same librdkafka producer/consumer
// (bench/rdkafka-bench.c) against a broker with 1 thread (the event loop does everything: the
// baseline) and with 2 (one network thread owns the socket, the event loop handles), alternating
// in the same run. Each broker runs from dist/ as its own process, so its CPU is read from /proc
// — in total and per thread: the event loop (tid = pid), network threads, and the rest (libuv's
// pool, the write worker, V8's helpers) — which is what the 16-core expectation is built from.
// Also times the hand-off itself (postMessage, transfers) between two threads.
// BEFORE=<dir>: also a broker of another tree with 2 threads (a copy taken before a change and
// built with tsc there: `git archive HEAD | tar -x -C /tmp/before`, node_modules linked), in the
// same rounds.
//
// --precheck: only what a network thread spends on a Produce frame before posting it
// (`precheckProduce`: decode + batch checks) against the batch checks alone, CPU ns per frame.
//
//   npm run build && npx tsx bench/broker-threads.ts [--rounds 3] [--count 200000] [--size 1024]
//   npx tsx bench/broker-threads.ts --precheck [--size 1024]

import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { precheckProduce } from '../src/broker/network/threads/produce-precheck.js';
import { encodeRequest } from '../src/protocol/messages/frame.js';
import { produceApi } from '../src/protocol/messages/generated/produce.js';
import { encodeRecordBatchSync } from '../src/protocol/record-batch/index.js';
import { checkClientBatch } from '../src/storage/log-validator.js';

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const ROUNDS = arg('rounds', 3);
const COUNT = arg('count', 200_000);
const SIZE = arg('size', 1024);
interface Config {
  label: string;
  /** The built broker to run (`dist/src/cli/main.js` of a tree). */
  main: string;
  threads: number;
}
const CONFIGS: Config[] = [
  { label: '1', main: 'dist/src/cli/main.js', threads: 1 },
  { label: '2', main: 'dist/src/cli/main.js', threads: 2 },
  ...(process.env.BEFORE
    ? [{ label: '2, before', main: join(process.env.BEFORE, 'dist/src/cli/main.js'), threads: 2 }]
    : []),
];
const TMP = '.bench-tmp/broker-threads';
const TOOL = join(TMP, 'rdkafka-bench');

const ticks = (stat: string) => {
  const f = stat.split(') ')[1]!.split(' ');
  return (Number(f[11]) + Number(f[12])) * 10; // ms (USER_HZ 100)
};

/** CPU ms of a broker process by thread kind. */
function threadCpu(
  pid: number,
  network: ReadonlySet<number>,
): { loop: number; network: number; other: number } {
  const r = { loop: 0, network: 0, other: 0 };
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    } catch {
      continue; // the thread ended meanwhile
    }
    const ms = ticks(stat);
    if (Number(tid) === pid) r.loop += ms;
    else if (network.has(Number(tid))) r.network += ms;
    else r.other += ms;
  }
  return r;
}

function processCpu(pid: number): number {
  return ticks(readFileSync(`/proc/${pid}/stat`, 'utf8'));
}

function tool(args: string[]): { records?: number; seconds: number } {
  const out = execFileSync(TOOL, args, {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
    timeout: 600_000,
  });
  return JSON.parse(out.trim().split('\n').at(-1)!);
}

/** The broker's pid and its network threads' ids (from their "network thread started" lines). */
async function startBroker(
  dataDir: string,
  port: number,
  { main, threads }: Config,
): Promise<{ pid: number; network: Set<number>; stop: () => Promise<void> }> {
  const child = spawn(
    process.execPath,
    [
      main,
      'start',
      '--port',
      String(port),
      '--data-dir',
      dataDir,
      '--log-level',
      'info',
      '--override',
      `num.network.threads=${threads}`,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const network = new Set<number>();
  let err = '';
  child.stderr!.on('data', (d: Buffer) => {
    err += d.toString();
    for (const m of err.matchAll(/network thread started.*?tid\W+(\d+)/g)) network.add(Number(m[1]));
    err = err.slice(err.lastIndexOf('\n') + 1);
  });
  // `samsa start` prints its banner once every listener is bound.
  const exited = once(child, 'exit');
  const started = await Promise.race([
    once(child.stdout!, 'data').then(() => true),
    exited.then(() => false),
  ]);
  if (!started) throw new Error('the broker exited before listening');
  // The network threads announce themselves before the listeners are up.
  if (network.size < threads - 1)
    throw new Error(`expected ${threads - 1} network threads, saw ${network.size}`);
  const stop = async (): Promise<void> => {
    child.kill('SIGTERM');
    await exited;
  };
  return { pid: child.pid!, network, stop };
}

interface Phase {
  mbps: number;
  cpuPerMb: number;
  loopPerMb: number;
  networkPerMb: number;
  otherPerMb: number;
}

function measure(
  b: { pid: number; network: Set<number> },
  mb: number,
  run: () => { seconds: number },
): Phase {
  const t0 = threadCpu(b.pid, b.network);
  const c0 = processCpu(b.pid);
  const { seconds } = run();
  const c1 = processCpu(b.pid);
  const t1 = threadCpu(b.pid, b.network);
  return {
    mbps: mb / seconds,
    cpuPerMb: (c1 - c0) / mb,
    loopPerMb: (t1.loop - t0.loop) / mb,
    networkPerMb: (t1.network - t0.network) / mb,
    otherPerMb: (t1.other - t0.other) / mb,
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const f = (n: number, d = 1) =>
  n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });

/** CPU µs per item on each side for a stream of messages between two threads. */
async function handoff(kind: 'bare' | 'transfer', size: number, batch: number, n: number) {
  const src = `
    const { parentPort, workerData } = require('node:worker_threads');
    const { readFileSync } = require('node:fs');
    const cpu = () => { const f = readFileSync('/proc/thread-self/stat', 'utf8').split(') ')[1].split(' '); return (Number(f[11]) + Number(f[12])) * 10; };
    const { kind, size, batch, n } = workerData;
    const free = []; for (let i = 0; i < 64 * batch; i++) free.push(new ArrayBuffer(size));
    let sent = 0, back = 0; const c0 = cpu();
    const pump = () => { while (sent < n && free.length >= batch) { const items = free.splice(0, batch);
      if (kind === 'transfer') parentPort.postMessage(items, items); else { parentPort.postMessage(batch); free.push(...items); }
      sent += batch; } };
    parentPort.on('message', (m) => { if (m === 'go') return pump(); if (Array.isArray(m)) free.push(...m);
      back += batch; if (back >= n) parentPort.postMessage({ done: cpu() - c0 }); else pump(); });`;
  const cpu = () => ticks(readFileSync('/proc/thread-self/stat', 'utf8'));
  return new Promise<{ main: number; worker: number }>((resolve) => {
    const w = new Worker(src, { eval: true, workerData: { kind, size, batch, n } });
    let c0 = 0;
    w.on('message', (m: unknown) => {
      if (typeof m === 'object' && m !== null && 'done' in m) {
        const main = cpu() - c0;
        void w.terminate();
        resolve({ main: (main * 1000) / n, worker: ((m as { done: number }).done * 1000) / n });
      } else if (Array.isArray(m)) w.postMessage(m, m as ArrayBuffer[]);
      else w.postMessage(1);
    });
    w.on('online', () => {
      c0 = cpu();
      w.postMessage('go');
    });
  });
}

/** CPU ns per call of `precheckProduce` on a one-partition Produce v9 frame, and of the checks alone. */
function precheckCost(): void {
  const records = Array.from({ length: Math.max(1, Math.floor(SIZE / 1024)) }, (_, i) => ({
    value: Buffer.alloc(Math.min(SIZE, 1024) - 20, i),
  }));
  const batch = encodeRecordBatchSync(records);
  const bytes = Buffer.concat(
    encodeRequest(produceApi, 9, 1, 'bench', {
      transactionalId: null,
      acks: 1,
      timeoutMs: 1000,
      topicData: [{ name: 'bench-topic', partitionData: [{ index: 0, records: batch }] }],
    }),
  ).subarray(4);
  const frame = Buffer.from(new ArrayBuffer(bytes.length));
  bytes.copy(frame);
  const calls = Math.max(2000, Math.round(200_000 / Math.max(1, SIZE / 1024)));
  const ns = (fn: () => unknown): number => {
    const c0 = process.cpuUsage();
    for (let i = 0; i < calls; i++) fn();
    const c = process.cpuUsage(c0);
    return ((c.user + c.system) * 1000) / calls;
  };
  const pre: number[] = [];
  const checks: number[] = [];
  for (let r = 0; r < 7; r++) {
    pre.push(ns(() => precheckProduce(frame)));
    checks.push(ns(() => checkClientBatch(batch)));
  }
  console.log(`load average ${f(loadavg()[0]!, 2)}; batch of ${batch.length} B, ${calls} calls × 7 rounds`);
  console.log('| work per Produce frame (v9, one partition) | CPU ns (median) |');
  console.log('| --- | --- |');
  console.log(`| precheckProduce: decode + checkClientBatch | ${f(median(pre), 0)} |`);
  console.log(`| checkClientBatch alone | ${f(median(checks), 0)} |`);
}

async function main(): Promise<void> {
  if (process.argv.includes('--precheck')) {
    precheckCost();
    return;
  }
  for (const c of CONFIGS) if (!existsSync(c.main)) throw new Error(`${c.main}: run \`npm run build\` first`);
  rmSync(TMP, { recursive: true, force: true });
  mkdirSync(TMP, { recursive: true });
  execFileSync('cc', ['-O2', '-o', TOOL, 'bench/rdkafka-bench.c', '-lrdkafka']);
  const mb = (COUNT * SIZE) / 1e6;
  const load0 = loadavg();
  const results = new Map<Config, { produce: Phase[]; consume: Phase[] }>();
  for (const c of CONFIGS) results.set(c, { produce: [], consume: [] });
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? CONFIGS : [...CONFIGS].reverse();
    for (const config of order) {
      const port = 19000 + Math.floor(Math.random() * 1000);
      const dataDir = join(TMP, `data-${round}-${CONFIGS.indexOf(config)}`);
      const broker = await startBroker(dataDir, port, config);
      const bootstrap = `127.0.0.1:${port}`;
      const topic = `threads-${round}`;
      const r = results.get(config)!;
      r.produce.push(
        measure(broker, mb, () => tool(['produce', bootstrap, topic, String(COUNT), String(SIZE), '1'])),
      );
      r.consume.push(measure(broker, mb, () => tool(['consume', bootstrap, topic, String(COUNT)])));
      await broker.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
  const load1 = loadavg();
  console.log(
    `${COUNT} × ${SIZE} B, acks=1, ${ROUNDS} rounds (medians), load average ${f(load0[0]!, 2)} → ${f(load1[0]!, 2)}\n`,
  );
  console.log(
    '| num.network.threads | phase | MB/s | broker CPU ms/MB | event loop | network threads | other threads | MB/s vs 1 thread |',
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const phase of ['produce', 'consume'] as const) {
    const base = median(results.get(CONFIGS[0]!)![phase].map((p) => p.mbps));
    for (const config of CONFIGS) {
      const ps = results.get(config)![phase];
      const m = (k: keyof Phase) => median(ps.map((p) => p[k]));
      console.log(
        `| ${config.label} | ${phase} | ${f(m('mbps'))} | ${f(m('cpuPerMb'), 2)} | ${f(m('loopPerMb'), 2)} | ${f(m('networkPerMb'), 2)} | ${f(m('otherPerMb'), 2)} | ${f(m('mbps') / base, 2)}× |`,
      );
    }
  }
  console.log(
    '\nHand-off between two threads, CPU µs per item on each side (round trip, as frames go and come back):\n',
  );
  console.log('| message | sender | receiver |');
  console.log('| --- | --- | --- |');
  for (const [kind, size, batch] of [
    ['bare', 0, 1],
    ['bare', 0, 32],
    ['transfer', 1024, 1],
    ['transfer', 1024, 32],
    ['transfer', 1 << 20, 1],
  ] as const) {
    const n = batch === 1 ? 100_000 : 320_000;
    const r = await handoff(kind, size, batch, kind === 'transfer' && size > 1024 ? 20_000 : n);
    const what =
      kind === 'bare' ? 'a number' : `an ArrayBuffer of ${size >= 1 << 20 ? '1 MiB' : '1 KiB'}, transferred`;
    console.log(`| ${what}, ${batch} per message | ${f(r.worker, 2)} | ${f(r.main, 2)} |`);
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
