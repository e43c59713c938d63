// Broker start-up time: spawns `node bin/samsa.js start` (the compiled CLI in dist/) on an
// ephemeral port with a fresh data dir and measures the wall time from spawn to the
// "listening on" line, then the idle RSS one second later. Repeated runs; prints min/median.
// Needs `npm run build` first.
//
//   npm run build && npx tsx bench/broker-startup.ts [--runs N] [--root DIR]
//
// `--root` points at another checkout's build (a `bin/samsa.js` + `dist/`), for before/after
// comparisons in the same conditions.

import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: { runs: { type: 'string', default: '7' }, root: { type: 'string', default: '.' } },
});
const runs = Number(values.runs);
const root = resolve(values.root!);

/** utime + stime of a process, in ms. */
function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(stat[11]) + Number(stat[12])) * 10;
}

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
}

async function once(): Promise<{ ms: number; cpu: number; rss: number }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'samsa-startup-'));
  const t0 = performance.now();
  const child = spawn(
    process.execPath,
    [join(root, 'bin/samsa.js'), 'start', '--port', '0', '--data-dir', dataDir, '--log-level', 'warn'],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  try {
    const [ms, cpu] = await new Promise<[number, number]>((res, rej) => {
      let out = '';
      child.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('listening on')) res([performance.now() - t0, cpuMs(child.pid!)]);
      });
      child.on('exit', (code) => rej(new Error(`broker exited (${code}): ${out}`)));
    });
    await new Promise((r) => setTimeout(r, 1000));
    return { ms, cpu, rss: rssMb(child.pid!) };
  } finally {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const times: number[] = [];
  const cpu: number[] = [];
  const rss: number[] = [];
  for (let i = 0; i < runs; i++) {
    const r = await once();
    times.push(r.ms);
    cpu.push(r.cpu);
    rss.push(r.rss);
  }
  const med = (a: number[]) => [...a].sort((x, y) => x - y)[a.length >> 1]!;
  console.log(
    `start-up to "listening": min ${Math.min(...times).toFixed(0)} ms, median ${med(times).toFixed(0)} ms over ${runs} runs; CPU time (user+sys) until then median ${med(cpu).toFixed(0)} ms; idle RSS median ${med(rss).toFixed(0)} MB (load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')})`,
  );
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
