// The frame/read buffer pool: size classes, reuse, guards against double or foreign release,
// the idle cap and trimming.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BufferPool, sizeClass } from '../../src/broker/network/buffer-pool.js';

test('size classes round a size up by less than 1/8 of it', () => {
  assert.equal(sizeClass(1), 16);
  assert.equal(sizeClass(65536), 65536);
  assert.equal(sizeClass(65537), 65536 + 8192);
  assert.equal(sizeClass(1_000_100), 1_048_576);
  assert.equal(sizeClass(1_048_577), 1_048_576 + 131_072);
  for (let n = 17; n < 5_000_000; n = Math.ceil(n * 1.37)) {
    const c = sizeClass(n);
    assert.ok(c >= n && c - n < n / 8, `${n} → ${c}`);
  }
});

test('a released buffer is reused for the next frame of its class', () => {
  const pool = new BufferPool({ trimIntervalMs: 0 });
  const a = pool.acquire(100_000);
  assert.equal(a.length, 100_000);
  a.fill(7);
  pool.release(a);
  assert.equal(pool.idleBytes, sizeClass(100_000));
  const b = pool.acquire(99_000);
  assert.equal(b.buffer, a.buffer, 'same memory');
  assert.equal(b.length, 99_000);
  assert.equal(pool.idleBytes, 0);
  const c = pool.acquire(100_000);
  assert.notEqual(c.buffer, a.buffer, 'a lent buffer is never handed out twice');
});

test('small, huge, foreign and twice-released buffers never enter the pool', () => {
  const pool = new BufferPool({ trimIntervalMs: 0, maxPooledBytes: 1 << 20 });
  const small = pool.acquire(100);
  pool.release(small);
  const huge = pool.acquire(2 << 20);
  pool.release(huge);
  pool.release(Buffer.alloc(100_000));
  assert.equal(pool.idleBytes, 0);
  const f = pool.acquire(200_000);
  pool.release(f);
  pool.release(f);
  assert.equal(pool.idleBytes, sizeClass(200_000));
  const g = pool.acquire(200_000);
  const h = pool.acquire(200_000);
  assert.notEqual(g.buffer, h.buffer, 'a double release must not hand one buffer to two users');
});

test('idle memory is capped and dropped after a period without demand', () => {
  const pool = new BufferPool({ trimIntervalMs: 0, maxIdleBytes: 300_000 });
  const bufs = [pool.acquire(100_000), pool.acquire(100_000), pool.acquire(100_000)];
  for (const b of bufs) pool.release(b);
  assert.equal(pool.idleBytes, 2 * sizeClass(100_000), 'the third one is over the cap');
  pool.trim(); // there was demand since the last trim: kept
  assert.equal(pool.idleBytes, 2 * sizeClass(100_000));
  pool.trim(); // no demand since: dropped
  assert.equal(pool.idleBytes, 0);
  pool.close();
});
