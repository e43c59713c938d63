// Append throughput of the storage layer against raw `fs.write` of the same bytes to the same
// number of files, measured in the same run (best of ROUNDS interleaved rounds). Each partition
// has one producer that awaits each append before the next (no pipelining: the worst case for
// the write queue's batching); 100 partitions run their producers concurrently. Besides MB/s,
// the CPU time of the whole process (all threads: main, libuv's pool, the write worker) per
// batch over the timed part: on a shared machine it moves far less than throughput does.
// Run: npx tsx bench/storage-append.ts   (MB=… total per case, ROUNDS=…, BENCH_DIR=…)
import * as fs from 'node:fs';
import { join } from 'node:path';
import { LogManager } from '../src/storage/index.js';
import { benchDir, makeBatches, mb, ROUNDS, table } from './storage-util.js';

const TOTAL_MB = Number(process.env.MB ?? 256);

interface Timed {
  ms: number;
  /** CPU time of the process (user + system, all threads), µs. */
  cpuUs: number;
}

async function timed(run: () => Promise<void>): Promise<Timed> {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await run();
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  return { ms, cpuUs: cpu.user + cpu.system };
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

async function samsa(
  dir: string,
  batches: Buffer[],
  partitions: number,
  perPartition: number,
): Promise<Timed> {
  const mgr = await LogManager.open({ logDirs: dir });
  const logs = await Promise.all(
    Array.from({ length: partitions }, (_, p) =>
      mgr.createLog('bench', p, { topicId: 'AAAAAAAAAAAAAAAAAAAAAQ' }),
    ),
  );
  // appendAsLeader stamps offsets into the batch in place, so partitions must not share a
  // buffer while their writes are in flight: each gets its own copies, made before timing.
  const own = logs.map((_, p) =>
    Array.from({ length: 4 }, (_, k) => Buffer.from(batches[(p + k) % batches.length]!)),
  );
  const result = await timed(async () => {
    await Promise.all(
      logs.map(async (log, p) => {
        const mine = own[p]!;
        for (let i = 0; i < perPartition; i++) await log.appendAsLeader(mine[i % mine.length]!, 0);
      }),
    );
  });
  await mgr.close();
  return result;
}

/** Keeps the faster of two timings (with its own CPU figure). */
const best = (a: Timed | null, b: Timed): Timed => (a === null || b.ms < a.ms ? b : a);

const rows: (string | number)[][] = [];
for (const size of [1024, 64 * 1024]) {
  const batches = makeBatches(size, 64);
  const batchBytes = batches[0]!.length;
  for (const partitions of [1, 100]) {
    const perPartition = Math.max(1, Math.floor((TOTAL_MB * 1024 * 1024) / batchBytes / partitions));
    const bytes = perPartition * partitions * batchBytes;
    let rawBest: Timed | null = null;
    let ourBest: Timed | null = null;
    for (let r = 0; r < ROUNDS; r++) {
      const a = benchDir('append-raw');
      rawBest = best(rawBest, await raw(a.dir, batches, partitions, perPartition));
      a.cleanup();
      const b = benchDir('append-samsa');
      ourBest = best(ourBest, await samsa(b.dir, batches, partitions, perPartition));
      b.cleanup();
    }
    const count = perPartition * partitions;
    rows.push([
      `${size / 1024} KiB × ${partitions} partition${partitions > 1 ? 's' : ''}`,
      `${(bytes / 1024 / 1024).toFixed(0)} MiB`,
      mb(bytes, rawBest!.ms).toFixed(0),
      mb(bytes, ourBest!.ms).toFixed(0),
      (rawBest!.ms / ourBest!.ms).toFixed(2),
      (rawBest!.cpuUs / count).toFixed(1),
      (ourBest!.cpuUs / count).toFixed(1),
    ]);
  }
}
console.log(
  table(
    [
      'batches',
      'written',
      'raw fs.write MB/s',
      'appendAsLeader MB/s',
      'ratio',
      'raw CPU µs per batch',
      'appendAsLeader CPU µs per batch',
    ],
    rows,
  ),
);
