// Memory and time with 10,000 partitions open, each holding data (one 1 KiB batch appended and
// read back), within the LRU's descriptor bound. RSS is measured after a GC (run with
// --expose-gc); data lives on tmpfs (/dev/shm) when present so file pages do not blur the
// figure and the disk does not dominate the timing.
// Run: node --expose-gc --import tsx bench/storage-partitions.ts   (PARTITIONS=…)
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LogManager, type PartitionLog } from '../src/storage/index.js';
import { makeBatches, table } from './storage-util.js';

const N = Number(process.env.PARTITIONS ?? 10_000);
const gc = (globalThis as { gc?: () => void }).gc;
const rss = (): number => {
  gc?.();
  gc?.();
  return process.memoryUsage().rss;
};

async function inParallel<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
}

const dir = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'samsa-bench-partitions-'));
try {
  const batch = makeBatches(1024, 1)[0]!;
  const mgr = await LogManager.open({ logDirs: dir, maxOpenFiles: 1024 });
  const before = rss();
  const fdBefore = readdirSync('/proc/self/fd').length;
  const ids = Array.from({ length: N }, (_, i) => i);
  const logs: PartitionLog[] = [];
  let t0 = performance.now();
  await inParallel(ids, 64, async (p) => {
    const log = await mgr.createLog(`topic-${p % 100}`, Math.floor(p / 100), {
      topicId: 'AAAAAAAAAAAAAAAAAAAAAQ',
    });
    await log.appendAsLeader(Buffer.from(batch), 0);
    log.setHighWatermark(log.logEndOffset);
    logs[p] = log;
  });
  const createMs = performance.now() - t0;
  t0 = performance.now();
  await inParallel(ids, 64, async (p) => {
    const r = await logs[p]!.read(0n, { maxBytes: 1 << 20, upperBound: 'hw', minOneBatch: true });
    if (r.records.length !== batch.length) throw new Error('bad read');
  });
  const readMs = performance.now() - t0;
  const after = rss();
  const fds = readdirSync('/proc/self/fd').length - fdBefore;
  t0 = performance.now();
  await mgr.close();
  const closeMs = performance.now() - t0;
  t0 = performance.now();
  const again = await LogManager.open({ logDirs: dir, maxOpenFiles: 1024 });
  const openMs = performance.now() - t0;
  const reopened = rss();
  await again.close();
  console.log(
    table(
      [
        'partitions',
        'RSS with all open',
        'bytes per partition',
        'descriptors',
        'create+append',
        'read all',
        'clean close',
        'reopen (recovery of all)',
        'bytes per partition after reopen',
      ],
      [
        [
          N.toLocaleString('en'),
          `${(after / 2 ** 20).toFixed(0)} MiB`,
          ((after - before) / N).toFixed(0),
          fds,
          `${(createMs / 1000).toFixed(1)} s`,
          `${(readMs / 1000).toFixed(1)} s`,
          `${(closeMs / 1000).toFixed(1)} s`,
          `${(openMs / 1000).toFixed(1)} s`,
          ((reopened - before) / N).toFixed(0),
        ],
      ],
    ),
  );
  if (gc === undefined) console.log('(run with --expose-gc for stable RSS figures)');
} finally {
  rmSync(dir, { recursive: true, force: true });
}
