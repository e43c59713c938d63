import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TailCache, TailCacheBudget } from '../../src/storage/tail-cache.js';

const batch = (tag: number, size: number): Buffer => Buffer.alloc(size, tag & 0xff);

test('tail cache: copies, ring-arena eviction across logs, contiguous runs, reads copy out', () => {
  const budget = new TailCacheBudget(1600, 200);
  const a = new TailCache(budget);
  const b = new TailCache(budget);
  const src = batch(1, 100);
  a.add(src, 0n, 9n);
  src.fill(0xee); // the cache must not have kept a reference
  assert.deepEqual(a.read(0n, 1000, 100n, true), batch(1, 100));
  // Fill the arena from both logs; the oldest entries go first, log by log.
  for (let i = 1; i < 20; i++) (i % 2 ? b : a).add(batch(i + 1, 100), BigInt(i * 10), BigInt(i * 10 + 9));
  assert.equal(a.read(0n, 1000, 1000n, true), null, 'oldest entry evicted');
  const tail = a.read(180n, 1000, 1000n, true)!;
  assert.deepEqual(tail, batch(19, 100));
  // Values survive wrapping: every cached entry still holds its own bytes.
  for (let i = 0; i < 40; i++) a.add(batch(50 + i, 150), BigInt(1000 + i * 10), BigInt(1000 + i * 10 + 9));
  const last = a.read(1390n, 1000, 10_000n, true)!;
  assert.deepEqual(last, batch(89, 150));
  const run = a.read(1350n, 450, 10_000n, true)!;
  assert.deepEqual(run, Buffer.concat([batch(85, 150), batch(86, 150), batch(87, 150)]));
  assert.equal(a.read(1350n, 100, 10_000n, false)!.length, 0, 'maxBytes below one batch');
  assert.equal(a.read(1350n, 1000, 1360n, true)!.length, 150, 'upper bound excludes later batches');
  // A batch above maxCopyBytes clears the log (entries must stay contiguous).
  a.add(batch(1, 300), 2000n, 2009n);
  assert.equal(a.size, 0);
  assert.equal(a.read(1390n, 1000, 10_000n, true), null);
});

// Entries live in rings of numbers (each log's rows) that grow and wrap, and the arena is shared:
// whatever is served must be exactly the bytes of the batches asked for, the cached batches of a
// log must be a contiguous run of its newest, and the last batch added stays readable.
interface ModelRun {
  seed: number;
  arenaBytes: number;
  /** Largest batch appended at `step`. */
  maxSize: (step: number) => number;
  steps: number;
  /** Per mille of steps that drop a log's older entries, clear it, or add a batch too large to cache. */
  disruptions: number;
}

function modelRun(run: ModelRun): void {
  let seed = run.seed;
  const random = (n: number): number => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  const budget = new TailCacheBudget(run.arenaBytes, 4096);
  const logs = Array.from({ length: 3 }, () => ({
    cache: new TailCache(budget),
    next: 0n,
    /** Batches added since the last clear that the cache may still hold: offsets and bytes. */
    batches: [] as { base: bigint; last: bigint; bytes: Buffer }[],
  }));
  type Log = (typeof logs)[number];
  const readOne = (l: Log, b: Log['batches'][number]): Buffer | null =>
    l.cache.read(b.base + BigInt(random(Number(b.last - b.base) + 1)), b.bytes.length, l.next, true);
  const check = (l: Log): void => {
    let first = -1;
    for (const [i, b] of l.batches.entries()) {
      const got = readOne(l, b);
      if (got === null) assert.equal(first, -1, 'cached batches are a contiguous run of the newest');
      else {
        if (first < 0) first = i;
        assert.deepEqual(got, b.bytes);
      }
    }
    if (l.batches.length === 0) return;
    assert.notEqual(first, -1, 'the newest batch of a log is cached');
    const run = l.batches.slice(first);
    assert.deepEqual(
      l.cache.read(run[0]!.base, 1 << 30, l.next, true),
      Buffer.concat(run.map((b) => b.bytes)),
    );
  };
  for (let step = 0; step < run.steps; step++) {
    const l = logs[random(logs.length)]!;
    const op = random(1000);
    if (op >= run.disruptions || op < run.disruptions / 3) {
      const records = 1 + random(20);
      const size = op < run.disruptions / 3 ? 5000 : 61 + random(run.maxSize(step) - 60); // 5000 > maxCopyBytes
      const bytes = Buffer.alloc(size);
      for (let k = 0; k < size; k += 7) bytes[k] = random(256);
      const base = l.next;
      const last = base + BigInt(records - 1);
      l.cache.add(bytes, base, last);
      l.next = last + 1n;
      if (size > budget.maxCopyBytes) l.batches = [];
      else l.batches.push({ base, last, bytes: Buffer.from(bytes) });
      bytes.fill(0); // copies, not references
      if (size <= budget.maxCopyBytes)
        assert.deepEqual(readOne(l, l.batches.at(-1)!), l.batches.at(-1)!.bytes);
    } else if (op < (run.disruptions * 2) / 3) {
      const below = l.batches[random(l.batches.length + 1)]?.base ?? l.next;
      l.cache.dropBelow(below);
      l.batches = l.batches.filter((b) => b.last >= below);
    } else {
      l.cache.clear();
      l.batches = [];
    }
    // The arena overwrote the oldest entries: the model forgets those the cache no longer serves
    // (whether what it still serves is right is `check`'s business).
    for (const m of logs) {
      let keep = 0;
      while (keep < m.batches.length && m.cache.read(m.batches[keep]!.base, 1, m.next, true) === null) keep++;
      if (keep > 0) m.batches = m.batches.slice(keep);
    }
    const held = logs.reduce((n, m) => n + m.batches.reduce((k, b) => k + b.bytes.length, 0), 0);
    assert.ok(held <= run.arenaBytes, 'the cache serves no more than its arena holds');
    if (step % 200 === 0) for (const m of logs) check(m);
  }
  for (const m of logs) check(m);
}

test('tail cache against a model: random appends, evictions, drops and clears over many wraps', () => {
  modelRun({ seed: 7, arenaBytes: 64 * 1024, maxSize: () => 1500, steps: 6000, disruptions: 30 });
  // Appends only, large then small: the rings wrap many times, then grow while wrapped.
  modelRun({
    seed: 11,
    arenaBytes: 256 * 1024,
    maxSize: (s) => (s < 3000 ? 1500 : 120),
    steps: 9000,
    disruptions: 0,
  });
});

test('tail cache: offsets beyond 2^53 are not cached (reads fall through to the segment)', () => {
  const budget = new TailCacheBudget(4096, 512);
  const c = new TailCache(budget);
  c.add(batch(1, 100), 10n, 19n);
  const huge = 1n << 53n;
  c.add(batch(2, 100), huge, huge + 9n);
  assert.equal(c.size, 0, 'the log is cleared: its entries must stay contiguous');
  assert.equal(c.read(huge, 1000, huge + 100n, true), null);
  assert.equal(c.read(10n, 1000, huge + 100n, true), null);
});
