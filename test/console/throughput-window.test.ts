// The console's throughput arithmetic on hand-made samples: increments between samples, clamped
// at zero per partition; rates over the window; gaps after which sampling starts afresh; unknown
// sizes or groups as null, never as zero.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { committedKey, step, type ThroughputSample, ThroughputWindow } from '../../src/console/throughput.js';

const tp = (topic: string, p: number) => `${topic}\u0000${p}`;

function sample(
  t: number,
  ends: Record<string, number>,
  o: { sizes?: Record<string, number> | null; committed?: Record<string, number> | null } = {},
): ThroughputSample {
  return {
    t,
    ends: new Map(Object.entries(ends)),
    sizes: o.sizes === null ? null : new Map(Object.entries(o.sizes ?? {})),
    committed: o.committed === null ? null : new Map(Object.entries(o.committed ?? {})),
    starts: new Map(),
  };
}

test('a step counts growth per partition and never negative growth', () => {
  const a = sample(
    0,
    { [tp('a', 0)]: 10, [tp('a', 1)]: 5, [tp('b', 0)]: 100 },
    { sizes: { [tp('a', 0)]: 1000, [tp('b', 0)]: 9000 } },
  );
  const b = sample(
    2000,
    // a-0 grew by 30, a-1 unchanged, b-0 was truncated (recreated), c-0 is new.
    { [tp('a', 0)]: 40, [tp('a', 1)]: 5, [tp('b', 0)]: 3, [tp('c', 0)]: 50 },
    { sizes: { [tp('a', 0)]: 4000, [tp('b', 0)]: 100, [tp('c', 0)]: 5000 } },
  );
  const s = step(a, b);
  assert.equal(s.messagesIn, 30);
  assert.equal(s.bytesIn, 3000);
  assert.deepEqual([...s.topicMessages], [['a', 30]]);
});

test('messages out are committed-offset growth; bytes out use the mean record size', () => {
  const k = committedKey(tp('a', 0), 'g1');
  const k2 = committedKey(tp('a', 0), 'g\u0000odd');
  const a = sample(
    0,
    { [tp('a', 0)]: 100 },
    { sizes: { [tp('a', 0)]: 10_000 }, committed: { [k]: 10, [k2]: 50 } },
  );
  const b = sample(
    1000,
    { [tp('a', 0)]: 100 },
    { sizes: { [tp('a', 0)]: 10_000 }, committed: { [k]: 30, [k2]: 40 } },
  );
  const s = step(a, b);
  assert.equal(s.messagesOut, 20, 'a reset backwards (k2) counts as nothing');
  assert.equal(s.bytesOut, 20 * 100, '10,000 bytes over 100 records: 100 bytes a record');
  const noGroups = step(a, sample(1000, { [tp('a', 0)]: 100 }, { committed: null }));
  assert.equal(noGroups.messagesOut, null);
  assert.equal(noGroups.bytesOut, null);
  const noSizes = step(a, sample(1000, { [tp('a', 0)]: 100 }, { sizes: null, committed: { [k]: 30 } }));
  assert.equal(noSizes.bytesIn, null);
  assert.equal(noSizes.messagesOut, 20);
  assert.equal(noSizes.bytesOut, null);
});

test('rates average the steps inside the window over the time they span', () => {
  const w = new ThroughputWindow(10_000, 60_000);
  assert.equal(w.rates(0), null, 'one sample is no rate yet');
  const at = (t: number, end: number) =>
    sample(t, { [tp('a', 0)]: end }, { sizes: { [tp('a', 0)]: end * 10 } });
  w.add(at(0, 0));
  assert.equal(w.rates(0), null);
  w.add(at(5000, 500));
  w.add(at(10_000, 1500));
  let r = w.rates(10_000)!;
  assert.deepEqual([r.from, r.to], [0, 10_000]);
  assert.equal(r.messagesInPerSec, 150);
  assert.equal(r.bytesInPerSec, 1500);
  assert.equal(w.topicRates(10_000)!.get('a'), 150);
  // The first step (0–5 s) leaves the 10 s window once a sample at 15 s arrives.
  w.add(at(15_000, 1500));
  r = w.rates(15_000)!;
  assert.deepEqual([r.from, r.to], [5000, 15_000]);
  assert.equal(r.messagesInPerSec, 100);
  // A gap longer than maxGap: the old steps are not averaged with the new ones.
  w.add(at(100_000, 2000));
  assert.equal(w.rates(100_000), null);
  w.add(at(101_000, 2100));
  assert.equal(w.rates(101_000)!.messagesInPerSec, 100);
  // And a window whose newest step is older than maxGap is not "now".
  assert.equal(w.rates(200_000), null);
  assert.equal(w.topicRates(200_000), null);
});

test('one long step (an idle interval) stays even when longer than the window', () => {
  const w = new ThroughputWindow(10_000, 120_000);
  w.add(sample(0, { [tp('a', 0)]: 0 }));
  w.add(sample(60_000, { [tp('a', 0)]: 600 }));
  const r = w.rates(60_000)!;
  assert.deepEqual([r.from, r.to, r.messagesInPerSec], [0, 60_000, 10]);
});
