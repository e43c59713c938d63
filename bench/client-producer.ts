// Producer benchmark: our producer vs kafkajs 2.2.4 vs @platformatic/kafka 1.35 vs librdkafka
// (confluent-kafka-python on librdkafka 2.0.2), all against one samsa broker running in its own
// process, in the same run.
//
//   npx tsx bench/client-producer.ts [--small N] [--large N] [--runs N] [--warmup N]
//                                    [--clients samsa,samsa-1000,kafkajs,platformatic,librdkafka]
//                                    [--base DIR]
//
// `--base DIR` adds `base:samsa`: our producer from another copy of the tree (its workers file
// bundled from DIR), for before/after figures of a client change in the same run against the
// same broker; `base:NAME` in --clients picks other variants (e.g. base:samsa-1000).
// Fairness rules:
// - The broker runs in its own process; every client run is a fresh child process, so peak RSS
//   (getrusage maxrss) is the client's own. The Node workers are bundled with esbuild first and
//   run on plain `node` (no tsx loader, which alone adds ~50 MB); `node-baseline` reports what
//   an empty Node process costs.
// - Same broker, same layout: a fresh single-partition topic per run, deleted afterwards, so every
//   run starts from the same broker state. Same record sizes (value only, no key), acks=1.
// - linger.ms 5 and batch.size where the client has them: ours (Kafka's 16 KiB default;
//   `samsa-1000` sizes batch.size for 1000 records, `samsa-128k` uses 128 KiB) and librdkafka
//   (batch.size is 1 MB by default there). kafkajs and @platformatic have neither, so they get
//   their recommended usage: send() calls of 1000 records, at most 5 in flight (a batch of 1000
//   records per request, which is what `samsa-1000` matches).
// - Before the measured rounds every client runs once untimed (`--warmup` records of 100 B), so
//   that no client pays for the fresh broker's JIT warm-up alone.
// - Idempotence: ours on (Kafka's default); the others off (their defaults).
// - Runs alternate (the client order rotates every round) and the summary is best-of-N with the
//   spread (min–max), because the machine is shared and noisy.
//
// Latency = time from handing a record to the client to its acknowledgement (it includes time
// queued in the client: unthrottled loops fill buffer.memory).
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

interface Result {
  client: string;
  records: number;
  size: number;
  seconds: number;
  recordsPerSec: number;
  p50: number;
  p99: number;
  maxRssMB: number;
  /** CPU time of the client process during the timed part. */
  cpuMs: number;
  /** CPU time of the broker process over the whole run (warm-up included). */
  brokerCpuMs?: number;
}

const CLIENTS = ['samsa', 'samsa-1000', 'kafkajs', 'platformatic', 'librdkafka'] as const;

const PYTHON_WORKER = `
import sys, time, json, resource
from confluent_kafka import Producer
bootstrap, topic, n, size = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
p = Producer({'bootstrap.servers': bootstrap, 'linger.ms': 5, 'acks': 1, 'client.id': 'bench-librdkafka',
              'queue.buffering.max.kbytes': 32768, 'queue.buffering.max.messages': 10000000})
payload = b'A' * size
every = max(1, n // 200000)
lat = []
errors = []
def make_cb(t0, sample):
    def cb(err, msg):
        if err is not None: errors.append(str(err))
        elif sample: lat.append((time.perf_counter() - t0) * 1000)
    return cb
p.produce(topic, payload); p.flush(10)
start = time.perf_counter()
cpu0 = time.process_time()
for i in range(n):
    t0 = time.perf_counter()
    while True:
        try:
            p.produce(topic, payload, on_delivery=make_cb(t0, i % every == 0)); break
        except BufferError:
            p.poll(0.005)
    if i % 1000 == 999: p.poll(0)
p.flush(120)
seconds = time.perf_counter() - start
cpu = time.process_time() - cpu0
if errors: raise SystemExit('delivery errors: ' + errors[0])
lat.sort()
pick = lambda q: lat[min(len(lat) - 1, int(q * len(lat)))] if lat else 0
print('RESULT ' + json.dumps({'client': 'librdkafka', 'records': n, 'size': size, 'seconds': seconds,
      'recordsPerSec': n / seconds, 'p50': pick(0.5), 'p99': pick(0.99),
      'maxRssMB': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 'cpuMs': cpu * 1000}))
`;

function runChild(cmd: string, args: string[]): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('close', (code) => {
      const line = out.split('\n').find((l) => l.startsWith('RESULT '));
      if (code !== 0 || line === undefined)
        reject(new Error(`${args.slice(-5).join(' ')} failed (${code}): ${err.slice(-2000)}`));
      else resolve(JSON.parse(line.slice(7)) as Result);
    });
  });
}

function startBrokerProcess(dataDir: string): Promise<{ child: ChildProcess; bootstrap: string }> {
  return new Promise((resolve, reject) => {
    const args = ['--import', 'tsx', 'src/cli/main.ts', 'start', '--port', '0', '--data-dir', dataDir];
    const child = spawn(process.execPath, [...args, '--log-level', 'warn'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on ([\d.]+:\d+)/.exec(out);
      if (m) resolve({ child, bootstrap: m[1]! });
    });
    child.on('exit', (code) => reject(new Error(`broker exited with ${code}: ${out}`)));
  });
}

/** What an empty Node process costs: every Node worker's RSS includes it. */
const BASELINE = `process.stdout.write('RESULT ' + JSON.stringify({ client: 'node-baseline', records: 0, size: 0,
  seconds: 1, recordsPerSec: 0, p50: 0, p99: 0, maxRssMB: process.resourceUsage().maxRSS / 1024, cpuMs: 0 }) + '\\n')`;

/**
 * Bundles the Node workers (our client included; npm packages stay external) for plain node;
 * `tree` = another copy of the repository (`--base`), whose client is bundled instead.
 */
async function bundleWorkers(tree?: string): Promise<string> {
  const { build } = await import('esbuild');
  const dir = join(process.cwd(), '.bench-tmp');
  mkdirSync(dir, { recursive: true });
  const outfile = join(dir, tree === undefined ? 'client-producer-workers.mjs' : 'client-producer-base.mjs');
  await build({
    entryPoints: [join(tree ?? '.', 'bench/client-producer-workers.ts')],
    nodePaths: [join(process.cwd(), 'node_modules')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    outfile,
    logLevel: 'error',
  });
  return outfile;
}

/** utime + stime of a process in ms (Linux /proc; USER_HZ is 100 on every Linux we run on). */
function processCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) * 10;
}

const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');
const us = (ms: number, r: Result): string => ((ms * 1000) / r.records).toFixed(2);

function summarize(results: Result[], clients: string[], sizes: number[]): void {
  process.stdout.write(
    '\nbest of N (min–max over runs); p50/p99 of the best run; lowest peak RSS and CPU:\n',
  );
  const best = new Map<string, Result>();
  for (const size of sizes) {
    for (const c of clients) {
      const rs = results.filter((r) => r.client === c && r.size === size);
      if (rs.length === 0) continue;
      const byRate = [...rs].sort((a, b) => b.recordsPerSec - a.recordsPerSec);
      const rss = rs.map((r) => r.maxRssMB).sort((a, b) => a - b);
      const top = byRate[0]!;
      const cpu = Math.min(...rs.map((r) => r.cpuMs / r.records)) * 1000;
      const bcpu = Math.min(...rs.map((r) => (r.brokerCpuMs ?? 0) / r.records)) * 1000;
      best.set(`${c}/${size}`, top);
      process.stdout.write(
        `${c.padEnd(13)} ${String(top.records).padStart(8)} × ${String(size).padStart(4)} B: ` +
          `${fmt(top.recordsPerSec).padStart(9)} records/s (${fmt(byRate.at(-1)!.recordsPerSec)}–${fmt(top.recordsPerSec)}), ` +
          `p50/p99 ${fmt(top.p50)}/${fmt(top.p99)} ms, peak RSS ${rss[0]!.toFixed(0)} MB (${rss[0]!.toFixed(0)}–${rss.at(-1)!.toFixed(0)}), ` +
          `lowest CPU µs/record client ${cpu.toFixed(2)} broker ${bcpu.toFixed(2)}\n`,
      );
    }
  }
  const minRss = (c: string, size: number): number =>
    Math.min(...results.filter((r) => r.client === c && r.size === size).map((r) => r.maxRssMB));
  // Each of our variants against each other client (best records/s, lowest peak RSS).
  for (const size of sizes) {
    for (const mine of clients.filter((c) => c.startsWith('samsa'))) {
      const ours = best.get(`${mine}/${size}`);
      if (ours === undefined) continue;
      for (const c of clients) {
        const other = best.get(`${c}/${size}`);
        if (c.startsWith('samsa') || other === undefined) continue;
        if (c.startsWith('base:') && c !== `base:${mine}`) continue;
        process.stdout.write(
          `ratio ${size} B: ${mine} / ${c} = ${(ours.recordsPerSec / other.recordsPerSec).toFixed(2)}× records/s, ` +
            `${(minRss(mine, size) / minRss(c, size)).toFixed(2)}× peak RSS\n`,
        );
      }
    }
  }
}

async function orchestrate(): Promise<void> {
  const { values } = parseArgs({
    options: {
      small: { type: 'string', default: '1000000' },
      large: { type: 'string', default: '100000' },
      runs: { type: 'string', default: '3' },
      warmup: { type: 'string', default: '100000' },
      clients: { type: 'string', default: CLIENTS.join(',') },
      base: { type: 'string' },
    },
  });
  const clients = values.clients!.split(',');
  if (values.base !== undefined && !clients.some((c) => c.startsWith('base:')))
    clients.splice(clients.indexOf('samsa') + 1, 0, 'base:samsa');
  const runs = Number(values.runs);
  const workloads = [
    { n: Number(values.small), size: 100 },
    { n: Number(values.large), size: 1024 },
  ].filter((w) => w.n > 0);
  const bundle = await bundleWorkers();
  const baseBundle = values.base !== undefined ? await bundleWorkers(values.base) : null;
  const dataDir = mkdtempSync(join(tmpdir(), 'samsa-bench-'));
  const { child, bootstrap } = await startBrokerProcess(dataDir);
  const results: Result[] = [];
  const { Admin } = await import('../src/client/index.js');
  const admin = new Admin({ bootstrapServers: bootstrap });
  /** One client run on a fresh single-partition topic, deleted afterwards. */
  const runOnce = async (c: string, n: number, size: number, tag: string): Promise<Result> => {
    const topic = `bench-${c.replace(':', '-')}-${size}-${tag}-${Date.now()}`;
    await admin.createTopics([{ name: topic, numPartitions: 1, replicationFactor: 1 }]);
    const args = [bootstrap, topic, String(n), String(size)];
    const brokerCpu0 = processCpuMs(child.pid!);
    const r =
      c === 'librdkafka'
        ? await runChild('/usr/bin/python3', ['-c', PYTHON_WORKER, ...args])
        : c.startsWith('base:')
          ? await runChild(process.execPath, [baseBundle!, '--worker', c.slice(5), ...args])
          : await runChild(process.execPath, [bundle, '--worker', c, ...args]);
    r.client = c;
    r.brokerCpuMs = processCpuMs(child.pid!) - brokerCpu0;
    await admin.deleteTopics([topic]);
    return r;
  };
  try {
    const base = await runChild(process.execPath, ['-e', BASELINE]);
    process.stdout.write(`node-baseline: peak RSS ${base.maxRssMB.toFixed(0)} MB (an empty Node process)\n`);
    const warmup = Number(values.warmup);
    if (warmup > 0) {
      for (const c of clients) await runOnce(c, warmup, 100, 'warmup');
      process.stdout.write(`warm-up: every client sent ${warmup} records (not counted)\n`);
    }
    for (const w of workloads) {
      for (let round = 0; round < runs; round++) {
        // Rotate the order so no client always runs first or last.
        const order = clients.map((_, i) => clients[(i + round) % clients.length]!);
        for (const c of order) {
          const r = await runOnce(c, w.n, w.size, String(round));
          results.push(r);
          process.stdout.write(
            `run ${round + 1}/${runs} ${c.padEnd(13)} ${String(w.n).padStart(8)} × ${String(w.size).padStart(4)} B: ` +
              `${fmt(r.recordsPerSec).padStart(9)} records/s, p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms, ` +
              `peak RSS ${r.maxRssMB.toFixed(0)} MB, CPU µs/record client ${us(r.cpuMs, r)} broker ${us(r.brokerCpuMs ?? 0, r)}\n`,
          );
        }
      }
    }
  } finally {
    await admin.close();
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    rmSync(dataDir, { recursive: true, force: true });
  }
  summarize(
    results,
    clients,
    workloads.map((w) => w.size),
  );
}

await orchestrate();
