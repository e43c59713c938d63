// 10,000 partitions with data open at once: bounded file descriptors (LRU), modest memory,
// every partition readable, and a clean restart that finds them all.
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { test } from 'node:test';
import type { PartitionLog } from '../../src/storage/index.js';
import { scaled } from '../support/timeouts.js';
import { batch, openManager, records, TOPIC_ID, tempDir } from './helpers.js';

const PARTITIONS = Number(process.env.SCALE_PARTITIONS ?? 10_000);
const MAX_OPEN = 256;

async function inParallel<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
}

const openFds = (): number => readdirSync('/proc/self/fd').length;

// A liveness bound only: the test took 70-110 s of its former 120 s at load 10-22 on 2 cores.
test(`${PARTITIONS} partitions with data stay open within bounded descriptors`, {
  timeout: scaled(600_000),
}, async () => {
  // tmpfs when available: this test is about bookkeeping at scale (descriptors, memory,
  // lookups), not about the disk, which the benchmarks measure.
  const { dir, cleanup } = tempDir('samsa-scale-', existsSync('/dev/shm') ? '/dev/shm' : undefined);
  try {
    const fdsBefore = openFds();
    const mgr = await openManager(dir, { maxOpenFiles: MAX_OPEN });
    const ids = Array.from({ length: PARTITIONS }, (_, i) => i);
    const logs: PartitionLog[] = new Array(PARTITIONS);
    const t0 = performance.now();
    await inParallel(ids, 64, async (p) => {
      const log = await mgr.createLog(`topic-${p % 100}`, Math.floor(p / 100), { topicId: TOPIC_ID });
      await log.appendAsLeader(batch(2, `p${p}`), 0);
      log.setHighWatermark(log.logEndOffset);
      logs[p] = log;
    });
    const created = performance.now() - t0;
    assert.ok(openFds() - fdsBefore <= MAX_OPEN + 64, `descriptors bounded: ${openFds() - fdsBefore}`);
    await inParallel(ids, 64, async (p) => {
      const r = await logs[p]!.read(0n, { maxBytes: 4096, upperBound: 'hw', minOneBatch: true });
      assert.deepEqual(
        records(r.records).map((x) => x.value),
        [`p${p}-0`, `p${p}-1`],
      );
    });
    assert.ok(openFds() - fdsBefore <= MAX_OPEN + 64);
    const t1 = performance.now();
    await mgr.close();
    const closed = performance.now() - t1;
    const t2 = performance.now();
    const again = await openManager(dir, { maxOpenFiles: MAX_OPEN });
    const reopened = performance.now() - t2;
    assert.equal(again.allLogs().length, PARTITIONS);
    for (const p of [0, 1, Math.floor(PARTITIONS / 3), PARTITIONS - 1]) {
      const log = again.getLog(`topic-${p % 100}`, Math.floor(p / 100))!;
      assert.equal(log.logEndOffset, 2n);
      const r = await log.read(0n, { maxBytes: 4096, upperBound: 'hw', minOneBatch: true });
      assert.equal(records(r.records)[1]!.value, `p${p}-1`);
    }
    await again.close();
    console.log(
      `# ${PARTITIONS} partitions: create+append ${created.toFixed(0)} ms, close ${closed.toFixed(0)} ms, reopen ${reopened.toFixed(0)} ms`,
    );
  } finally {
    cleanup();
  }
});
