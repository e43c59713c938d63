// Broker produce/consume benchmark with a librdkafka client (bench/rdkafka-bench.c, compiled
// here against Debian's librdkafka-dev), against librdkafka's own in-memory mock cluster as the
// baseline, in the same run. Needs `npm run build` first (the broker runs from dist/ as a
// separate process so its CPU time and memory can be read from /proc).
//
//   npm run build && npx tsx bench/broker-produce.ts [--quick] [--rounds R] [--recycle MB]
//
// The broker's CPU is split between its event loop (the main thread: sockets, decoding, batch
// checks, appends) and its other threads (libuv's pool: the writes into the page cache; network
// threads when `num.network.threads` > 1). `--recycle MB` writes and deletes MB megabytes next
// to the data dir right before each produce run (ours and the mock's): on this VM, memory the
// kernel has not touched for ~2 s is handed back to the host, and the page cache (or the mock's
// heap) growing into such memory pays the host's page faults inside its copy — see
// docs/benchmarks.md, "Appends, issue 19". Just-freed pages are what a broker whose page cache
// fills RAM (any long-running one) writes into.

import { execFileSync, spawn } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';

const quick = process.argv.includes('--quick');
const flag = (name: string, dflt: number): number => {
  const at = process.argv.indexOf(name);
  return at < 0 ? dflt : Number(process.argv[at + 1]);
};
const ROUNDS = flag('--rounds', 1);
const RECYCLE_MB = flag('--recycle', 0);
const TMP = '.bench-tmp/broker-produce';
const TOOL = join(TMP, 'rdkafka-bench');
const SCENARIOS = [
  { size: 100, count: quick ? 200_000 : 1_000_000 },
  { size: 1024, count: quick ? 40_000 : 200_000 },
];
const ACKS = ['1', 'all'];

interface ProduceResult {
  records: number;
  seconds: number;
  p50_ms: number;
  p99_ms: number;
  /** The client process's CPU seconds over the run (for the mock: its in-process broker too). */
  cpu_s: number;
}

function tool(args: string[]): { phase: string } & Partial<ProduceResult> {
  const out = execFileSync(TOOL, args, {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
    timeout: 300_000,
  });
  return JSON.parse(out.trim().split('\n').at(-1)!);
}

/** Run time in ms of the process's main thread and of all its other threads (schedstat, ns). */
function threadTimes(pid: number): { main: number; others: number } {
  let main = 0;
  let others = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    let ns: number;
    try {
      ns = Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      continue; // the thread ended meanwhile
    }
    if (tid === String(pid)) main += ns / 1e6;
    else others += ns / 1e6;
  }
  return { main, others };
}

/** Writes and deletes `mb` MB beside the data dir: its pages are free, and not yet given back. */
function recyclePages(mb: number): void {
  if (mb <= 0) return;
  const file = join(TMP, 'recycle');
  const chunk = Buffer.alloc(1 << 20, 1);
  const fd = openSync(file, 'w');
  for (let i = 0; i < mb; i++) writeSync(fd, chunk);
  closeSync(fd);
  rmSync(file);
}

/** utime+stime in seconds, VmRSS and VmHWM in MB. */
function procStats(pid: number): { cpu: number; rss: number; hwm: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  const ticks = Number(stat[11]) + Number(stat[12]);
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(status)![1]) / 1024;
  return { cpu: ticks / 100, rss: kb('VmRSS'), hwm: kb('VmHWM') };
}

async function startBroker(dataDir: string, port: number): Promise<number> {
  const child = spawn(
    process.execPath,
    ['dist/src/cli/main.js', 'start', '--port', String(port), '--data-dir', dataDir, '--log-level', 'warn'],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('listening on')) resolve();
    });
    child.on('exit', () => reject(new Error(`broker exited: ${out}`)));
  });
  return child.pid!;
}

const fmt = (n: number, d = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });

async function main(): Promise<void> {
  if (!existsSync('dist/src/cli/main.js')) throw new Error('run `npm run build` first');
  rmSync(TMP, { recursive: true, force: true });
  mkdirSync(TMP, { recursive: true });
  execFileSync('cc', ['-O2', '-o', TOOL, 'bench/rdkafka-bench.c', '-lrdkafka']);
  const port = 19000 + Math.floor(Math.random() * 1000);
  const pid = await startBroker(join(TMP, 'data'), port);
  await new Promise((r) => setTimeout(r, 1000));
  const idle = procStats(pid);
  const rows: string[] = [];
  const bootstrap = `127.0.0.1:${port}`;
  for (let round = 0; round < ROUNDS; round++)
    for (const { size, count } of SCENARIOS) {
      for (const acks of ACKS) {
        const topic = `bench-${size}-${acks}-${round}`;
        recyclePages(RECYCLE_MB);
        const before = threadTimes(pid);
        const ours = tool(['produce', bootstrap, topic, String(count), String(size), acks]) as ProduceResult;
        const after = threadTimes(pid);
        recyclePages(RECYCLE_MB);
        const mock = tool([
          'mock',
          `mock-${size}-${acks}`,
          String(count),
          String(size),
          acks,
        ]) as ProduceResult;
        const mb = (count * size) / 1e6;
        const rate = ours.records / ours.seconds;
        const mockRate = mock.records / mock.seconds;
        const loop = (after.main - before.main) / mb;
        const others = (after.others - before.others) / mb;
        // On a saturated 2-core machine records/s go as 1 / (CPU per MB of all that runs), so
        // (mock process) / (producer + broker) is the ratio that the CPU times alone allow.
        const cpuOurs = (ours.cpu_s * 1000) / mb + loop + others;
        const cpuMock = (mock.cpu_s * 1000) / mb;
        rows.push(
          `| produce ${fmt(count)} × ${size} B, acks=${acks} | ${fmt(rate)} | ${fmt(mb / ours.seconds, 1)} | ${fmt(ours.p50_ms, 1)} / ${fmt(ours.p99_ms, 1)} | ${fmt(loop + others, 2)} (${fmt(loop, 2)} + ${fmt(others, 2)}) | ${fmt(cpuOurs, 2)} / ${fmt(cpuMock, 2)} | ${fmt(mockRate)} | ${fmt(rate / mockRate, 2)}× (CPU: ${fmt(cpuMock / cpuOurs, 2)}×) |`,
        );
        if (acks === '1') {
          const t0 = threadTimes(pid);
          const c = tool(['consume', bootstrap, topic, String(count)]) as ProduceResult;
          const t1 = threadTimes(pid);
          const cLoop = (t1.main - t0.main) / mb;
          const cOthers = (t1.others - t0.others) / mb;
          rows.push(
            `| consume ${fmt(c.records ?? 0)} × ${size} B | ${fmt((c.records ?? 0) / c.seconds)} | ${fmt(((c.records ?? 0) * size) / 1e6 / c.seconds, 1)} | – | ${fmt(cLoop + cOthers, 2)} (${fmt(cLoop, 2)} + ${fmt(cOthers, 2)}) | – | – | – |`,
          );
        }
      }
    }
  const end = procStats(pid);
  process.kill(pid, 'SIGTERM');
  console.log(
    '| scenario | records/s | MB/s | latency p50 / p99 ms | broker CPU ms per MB (event loop + other threads) | CPU ms per MB: producer + broker / mock process | rdkafka_mock records/s | ratio |',
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const r of rows) console.log(r);
  console.log(
    `\nbroker RSS idle after start: ${fmt(idle.rss)} MB; peak (VmHWM) over the run: ${fmt(end.hwm)} MB`,
  );
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
