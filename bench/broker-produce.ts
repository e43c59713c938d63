// Broker produce/consume benchmark with a librdkafka client (bench/rdkafka-bench.c, compiled
// here against Debian's librdkafka-dev), against librdkafka's own in-memory mock cluster as the
// baseline, in the same run. Needs `npm run build` first (the broker runs from dist/ as a
// separate process so its CPU time and memory can be read from /proc).
//
//   npm run build && npx tsx bench/broker-produce.ts [--quick]

import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const quick = process.argv.includes('--quick');
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
}

function tool(args: string[]): { phase: string } & Partial<ProduceResult> {
  const out = execFileSync(TOOL, args, {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
    timeout: 300_000,
  });
  return JSON.parse(out.trim().split('\n').at(-1)!);
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
  for (const { size, count } of SCENARIOS) {
    for (const acks of ACKS) {
      const topic = `bench-${size}-${acks}`;
      const before = procStats(pid);
      const ours = tool(['produce', bootstrap, topic, String(count), String(size), acks]) as ProduceResult;
      const after = procStats(pid);
      const mock = tool(['mock', `mock-${size}-${acks}`, String(count), String(size), acks]) as ProduceResult;
      const mb = (count * size) / 1e6;
      const rate = ours.records / ours.seconds;
      const mockRate = mock.records / mock.seconds;
      rows.push(
        `| produce ${fmt(count)} × ${size} B, acks=${acks} | ${fmt(rate)} | ${fmt(mb / ours.seconds, 1)} | ${fmt(ours.p50_ms, 1)} / ${fmt(ours.p99_ms, 1)} | ${fmt(((after.cpu - before.cpu) * 1000) / mb, 1)} | ${fmt(mockRate)} | ${fmt(rate / mockRate, 2)}× |`,
      );
      if (acks === '1') {
        const t0 = procStats(pid);
        const c = tool(['consume', bootstrap, topic, String(count)]) as ProduceResult;
        const t1 = procStats(pid);
        rows.push(
          `| consume ${fmt(c.records ?? 0)} × ${size} B | ${fmt((c.records ?? 0) / c.seconds)} | ${fmt(((c.records ?? 0) * size) / 1e6 / c.seconds, 1)} | – | ${fmt(((t1.cpu - t0.cpu) * 1000) / mb, 1)} | – | – |`,
        );
      }
    }
  }
  const end = procStats(pid);
  process.kill(pid, 'SIGTERM');
  console.log(
    '| scenario | records/s | MB/s | latency p50 / p99 ms | broker CPU ms per MB | rdkafka_mock records/s | ratio |',
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- |');
  for (const r of rows) console.log(r);
  console.log(
    `\nbroker RSS idle after start: ${fmt(idle.rss)} MB; peak (VmHWM) over the run: ${fmt(end.hwm)} MB`,
  );
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
