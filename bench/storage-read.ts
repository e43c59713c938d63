// Read throughput of the storage layer against raw `fs.read` of the same bytes, same run:
//  - catch-up: a consumer reading a 1 GiB log from offset 0 with 1 MiB fetches (maxBytes); each
//    fetch is paired with a raw read of exactly the bytes it returned, at their file position,
//    into a fresh buffer (interleaved pairs keep the comparison fair on a noisy machine);
//  - tail: a consumer at the end of the log reading each 1 KiB batch just appended vs a raw
//    read of those bytes at their known position (with the tail cache on and off).
// Best of ROUNDS interleaved rounds. Run: npx tsx bench/storage-read.ts  (GB=…, ROUNDS=…)
import * as fs from 'node:fs';
import { join } from 'node:path';
import { LogManager, type PartitionLog } from '../src/storage/index.js';
import { benchDir, makeBatches, mb, ROUNDS, table } from './storage-util.js';

const TOTAL = Math.floor(Number(process.env.GB ?? 1) * 1024 * 1024 * 1024);
const FETCH = 1024 * 1024;

function readAt(fd: number, length: number, position: number): Promise<Buffer> {
  const buf = Buffer.allocUnsafeSlow(length);
  return new Promise((resolve, reject) =>
    fs.read(fd, buf, 0, length, position, (e, n) =>
      e ? reject(e) : resolve(n === length ? buf : buf.subarray(0, n)),
    ),
  );
}

async function fill(log: PartitionLog, batches: Buffer[], bytes: number): Promise<void> {
  let written = 0;
  for (let i = 0; written < bytes; i++) {
    const b = batches[i % batches.length]!;
    const pending: Promise<unknown>[] = [];
    // Eight appends in flight: the write queue groups them into one writev.
    for (let j = 0; j < 8 && written < bytes; j++, written += b.length)
      pending.push(log.appendAsLeader(Buffer.from(batches[(i * 8 + j) % batches.length]!), 0));
    await Promise.all(pending);
  }
  log.setHighWatermark(log.logEndOffset);
}

/** Catch-up read of the whole log; every fetch is paired with a raw read of the same bytes. */
async function catchUp(
  log: PartitionLog,
  segment: string,
): Promise<{ ours: number; raw: number; bytes: number }> {
  const fd = fs.openSync(segment, 'r');
  let offset = 0n;
  let position = 0;
  let ours = 0;
  let raw = 0;
  while (offset < log.highWatermark) {
    const t0 = performance.now();
    const r = await log.read(offset, { maxBytes: FETCH, upperBound: 'hw', minOneBatch: true });
    const t1 = performance.now();
    await readAt(fd, r.records.length, position);
    raw += performance.now() - t1;
    ours += t1 - t0;
    position += r.records.length;
    // Next fetch offset: after the last batch returned (as a consumer computes it).
    let pos = 0;
    let last = offset;
    while (pos + 61 <= r.records.length) {
      last = r.records.readBigInt64BE(pos) + BigInt(r.records.readInt32BE(pos + 23));
      pos += 12 + r.records.readInt32BE(pos + 8);
    }
    offset = last + 1n;
  }
  fs.closeSync(fd);
  return { ours, raw, bytes: position };
}

const { dir, cleanup } = benchDir('read');
const rows: (string | number)[][] = [];
try {
  const mgr = await LogManager.open({ logDirs: dir });
  const log = await mgr.createLog('bench', 0, { topicId: 'AAAAAAAAAAAAAAAAAAAAAQ' });
  await fill(log, makeBatches(64 * 1024, 64), TOTAL);
  const segment = join(dir, 'bench-0', '00000000000000000000.log');
  let rawBest = Number.POSITIVE_INFINITY;
  let ourBest = Number.POSITIVE_INFINITY;
  let bytes = 0;
  for (let r = 0; r < ROUNDS; r++) {
    const run = await catchUp(log, segment);
    rawBest = Math.min(rawBest, run.raw);
    ourBest = Math.min(ourBest, run.ours);
    bytes = run.bytes;
  }
  rows.push([
    `catch-up ${(bytes / 2 ** 30).toFixed(2)} GiB, 1 MiB fetches`,
    mb(bytes, rawBest).toFixed(0),
    mb(bytes, ourBest).toFixed(0),
    (rawBest / ourBest).toFixed(2),
  ]);
  await mgr.close();

  // Tail reads: append one 1 KiB batch, read it back at its offset.
  for (const tailCacheBytes of [64 * 1024 * 1024, 0]) {
    const tdir = join(dir, `tail-${tailCacheBytes}`);
    const m = await LogManager.open({ logDirs: tdir, tailCacheBytes });
    const tlog = await m.createLog('tail', 0, { topicId: 'AAAAAAAAAAAAAAAAAAAAAQ' });
    const small = makeBatches(1024, 64);
    const N = 5000;
    let rawMs = Number.POSITIVE_INFINITY;
    let ourMs = Number.POSITIVE_INFINITY;
    const file = join(tdir, 'tail-0', '00000000000000000000.log');
    for (let r = 0; r < ROUNDS; r++) {
      let ours = 0;
      let raw = 0;
      const fd = fs.openSync(file, 'r');
      for (let i = 0; i < N; i++) {
        const before = tlog.size;
        const res = await tlog.appendAsLeader(Buffer.from(small[i % small.length]!), 0);
        tlog.setHighWatermark(tlog.logEndOffset);
        const t0 = performance.now();
        const got = await tlog.read(res.baseOffset, { maxBytes: FETCH, upperBound: 'hw', minOneBatch: true });
        const t1 = performance.now();
        await readAt(fd, tlog.size - before, before);
        raw += performance.now() - t1;
        ours += t1 - t0;
        if (got.records.length === 0) throw new Error('empty tail read');
      }
      fs.closeSync(fd);
      rawMs = Math.min(rawMs, raw);
      ourMs = Math.min(ourMs, ours);
    }
    rows.push([
      `tail reads of 1 KiB batches, cache ${tailCacheBytes > 0 ? 'on' : 'off'} (µs per read: raw ${((rawMs * 1000) / N).toFixed(1)}, ours ${((ourMs * 1000) / N).toFixed(1)})`,
      mb(N * small[0]!.length, rawMs).toFixed(0),
      mb(N * small[0]!.length, ourMs).toFixed(0),
      (rawMs / ourMs).toFixed(2),
    ]);
    await m.close();
  }
} finally {
  cleanup();
}
console.log(table(['read', 'raw fs.read MB/s', 'PartitionLog.read MB/s', 'ratio'], rows));
