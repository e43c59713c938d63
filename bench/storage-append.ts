// Append throughput of the storage layer against raw `fs.write` of the same bytes to the same
// number of files, measured in the same run (interleaved rounds). Each partition has one
// producer that awaits each append before the next (no pipelining: the worst case for the write
// queue's batching); 100 partitions run their producers concurrently. Besides MB/s, the CPU time
// of the whole process (all threads: main, libuv's pool, the write worker) per batch over the
// timed part, and of the main thread alone (/proc): on a shared machine they move far less than
// throughput does.
//
// Each source tree runs in a process of its own (its own heap, GC and write worker: in one
// process the trees' live objects would tax each other's garbage collections), kept for all
// rounds of a case and driven over IPC; raw runs in this process. BEFORE=<dir> adds the storage
// layer of another source tree (a copy of `src/` taken before a change: `cp -r src /tmp/x-before/`
// or `git archive HEAD src | tar -x -C /tmp/x-before`), TREES=label=<dir>,… any number of them,
// interleaved round by round with this tree (the order rotates each round). Ratios are per round
// (tree / raw of the same round), reported as best, median and range.
//
// --profile: a V8 CPU profile of the main thread over each tree's last round of each case, in
// PROFILE_DIR (default .bench-tmp/storage-append); summarise it with bench/cpuprofile-summary.ts.
//
// --page-cache: the kernel's copy into the page cache per MB, one factor at a time
// (bench/storage-page-cache.ts). --validate: the leader's batch checks alone, CPU per 1 KiB
// batch, for each tree (bench/storage-validate.ts).
//
// VERIFIED=1 adds this tree once more with every batch marked as a network thread marks the
// batches it checked (`markVerifiedBatches`, just before each append, as the event loop does when
// the request arrives): the appends of a broker with `num.network.threads` > 1.
//
// Run: npx tsx bench/storage-append.ts [--profile | --page-cache | --validate]
//   (MB=… total per case, ROUNDS=…, BENCH_DIR=…, CASES=1x100,64x1 (KiB × partitions), BEFORE, TREES,
//   VERIFIED=1)
import { type ChildProcess, fork } from 'node:child_process';
import * as fs from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { LogManager } from '../src/storage/index.js';
import { pageCacheCopy } from './storage-page-cache.js';
import { benchDir, makeBatches, mb, ROUNDS, table } from './storage-util.js';
import { validateCost } from './storage-validate.js';

const TOTAL_MB = Number(process.env.MB ?? 256);
const PROFILE = process.argv.includes('--profile');
const PROFILE_DIR = resolve(process.env.PROFILE_DIR ?? '.bench-tmp/storage-append');

interface Timed {
  ms: number;
  /** CPU time of the process (user + system, all threads), µs. */
  cpuUs: number;
  /** CPU time of the main thread alone (user + system), µs; NaN where /proc is missing. */
  mainUs: number;
}

/** The main thread's CPU time in µs, from /proc (clock ticks of 10 ms: fine over seconds). */
function mainThreadUs(): number {
  try {
    const stat = fs.readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10_000;
  } catch {
    return Number.NaN;
  }
}

async function timed(run: () => Promise<void>): Promise<Timed> {
  const cpu0 = process.cpuUsage();
  const main0 = mainThreadUs();
  const t0 = performance.now();
  await run();
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  return { ms, cpuUs: cpu.user + cpu.system, mainUs: mainThreadUs() - main0 };
}

interface RoundRequest {
  round: number;
  size: number;
  partitions: number;
  perPartition: number;
  profileTo: string | null;
}

// ---- a tree's process ------------------------------------------------------------------------

/** Runs one round on `mgr`: fresh logs, timed lockstep appends, then the logs are deleted. */
/** `markVerifiedBatches` of a tree that has it, for VERIFIED=1. */
type Mark = (frame: ArrayBuffer, ranges: number[]) => void;

async function samsaRound(
  mgr: LogManager,
  batches: Buffer[],
  req: RoundRequest,
  mark: Mark | null,
): Promise<Timed> {
  const { partitions, perPartition } = req;
  const topic = `bench-${req.round}`;
  const logs = await Promise.all(
    Array.from({ length: partitions }, (_, p) =>
      mgr.createLog(topic, p, { topicId: 'AAAAAAAAAAAAAAAAAAAAAQ' }),
    ),
  );
  // appendAsLeader stamps offsets into the batch in place, so partitions must not share a
  // buffer while their writes are in flight: each gets its own copies, made before timing.
  const own = logs.map((_, p) =>
    Array.from({ length: 4 }, (_, k) => Buffer.from(batches[(p + k) % batches.length]!)),
  );
  const session = req.profileTo === null ? null : new Session();
  if (session !== null) {
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 100 }); // µs: appends are short
    await session.post('Profiler.start');
  }
  const result = await timed(async () => {
    await Promise.all(
      logs.map(async (log, p) => {
        const mine = own[p]!;
        for (let i = 0; i < perPartition; i++) {
          const batch = mine[i % mine.length]!;
          mark?.(batch.buffer as ArrayBuffer, [batch.byteOffset, batch.length]);
          await log.appendAsLeader(batch, 0);
        }
      }),
    );
  });
  if (session !== null) {
    const { profile } = await session.post('Profiler.stop');
    fs.mkdirSync(PROFILE_DIR, { recursive: true });
    fs.writeFileSync(req.profileTo!, JSON.stringify(profile));
    session.disconnect();
  }
  for (let p = 0; p < partitions; p++) await mgr.deleteLog(topic, p);
  // Deleting logs requests a checkpoint write (at the next setImmediate); checkpoints are
  // chained, so one more awaited here leaves none running into the next timed part.
  await new Promise((resolve) => setImmediate(resolve));
  await mgr.checkpoint();
  return result;
}

/**
 * A tree's process: opens one manager for the whole case, as in a broker that has been running
 * (its tail cache's 64 MiB arena is in memory after the first round: a fresh arena costs a page
 * fault per 4 KiB on its first lap, ~1 µs per 1 KiB append, and the write worker is up).
 */
async function child(root: string, verified: boolean): Promise<void> {
  const url = pathToFileURL(join(root, 'src/storage/index.ts')).href;
  const { LogManager: Manager } = (await import(url)) as { LogManager: typeof LogManager };
  const validator = pathToFileURL(join(root, 'src/storage/log-validator.ts')).href;
  const mark = verified
    ? ((await import(validator)) as { markVerifiedBatches: Mark }).markVerifiedBatches
    : null;
  const dir = benchDir('append-samsa');
  const mgr = await Manager.open({ logDirs: dir.dir });
  const batchesBySize = new Map<number, Buffer[]>();
  process.on('message', (req: RoundRequest | 'close') => {
    if (req === 'close') {
      void mgr.close().then(() => {
        dir.cleanup();
        process.disconnect();
      });
      return;
    }
    const batches = batchesBySize.get(req.size) ?? makeBatches(req.size, 64);
    batchesBySize.set(req.size, batches);
    void samsaRound(mgr, batches, req, mark).then((t) => process.send!(t));
  });
  process.send!('ready');
}

// ---- the driver ------------------------------------------------------------------------------

interface Tree {
  label: string;
  root: string;
  /** Mark every batch as checked by a network thread (VERIFIED=1). */
  verified?: boolean;
}

interface TreeProcess {
  proc: ChildProcess;
  run(req: RoundRequest): Promise<Timed>;
  close(): Promise<void>;
}

async function spawnTree(tree: Tree): Promise<TreeProcess> {
  const proc = fork(import.meta.filename, ['--child', tree.root, ...(tree.verified ? ['--verified'] : [])], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const next = (): Promise<unknown> =>
    new Promise((resolve, reject) => {
      const onExit = (code: number | null): void => reject(new Error(`${tree.label} exited with ${code}`));
      proc.once('exit', onExit);
      proc.once('message', (m) => {
        proc.off('exit', onExit);
        resolve(m);
      });
    });
  await next(); // 'ready'
  return {
    proc,
    run: (req) => {
      const reply = next() as Promise<Timed>;
      proc.send(req);
      return reply;
    },
    close: () => {
      const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
      proc.send('close');
      return exited;
    },
  };
}

function write(fd: number, buf: Buffer, position: number): Promise<void> {
  return new Promise((resolve, reject) =>
    fs.write(fd, buf, 0, buf.length, position, (e) => (e ? reject(e) : resolve())),
  );
}

async function raw(dir: string, batches: Buffer[], partitions: number, perPartition: number): Promise<Timed> {
  const fds = Array.from({ length: partitions }, (_, p) => fs.openSync(join(dir, `raw-${p}.log`), 'w+'));
  const result = await timed(async () => {
    await Promise.all(
      fds.map(async (fd, p) => {
        let pos = 0;
        for (let i = 0; i < perPartition; i++) {
          const b = batches[(i + p) % batches.length]!;
          await write(fd, b, pos);
          pos += b.length;
        }
      }),
    );
  });
  for (const fd of fds) fs.closeSync(fd);
  return result;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const slug = (s: string): string => s.replace(/[^a-z0-9]+/gi, '-');
const loadavg = (): string => fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

/** This tree, BEFORE and TREES, each ready to import (a bare copy of `src/` gets links to this one's packages). */
function treesFromEnv(): Tree[] {
  const trees: Tree[] = [{ label: 'this tree', root: resolve('.') }];
  if (process.env.VERIFIED === '1')
    trees.push({ label: 'this tree, verified by a network thread', root: resolve('.'), verified: true });
  if (process.env.BEFORE) trees.push({ label: 'before', root: resolve(process.env.BEFORE) });
  for (const spec of (process.env.TREES ?? '').split(',').filter((s) => s.length > 0)) {
    const eq = spec.indexOf('=');
    trees.push({ label: spec.slice(0, eq), root: resolve(spec.slice(eq + 1)) });
  }
  // A bare copy of src/ resolves its packages and module type through these two.
  for (const { root } of trees) {
    for (const name of ['package.json', 'node_modules']) {
      if (!fs.existsSync(join(root, name))) fs.symlinkSync(resolve(name), join(root, name));
    }
  }
  return trees;
}

async function main(): Promise<void> {
  const cases = (process.env.CASES ?? '1x1,1x100,64x1,64x100').split(',').map((c) => {
    const [kib, partitions] = c.split('x').map(Number);
    return { size: kib! * 1024, partitions: partitions! };
  });
  const trees = treesFromEnv();
  console.log(`load average at start ${loadavg()}`);
  const rows: (string | number)[][] = [];
  for (const { size, partitions } of cases) {
    const batches = makeBatches(size, 64);
    const batchBytes = batches[0]!.length;
    const perPartition = Math.max(1, Math.floor((TOTAL_MB * 1024 * 1024) / batchBytes / partitions));
    const bytes = perPartition * partitions * batchBytes;
    const count = perPartition * partitions;
    const caseName = `${size / 1024} KiB × ${partitions} partition${partitions > 1 ? 's' : ''}`;
    const rawRuns: Timed[] = [];
    const runs: Timed[][] = trees.map(() => []);
    const procs = await Promise.all(trees.map(spawnTree));
    for (let r = 0; r < ROUNDS; r++) {
      const a = benchDir('append-raw');
      rawRuns.push(await raw(a.dir, batches, partitions, perPartition));
      a.cleanup();
      for (let k = 0; k < trees.length; k++) {
        const t = (k + r) % trees.length; // rotate, so that no tree always runs right after raw
        const profileTo =
          PROFILE && r === ROUNDS - 1
            ? join(PROFILE_DIR, `${slug(trees[t]!.label)}-${slug(caseName)}.cpuprofile`)
            : null;
        runs[t]!.push(await procs[t]!.run({ round: r, size, partitions, perPartition, profileTo }));
      }
    }
    await Promise.all(procs.map((p) => p.close()));
    const rawBest = Math.min(...rawRuns.map((x) => x.ms));
    for (let t = 0; t < trees.length; t++) {
      const mine = runs[t]!;
      const ratios = mine.map((x, r) => rawRuns[r]!.ms / x.ms);
      const ourBest = Math.min(...mine.map((x) => x.ms));
      rows.push([
        `${trees.length > 1 ? `${trees[t]!.label}: ` : ''}${caseName}`,
        `${(bytes / 1024 / 1024).toFixed(0)} MiB`,
        mb(bytes, rawBest).toFixed(0),
        mb(bytes, ourBest).toFixed(0),
        (rawBest / ourBest).toFixed(2),
        `${median(ratios).toFixed(2)} (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`,
        (median(rawRuns.map((x) => x.cpuUs)) / count).toFixed(1),
        (median(mine.map((x) => x.cpuUs)) / count).toFixed(1),
        (median(rawRuns.map((x) => x.mainUs)) / count).toFixed(1),
        (median(mine.map((x) => x.mainUs)) / count).toFixed(1),
      ]);
    }
  }
  console.log(
    table(
      [
        'batches',
        'written',
        'raw fs.write MB/s (best)',
        'appendAsLeader MB/s (best)',
        'ratio of bests',
        'ratio per round: median (range)',
        'raw CPU µs per batch (median)',
        'appendAsLeader CPU µs per batch (median)',
        'raw main-thread CPU µs per batch (median)',
        'appendAsLeader main-thread CPU µs per batch (median)',
      ],
      rows,
    ),
  );
  console.log(`load average at end ${loadavg()}`);
  if (PROFILE) console.log(`profiles in ${PROFILE_DIR}`);
}

const childAt = process.argv.indexOf('--child');
if (childAt >= 0) await child(process.argv[childAt + 1]!, process.argv.includes('--verified'));
else if (process.argv.includes('--page-cache')) await pageCacheCopy(loadavg);
else if (process.argv.includes('--validate')) await validateCost(treesFromEnv(), loadavg);
else await main();
