// Which requests RequestMetrics times (src/broker/metrics/request-timer.ts): all of an API's
// requests at a low rate, a random sample of them at a high one, the stride following the rate
// both ways; and a request that waited behind another gets its arrival time, not its start.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GAP_MS, KeySampler, RequestTimer } from '../../src/broker/metrics/request-timer.js';

/** A frame of API key `key` (the first int16 of a request). */
function frame(key: number): Buffer {
  const f = Buffer.alloc(16);
  f.writeInt16BE(key, 0);
  return f;
}

test('a request coming alone is always timed; within a stream a random one in `stride`, set from the rate', () => {
  const s = new KeySampler();
  // Draws whose low bits are never all zero: only the gap rule can pick these.
  const unlucky = 0b1011;
  let now = 1_000;
  for (let i = 0; i < 5; i++) {
    now += GAP_MS;
    assert.equal(s.pick(now, unlucky), true, 'a request GAP_MS after the previous one');
  }
  assert.equal(s.stride, 1);
  // 10 requests a ms: within a few dozen requests the stride keeps it near 0.25 timed a ms:
  // 64 (10 / 64 ≈ 0.16).
  let timed = 0;
  let x = 12345;
  for (let i = 0; i < 3_000; i++) {
    now += 0.1;
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    if (s.pick(now, x >>> 8) && i >= 100) timed++;
  }
  assert.equal(s.stride, 64);
  assert.ok(timed > 0 && timed < 2_900 / 16, `${timed} of 2,900 timed`);
  // Within the stream an unlucky draw is not timed; the first request after a pause is.
  now += 0.1;
  assert.equal(s.pick(now, unlucky), false);
  now += GAP_MS;
  assert.equal(s.pick(now, unlucky), true);
  // A few requests at a low rate (one per 5 ms, under 0.25 a ms) and the stride is back to 1.
  for (let i = 0; i < 40; i++) {
    now += 5;
    s.pick(now, unlucky);
  }
  assert.equal(s.stride, 1);
  now += 1;
  assert.equal(s.pick(now, 0), true);
});

test('every request is timed at a low rate; at a high rate a sample is, and other API keys are not affected', () => {
  const timer = new RequestTimer();
  for (let i = 0; i < 5; i++) {
    const f = frame(0);
    timer.arrived(f);
    assert.ok(timer.start(f), `request ${i} timed`);
  }
  // Produce frames as fast as the loop goes, for a second: far more than the quarter of a
  // request a ms the sampler keeps to.
  const frames = Array.from({ length: 64 }, () => frame(0));
  const started = performance.now();
  let total = 0;
  let timed = 0;
  let lastTotal = 0;
  let lastTimed = 0;
  for (let i = 0; performance.now() - started < 1_000; i++) {
    const f = frames[i & 63]!;
    timer.arrived(f);
    if (timer.start(f) !== undefined) timed++;
    timer.settled();
    total++;
    if (performance.now() - started < 800) {
      lastTotal = total;
      lastTimed = timed;
    }
  }
  const lateFraction = (timed - lastTimed) / (total - lastTotal);
  assert.ok(timed > 0, 'some requests timed');
  assert.ok(lateFraction < 0.25, `fraction timed in the last 200 ms: ${lateFraction}`);
  // Metadata (key 3) has its own sampler: its first requests are timed.
  const m = frame(3);
  timer.arrived(m);
  assert.ok(timer.start(m), 'a Metadata request timed');
});

test('a frame that waits behind a running request keeps its arrival time', async () => {
  const timer = new RequestTimer();
  const first = frame(1);
  const second = frame(18);
  timer.arrived(first);
  const a = timer.start(first)!;
  // The second arrives while the first runs, and cannot start yet.
  timer.arrived(second);
  await new Promise((resolve) => setTimeout(resolve, 30));
  timer.settled(); // the first request's handler finished
  const b = timer.start(second)!;
  assert.ok(b.startedAt - b.arrivedAt >= 20, `queue ${b.startedAt - b.arrivedAt} ms`);
  assert.equal(a.startedAt, a.arrivedAt);
});
