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
  assert.ok(budget.used <= 1600);
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
