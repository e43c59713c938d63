// KeyedTimers: a key fires once, at its latest deadline, with its latest operation, whether the
// deadline moved later (cheap path: the clock timer re-arms itself) or earlier (re-armed now).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CoordinatorResult } from '../../../src/broker/coordinator/runtime/coordinator-shard.js';
import { MockClock } from '../../../src/broker/coordinator/runtime/index.js';
import { KeyedTimers } from '../../../src/broker/coordinator/runtime/keyed-timers.js';

function setup() {
  const clock = new MockClock();
  const fired: Array<[string, number]> = [];
  const timers = new KeyedTimers<string>(clock, (op) => {
    op();
  });
  const op = (name: string) => (): CoordinatorResult<string, undefined> => {
    fired.push([name, clock.now()]);
    return { records: [], response: undefined };
  };
  return { clock, fired, timers, op, t0: clock.now() };
}

test('a deadline moved later fires once, at the later time, with the latest operation', () => {
  const { clock, fired, timers, op, t0 } = setup();
  timers.schedule('hb', 1000, op('first'));
  clock.advance(600);
  timers.schedule('hb', 1000, op('second')); // due t0+1600
  clock.advance(600);
  timers.schedule('hb', 1000, op('third')); // due t0+2200
  clock.advance(999); // t0+2199: the first two deadlines have passed, the latest has not
  assert.deepEqual(fired, []);
  assert.equal(timers.isScheduled('hb'), true);
  clock.advance(1);
  assert.deepEqual(fired, [['third', t0 + 2200]]);
  assert.equal(timers.isScheduled('hb'), false);
  assert.equal(timers.size, 0);
  clock.advance(10_000);
  assert.equal(fired.length, 1);
  assert.equal(clock.pendingTimers, 0);
});

test('a deadline moved earlier fires at the earlier time, and only once', () => {
  const { clock, fired, timers, op, t0 } = setup();
  timers.schedule('join', 5000, op('late'));
  timers.schedule('join', 100, op('early'));
  clock.advance(100);
  assert.deepEqual(fired, [['early', t0 + 100]]);
  clock.advance(10_000);
  assert.equal(fired.length, 1);
});

test('cancel and clear stop keys; other keys are independent', () => {
  const { clock, fired, timers, op, t0 } = setup();
  timers.schedule('a', 100, op('a'));
  timers.schedule('b', 200, op('b'));
  timers.schedule('c', 300, op('c'));
  timers.schedule('a', 400, op('a2'));
  timers.cancel('b');
  assert.equal(timers.size, 2);
  clock.advance(350);
  assert.deepEqual(fired, [['c', t0 + 300]]);
  timers.clear();
  clock.advance(1000);
  assert.deepEqual(fired, [['c', t0 + 300]]);
  assert.equal(clock.pendingTimers, 0);
});

test('a key rescheduled from inside its own operation fires again', () => {
  const { clock, fired, timers, t0 } = setup();
  const tick = (): CoordinatorResult<string, undefined> => {
    fired.push(['tick', clock.now()]);
    if (fired.length < 3) timers.schedule('expiry', 1000, tick);
    return { records: [], response: undefined };
  };
  timers.schedule('expiry', 1000, tick);
  clock.advance(5000);
  assert.deepEqual(
    fired.map(([, at]) => at - t0),
    [1000, 2000, 3000],
  );
});
