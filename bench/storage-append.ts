// Append throughput of the storage layer against raw `fs.write` of the same bytes to the same
// number of files, measured in the same run (best of ROUNDS interleaved rounds). Each partition
// has one producer that awaits each append before the next (no pipelining: the worst case for
// the write queue's batching); 100 partitions run their producers concurrently.
// Run: npx tsx bench/storage-append.ts   (MB=… total per case, ROUNDS=…, BENCH_DIR=…)
import * as fs from 'node:fs';
import { join } from 'node:path';
import { LogManager } from '../src/storage/index.js';
import { benchDir, bestOf, makeBatches, mb, ROUNDS, table } from './storage-util.js';

const TOTAL_MB = Number(process.env.MB ?? 256);

function write(fd: number, buf: Buffer, position: number): Promise<void> {
  return new Promise((resolve, reject) =>
    fs.write(fd, buf, 0, buf.length, position, (e) => (e ? reject(e) : resolve())),
  );
}

async function raw(
  dir: string,
  batches: Buffer[],
  partitions: number,
  perPartition: number,
): Promise<number> {
  const fds = Array.from({ length: partitions }, (_, p) => fs.openSync(join(dir, `raw-${p}.log`), 'w+'));
  const t0 = performance.now();
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
  const ms = performance.now() - t0;
  for (const fd of fds) fs.closeSync(fd);
  return ms;
}

async function samsa(
  dir: string,
  batches: Buffer[],
  partitions: number,
  perPartition: number,
): Promise<number> {
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
  const t0 = performance.now();
  await Promise.all(
    logs.map(async (log, p) => {
      const mine = own[p]!;
      for (let i = 0; i < perPartition; i++) await log.appendAsLeader(mine[i % mine.length]!, 0);
    }),
  );
  const ms = performance.now() - t0;
  await mgr.close();
  return ms;
}

const rows: (string | number)[][] = [];
for (const size of [1024, 64 * 1024]) {
  const batches = makeBatches(size, 64);
  const batchBytes = batches[0]!.length;
  for (const partitions of [1, 100]) {
    const perPartition = Math.max(1, Math.floor((TOTAL_MB * 1024 * 1024) / batchBytes / partitions));
    const bytes = perPartition * partitions * batchBytes;
    let rawMs = Number.POSITIVE_INFINITY;
    let ourMs = Number.POSITIVE_INFINITY;
    for (let r = 0; r < ROUNDS; r++) {
      const a = benchDir('append-raw');
      rawMs = Math.min(rawMs, await bestOf(1, () => raw(a.dir, batches, partitions, perPartition)));
      a.cleanup();
      const b = benchDir('append-samsa');
      ourMs = Math.min(ourMs, await bestOf(1, () => samsa(b.dir, batches, partitions, perPartition)));
      b.cleanup();
    }
    rows.push([
      `${size / 1024} KiB × ${partitions} partition${partitions > 1 ? 's' : ''}`,
      `${(bytes / 1024 / 1024).toFixed(0)} MiB`,
      mb(bytes, rawMs).toFixed(0),
      mb(bytes, ourMs).toFixed(0),
      (rawMs / ourMs).toFixed(2),
    ]);
  }
}
console.log(table(['batches', 'written', 'raw fs.write MB/s', 'appendAsLeader MB/s', 'ratio'], rows));
