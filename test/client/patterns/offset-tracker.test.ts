// The commit point of a partition whose records finish out of order: always the lowest
// unfinished offset (or one past the highest handed out), never beyond a record still running.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PartitionOffsetTracker } from '../../../src/client/patterns/offset-tracker.js';

test('nothing handed out: no commit point', () => {
  const t = new PartitionOffsetTracker();
  assert.equal(t.commitPoint(), null);
  assert.equal(t.commitPointToSend(), null);
});

test('out-of-order completions: the commit point is the lowest unfinished offset', () => {
  const t = new PartitionOffsetTracker();
  for (let o = 10n; o < 15n; o++) t.started(o);
  assert.equal(t.commitPoint(), 10n);
  t.finished(12n);
  t.finished(14n);
  assert.equal(t.commitPoint(), 10n, 'offset 10 still running');
  t.finished(10n);
  assert.equal(t.commitPoint(), 11n);
  t.finished(11n);
  assert.equal(t.commitPoint(), 13n, '12 finished earlier, 13 is the lowest unfinished');
  t.finished(13n);
  assert.equal(t.commitPoint(), 15n, 'everything finished: one past the highest');
  assert.equal(t.unfinished, 0);
});

test('gaps in offsets (compaction, transaction markers) are stepped over', () => {
  const t = new PartitionOffsetTracker();
  for (const o of [3n, 7n, 8n, 20n]) t.started(o);
  t.finished(3n);
  assert.equal(t.commitPoint(), 7n);
  t.finished(8n);
  t.finished(7n);
  assert.equal(t.commitPoint(), 20n);
  t.finished(20n);
  assert.equal(t.commitPoint(), 21n);
});

test('commitPointToSend only reports a point that moved since it was committed', () => {
  const t = new PartitionOffsetTracker();
  t.started(0n);
  t.started(1n);
  t.finished(0n);
  assert.equal(t.commitPointToSend(), 1n);
  t.markCommitted(1n);
  assert.equal(t.commitPointToSend(), null);
  t.finished(1n);
  assert.equal(t.commitPointToSend(), 2n);
  t.markCommitted(1n); // a late acknowledgement of an older commit never moves it back
  t.markCommitted(2n);
  assert.equal(t.commitPointToSend(), null);
});

test('offsets must ascend; finishing an unknown offset is ignored', () => {
  const t = new PartitionOffsetTracker();
  t.started(5n);
  assert.throws(() => t.started(4n), RangeError);
  t.finished(99n);
  assert.equal(t.commitPoint(), 5n);
});

test('random completion order: never past an unfinished record, memory only for unfinished ones', () => {
  const t = new PartitionOffsetTracker();
  const open = new Set<bigint>();
  let next = 0n;
  for (let step = 0; step < 20_000; step++) {
    if (open.size < 50 && Math.random() < 0.55) {
      next += BigInt(1 + Math.floor(Math.random() * 3));
      t.started(next);
      open.add(next);
    } else if (open.size > 0) {
      const all = [...open];
      const o = all[Math.floor(Math.random() * all.length)]!;
      t.finished(o);
      open.delete(o);
    }
    // biome-ignore lint/complexity/useMathMinMax: Math.min does not take bigints
    const lowest = open.size === 0 ? null : [...open].reduce((a, b) => (a < b ? a : b));
    const cp = t.commitPoint();
    if (lowest !== null) assert.equal(cp, lowest);
    else if (next > 0n) assert.equal(cp, next + 1n);
    assert.equal(t.unfinished, open.size);
  }
});
