// Catch-up read: a consumer reading one partition of 1 GiB of 1 KiB records from offset 0 to its
// end, against a floor that moves the same bytes without a broker, in the same run.
//
//   npx tsx bench/catch-up.ts [--gib 1] [--rounds 3] [--tree LABEL=DIR]… [--batch-bytes 1000000]
//                             [--profile DIR] [--perf DIR] [--no-kcat] [--dir .bench-tmp/catch-up]
//
// Brokers run from a built tree (`DIR/dist/src/cli/main.js`; default `current=.`, so
// `npm run build` first, or a copy built elsewhere) in processes of their own; each `--tree`
// adds one, all serving their own copy of the data, rounds interleaved (before/after a change).
// Each broker is filled by bench/rdkafka-bench.c's producer (1 KiB values, acks=1, linger.ms 5,
// batch.size `--batch-bytes`: librdkafka's default of 1,000,000 makes ≈ 1 MB batches, 16384 the
// Java producer's), then restarted (a catch-up reads data written earlier: nothing of it is in
// the tail cache), a one-record read creates the group coordinator's __consumer_offsets (which
// the first consumer with a group.id would otherwise pay for), and the page cache is warmed by
// reading every segment file once.
//
// Consumers, each reading the whole partition from its first offset:
//  - rdkafka: bench/rdkafka-bench.c `catchup` (librdkafka 2.0.2's high-level consumer with its
//    defaults: one Fetch in flight per broker, max.partition.fetch.bytes 1 MiB, fetch.max.bytes
//    50 MiB); time from its first record to its last (librdkafka waits ~0.5 s before its first
//    ListOffsets, and learns the end only from a Fetch that waits fetch.wait.max.ms);
//    RDKAFKA_BENCH_CONSUMER_CONF passes more properties;
//  - kcat: `kcat -C -o beginning -c N -f ''` (librdkafka's simple consumer, nothing printed); its
//    wall time minus the fastest of three `-c 1` in the same round (start-up, metadata, first
//    Fetch).
// Floor ("raw"): a Node process `fs.read`s the same segment files from start to end, 1 MiB reads
// into one reused buffer, each written to a loopback socket before the next read; a C process
// (rdkafka-bench.c `sink`) reads that socket into a reused 1 MiB buffer and counts the bytes (a
// Node reader, at 2–3× the CPU per MB, made a weaker floor). MB/s for all = the segment files'
// bytes (10^6) over the time; broker (or raw sender) CPU from /proc, client CPU its own.
// `--profile DIR`: V8 CPU profiles of the brokers over the read rounds (summarise with
// bench/cpuprofile-summary.ts); `--perf DIR`: `perf record -g` of each broker and of its
// librdkafka client during the last round's rdkafka read.

import { type ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { createServer } from 'node:net';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { table } from './storage-util.js';

const TOPIC = 'catch-up';
const RECORD = 1024;
const CHUNK = 1 << 20;

const fmt = (n: number, d = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');

// ---- the raw floor's sender (its reader is rdkafka-bench.c's `sink`) ----------------------------

/** Listens, then sends `files` whole to the first connection; prints time and CPU once acked. */
async function rawSender(files: string[]): Promise<void> {
  const buf = Buffer.allocUnsafe(CHUNK);
  const server = createServer(async (s) => {
    server.close();
    const acked = new Promise<void>((r) => s.once('data', () => r()));
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    for (const file of files) {
      const fh = await open(file, 'r');
      const size = (await fh.stat()).size;
      for (let pos = 0; pos < size; pos += CHUNK) {
        const { bytesRead } = await fh.read(buf, 0, Math.min(CHUNK, size - pos), pos);
        await new Promise<void>((done, fail) =>
          s.write(buf.subarray(0, bytesRead), (e) => (e ? fail(e) : done())),
        );
      }
      await fh.close();
    }
    await acked;
    const seconds = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    process.stdout.write(`${JSON.stringify({ seconds, cpuMs: (cpu.user + cpu.system) / 1000 })}\n`);
    s.end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  process.stdout.write(`${JSON.stringify({ port: (server.address() as { port: number }).port })}\n`);
}

// ---- parent ------------------------------------------------------------------------------------

interface Tree {
  readonly label: string;
  readonly root: string;
  readonly dataDir: string;
}

interface Broker {
  readonly pid: number;
  readonly bootstrap: string;
  stop(): Promise<void>;
}

/** One read of the whole partition. */
interface Run {
  seconds: number;
  /** Broker's (or raw sender's) CPU ms over the run. */
  serverMs: number;
  clientMs: number;
  /** librdkafka's Fetches with records: count, bytes, summed round trips and gaps between them. */
  fetch?: { count: number; bytes: number; rttS: number; gapS: number };
}

/** utime + stime of a process (all threads), in ms. */
function procCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(stat[11]) + Number(stat[12])) * 10;
}

async function startBroker(tree: Tree, profileDir?: string): Promise<Broker> {
  const flags = profileDir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${profileDir}`];
  const args = ['start', '--port', '0', '--data-dir', tree.dataDir, '--log-level', 'warn'];
  const child = spawn(process.execPath, [...flags, join(tree.root, 'dist/src/cli/main.js'), ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((done, fail) => {
    let out = '';
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /listening on \S*:(\d+)/.exec(out);
      if (m) {
        child.stdout!.off('data', onData);
        child.stdout!.resume();
        done(Number(m[1]));
      }
    };
    child.stdout!.on('data', onData);
    child.once('exit', () => fail(new Error(`${tree.label}: broker exited: ${out}`)));
  });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  return {
    pid: child.pid!,
    bootstrap: `127.0.0.1:${port}`,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

function tool(bin: string, args: string[], env: Record<string, string> = {}): Record<string, number> {
  const out = execFileSync(bin, args, {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    timeout: 600_000,
    env: { ...process.env, ...env },
  });
  return JSON.parse(out.trim().split('\n').at(-1)!) as Record<string, number>;
}

function segmentFiles(tree: Tree): string[] {
  const dir = join(tree.dataDir, `${TOPIC}-0`);
  return readdirSync(dir)
    .filter((f) => f.endsWith('.log'))
    .sort()
    .map((f) => join(dir, f));
}

const bytesOf = (files: string[]) => files.reduce((n, f) => n + statSync(f).size, 0);

/** Reads every file once, so that every case reads from the page cache. */
async function warm(files: string[]): Promise<void> {
  const buf = Buffer.allocUnsafe(CHUNK);
  for (const f of files) {
    const fh = await open(f, 'r');
    while ((await fh.read(buf, 0, CHUNK)).bytesRead > 0);
    await fh.close();
  }
}

/** The child's stdout lines, one `next()` at a time. */
function lineQueue(child: ChildProcess): () => Promise<string> {
  const waiting: ((l: string) => void)[] = [];
  const ready: string[] = [];
  const lines = createInterface({ input: child.stdout! });
  lines.on('line', (l) => (waiting.length > 0 ? waiting.shift()!(l) : ready.push(l)));
  return () => {
    if (ready.length > 0) return Promise.resolve(ready.shift()!);
    return new Promise((resolve, reject) => {
      waiting.push(resolve);
      child.once('exit', (code) => reject(new Error(`child exited (${code}) before answering`)));
    });
  };
}

async function rawRun(bin: string, files: string[], total: number): Promise<Run> {
  const sender = spawn(process.execPath, ['--import', 'tsx', import.meta.filename, '--raw-send', ...files], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const senderLine = lineQueue(sender);
  const { port } = JSON.parse(await senderLine()) as { port: number };
  const reader = tool(bin, ['sink', String(port), String(total)]);
  const s = JSON.parse(await senderLine()) as { seconds: number; cpuMs: number };
  if (sender.exitCode === null) await new Promise((ok) => sender.once('exit', ok));
  return { seconds: s.seconds, serverMs: s.cpuMs, clientMs: reader.cpu_s! * 1000 };
}

/** `perf record -g` of `pid` while `body` runs, when `file` is set. */
async function perfAround<T>(pid: number, file: string | undefined, body: () => Promise<T>): Promise<T> {
  if (file === undefined) return body();
  const rec = spawn('perf', ['record', '-F', '999', '-g', '-p', String(pid), '-o', file], {
    stdio: 'ignore',
  });
  await new Promise((r) => setTimeout(r, 300));
  try {
    return await body();
  } finally {
    rec.kill('SIGINT');
    await new Promise((r) => rec.once('exit', r));
  }
}

async function rdkafkaRun(bin: string, broker: Broker, records: number, perfDir?: string): Promise<Run> {
  const cpu0 = procCpuMs(broker.pid);
  const args = ['catchup', broker.bootstrap, TOPIC];
  const run = () =>
    new Promise<Record<string, number>>((done, fail) => {
      const cmd = perfDir === undefined ? bin : 'perf';
      const all =
        perfDir === undefined
          ? args
          : ['record', '-F', '999', '-g', '-o', join(perfDir, 'client.data'), bin, ...args];
      execFile(cmd, all, { encoding: 'utf8', timeout: 600_000 }, (e, out) =>
        e ? fail(e) : done(JSON.parse(out.trim().split('\n').at(-1)!) as Record<string, number>),
      );
    });
  const r = await perfAround(broker.pid, perfDir && join(perfDir, 'broker.data'), run);
  const serverMs = procCpuMs(broker.pid) - cpu0;
  if (r.records !== records || !r.at_end) throw new Error(`rdkafka read ${r.records} of ${records} records`);
  return {
    seconds: r.last_s! - r.first_s!,
    serverMs,
    clientMs: r.cpu_s! * 1000,
    fetch: { count: r.fetches!, bytes: r.fetch_bytes!, rttS: r.fetch_rtt_s!, gapS: r.fetch_gap_s! },
  };
}

/** kcat reading `count` records: wall and CPU seconds (bash's `time`). */
function kcat(broker: Broker, count: number): Promise<{ wall: number; cpu: number }> {
  const cmd = `kcat -C -b ${broker.bootstrap} -t ${TOPIC} -p 0 -o beginning -c ${count} -q -f '' >/dev/null`;
  return new Promise((done, fail) =>
    execFile('bash', ['-c', `TIMEFORMAT='%R %U %S'; time ${cmd}`], { timeout: 600_000 }, (e, _out, err) => {
      if (e) return fail(e);
      const [wall, user, sys] = err.trim().split('\n').at(-1)!.split(' ').map(Number);
      done({ wall: wall!, cpu: user! + sys! });
    }),
  );
}

async function kcatRun(broker: Broker, records: number): Promise<Run> {
  // Start-up (connection, metadata, ListOffsets, first Fetch) is what `-c 1` takes; its fastest
  // of three is subtracted, which errs towards a lower rate.
  let start = await kcat(broker, 1);
  for (let i = 0; i < 2; i++) {
    const again = await kcat(broker, 1);
    if (again.wall < start.wall) start = again;
  }
  const cpu0 = procCpuMs(broker.pid);
  const all = await kcat(broker, records);
  return {
    seconds: all.wall - start.wall,
    serverMs: procCpuMs(broker.pid) - cpu0,
    clientMs: (all.cpu - start.cpu) * 1000,
  };
}

/** A librdkafka read's Fetches: per Fetch, the round trip and the client's gap before the next. */
function fetchLine(r: Run): string {
  const f = r.fetch;
  if (f === undefined || f.count === 0) return '';
  return `; ${fmt(f.count)} Fetches of ${fmt(f.bytes / f.count / 1e6, 2)} MB: round trip ${fmt((f.rttS / f.count) * 1000, 2)} ms, client gap ${fmt((f.gapS / f.count) * 1000, 2)} ms (${fmt(((f.rttS + f.gapS) / r.seconds) * 100)}% of the time)`;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      gib: { type: 'string', default: '1' },
      rounds: { type: 'string', default: '3' },
      tree: { type: 'string', multiple: true },
      'batch-bytes': { type: 'string', default: '1000000' },
      profile: { type: 'string' },
      perf: { type: 'string' },
      'no-kcat': { type: 'boolean', default: false },
      dir: { type: 'string', default: '.bench-tmp/catch-up' },
    },
  });
  const tmp = resolve(values.dir);
  const records = Math.round((Number(values.gib) * 2 ** 30) / RECORD);
  const rounds = Number(values.rounds);
  const trees: Tree[] = (values.tree ?? ['current=.']).map((t) => {
    const [label, root] = t.split('=') as [string, string];
    return { label, root: resolve(root), dataDir: join(tmp, label) };
  });
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  const bin = join(tmp, 'rdkafka-bench');
  execFileSync('cc', ['-O2', '-o', bin, 'bench/rdkafka-bench.c', '-lrdkafka']);
  console.log(`load average ${load()} (1, 5, 15 min)`);

  const brokers = new Map<Tree, Broker>();
  for (const tree of trees) {
    const filling = await startBroker(tree);
    const t0 = performance.now();
    const p = tool(bin, ['produce', filling.bootstrap, TOPIC, String(records), String(RECORD), '1'], {
      RDKAFKA_BENCH_PRODUCER_CONF: `batch.size=${values['batch-bytes']}`,
    });
    if (p.records !== records) throw new Error(`${tree.label}: produced ${p.records} of ${records}`);
    const fillS = (performance.now() - t0) / 1000;
    await filling.stop();
    const profileDir = values.profile && resolve(values.profile, tree.label);
    const broker = await startBroker(tree, profileDir);
    brokers.set(tree, broker);
    // A consumer with a group.id makes the broker create __consumer_offsets (50 partitions:
    // files, a few hundred ms of CPU) on its first FindCoordinator; not part of a catch-up.
    tool(bin, ['consume', broker.bootstrap, TOPIC, '1']);
    const files = segmentFiles(tree);
    const w0 = performance.now();
    await warm(files);
    console.log(
      `${tree.label}: filled ${fmt(records)} × ${RECORD} B by librdkafka (batch.size ${values['batch-bytes']}) in ${fmt(fillS, 1)} s; ${files.length} segment(s), ${fmt(bytesOf(files) / 1e6)} MB; page cache warmed (read once: ${fmt((performance.now() - w0) / 1000, 2)} s)`,
    );
  }
  const rawFiles = segmentFiles(trees[0]!);
  const logBytes = bytesOf(rawFiles);
  for (const t of trees.slice(1))
    if (bytesOf(segmentFiles(t)) !== logBytes) console.log(`note: ${t.label}'s log differs in size`);

  interface Case {
    name: string;
    run: (last: boolean) => Promise<Run>;
  }
  const cases: Case[] = [{ name: 'raw fs.read + loopback', run: () => rawRun(bin, rawFiles, logBytes) }];
  for (const tree of trees) {
    const b = brokers.get(tree)!;
    cases.push({
      name: `${tree.label}: librdkafka consumer`,
      run: (last) => {
        const dir = last && values.perf ? resolve(values.perf, tree.label) : undefined;
        if (dir) mkdirSync(dir, { recursive: true });
        return rdkafkaRun(bin, b, records, dir);
      },
    });
    if (!values['no-kcat']) cases.push({ name: `${tree.label}: kcat`, run: () => kcatRun(b, records) });
  }
  const results = new Map<Case, Run[]>(cases.map((c) => [c, []]));
  const rawRuns = results.get(cases[0]!)!;
  const mbps = (r: Run) => logBytes / 1e6 / r.seconds;
  try {
    for (let round = 0; round < rounds; round++) {
      // Rotated order: no case always follows the same one.
      const order = cases.map((_, i) => cases[(i + round) % cases.length]!);
      for (const c of order) {
        const r = await c.run(round === rounds - 1);
        results.get(c)!.push(r);
        console.log(
          `round ${round + 1} ${c.name}: ${fmt(mbps(r))} MB/s, server CPU ${fmt(r.serverMs / (logBytes / 1e6), 2)} ms/MB, client CPU ${fmt(r.clientMs / (logBytes / 1e6), 2)} ms/MB${fetchLine(r)} (load ${load()})`,
        );
      }
    }
  } finally {
    for (const b of brokers.values()) await b.stop();
  }

  const rawBest = Math.max(...rawRuns.map(mbps));
  const rows = cases.map((c) => {
    const runs = results.get(c)!;
    const rates = runs.map(mbps);
    const ratios = runs.map((r, i) => mbps(r) / mbps(rawRuns[i]!));
    const perMb = (ms: number) => fmt(ms / (logBytes / 1e6), 2);
    return [
      c.name,
      fmt(Math.max(...rates)),
      `${fmt(Math.min(...rates))}–${fmt(Math.max(...rates))}`,
      `${fmt(Math.max(...rates) / rawBest, 2)}×`,
      `${fmt(median(ratios), 2)}× (${fmt(Math.min(...ratios), 2)}–${fmt(Math.max(...ratios), 2)})`,
      perMb(median(runs.map((r) => r.serverMs))),
      perMb(median(runs.map((r) => r.clientMs))),
    ];
  });
  console.log(
    `\n${fmt(records)} records, ${fmt(logBytes / 1e6)} MB of log, ${rounds} rounds; load average at the end ${load()}\n`,
  );
  console.log(
    table(
      [
        'case',
        'MB/s (best)',
        'MB/s (range)',
        'best / raw best',
        'per-round ratio to raw: median (range)',
        'broker (raw: sender) CPU ms per MB, median',
        'client (raw: reader) CPU ms per MB, median',
      ],
      rows,
    ),
  );
  if (values.profile)
    console.log(
      `\nprofiles: npx tsx bench/cpuprofile-summary.ts ${resolve(values.profile)}/<tree>/*.cpuprofile`,
    );
}

const i = process.argv.indexOf('--raw-send');
if (i >= 0) await rawSender(process.argv.slice(i + 1));
else await main();
