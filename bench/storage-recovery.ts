// Recovery time of a 1 GiB log after an unclean shutdown (no checkpoints, no clean-shutdown
// marker: every batch is read and CRC-checked, indexes, epochs and producer state are rebuilt),
// against a raw sequential read of the same file in 1 MiB chunks, same run, best of ROUNDS.
// Run: npx tsx bench/storage-recovery.ts   (GB=…, ROUNDS=…, BENCH_DIR=…)
import * as fs from 'node:fs';
import { join } from 'node:path';
import { setBaseOffset, setPartitionLeaderEpoch } from '../src/protocol/record-batch/header.js';
import { LogManager } from '../src/storage/index.js';
import { benchDir, makeBatches, mb, ROUNDS, table } from './storage-util.js';

const TOTAL = Math.floor(Number(process.env.GB ?? 1) * 1024 * 1024 * 1024);

/** Writes the segment file directly, as a broker that crashed would have left it. */
function build(dir: string, batchSize: number): { path: string; bytes: number; batches: number } {
  const pdir = join(dir, 'bench-0');
  fs.mkdirSync(pdir, { recursive: true });
  const path = join(pdir, '00000000000000000000.log');
  const fd = fs.openSync(path, 'w');
  const pool = makeBatches(batchSize, 64);
  const perBatch = pool[0]!.readInt32BE(57);
  let offset = 0n;
  let bytes = 0;
  let n = 0;
  const chunk: Buffer[] = [];
  let chunkBytes = 0;
  while (bytes + pool[0]!.length <= TOTAL) {
    const b = Buffer.from(pool[n % pool.length]!);
    setBaseOffset(b, 0, offset);
    setPartitionLeaderEpoch(b, 0, n < 1000 ? 1 : 2);
    offset += BigInt(perBatch);
    chunk.push(b);
    chunkBytes += b.length;
    bytes += b.length;
    n++;
    if (chunkBytes >= 8 << 20) {
      fs.writeSync(fd, Buffer.concat(chunk));
      chunk.length = 0;
      chunkBytes = 0;
    }
  }
  if (chunk.length > 0) fs.writeSync(fd, Buffer.concat(chunk));
  // On disk, as after a crash long after the writes: recovery's own fsync then costs nothing.
  fs.fsyncSync(fd);
  fs.closeSync(fd);
  return { path, bytes, batches: n };
}

async function rawRead(path: string): Promise<number> {
  const fd = fs.openSync(path, 'r');
  const size = fs.fstatSync(fd).size;
  const buf = Buffer.allocUnsafeSlow(1 << 20);
  const t0 = performance.now();
  for (let pos = 0; pos < size; pos += buf.length) {
    await new Promise<void>((resolve, reject) =>
      fs.read(fd, buf, 0, buf.length, pos, (e) => (e ? reject(e) : resolve())),
    );
  }
  const ms = performance.now() - t0;
  fs.closeSync(fd);
  return ms;
}

/** Forgets everything a clean shutdown wrote, so the next open recovers from scratch. */
function makeUnclean(dir: string): void {
  for (const name of fs.readdirSync(dir)) {
    if (name.endsWith('checkpoint') || name === '.kafka_cleanshutdown') fs.rmSync(join(dir, name));
  }
  const pdir = join(dir, 'bench-0');
  for (const name of fs.readdirSync(pdir)) if (!name.endsWith('.log')) fs.rmSync(join(pdir, name));
}

const rows: (string | number)[][] = [];
for (const batchSize of [1024, 64 * 1024]) {
  const { dir, cleanup } = benchDir('recovery');
  try {
    const { path, bytes, batches } = build(dir, batchSize);
    let rawMs = Number.POSITIVE_INFINITY;
    let ourMs = Number.POSITIVE_INFINITY;
    for (let r = 0; r < ROUNDS; r++) {
      makeUnclean(dir);
      rawMs = Math.min(rawMs, await rawRead(path));
      const t0 = performance.now();
      const mgr = await LogManager.open({ logDirs: dir });
      ourMs = Math.min(ourMs, performance.now() - t0);
      const log = mgr.getLog('bench', 0)!;
      if (log.size !== bytes || log.latestEpoch !== 2)
        throw new Error(`recovered ${log.size} of ${bytes} bytes`);
      await mgr.close();
    }
    rows.push([
      `${(bytes / 2 ** 30).toFixed(2)} GiB of ${batchSize / 1024} KiB batches (${batches.toLocaleString('en')})`,
      (rawMs / 1000).toFixed(2),
      (ourMs / 1000).toFixed(2),
      mb(bytes, ourMs).toFixed(0),
      (rawMs / ourMs).toFixed(2),
    ]);
  } finally {
    cleanup();
  }
}
console.log(table(['unclean log', 'raw read s', 'recovery s', 'recovery MB/s', 'ratio'], rows));
