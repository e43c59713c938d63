// The controller's event loop: one event at a time to completion, coalescing of waiting watch
// events, results for callers, and what closing does to waiting callers.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EventQueue } from '../../../../src/broker/metadata/controller/event-queue.js';

const tick = () => new Promise<void>((r) => setImmediate(r));

test('events run one at a time, in order, awaits included', async () => {
  const errors: unknown[] = [];
  const q = new EventQueue((_n, e) => errors.push(e));
  const trace: string[] = [];
  let running = 0;
  const ev = (name: string) => async () => {
    running++;
    assert.equal(running, 1, 'never two at once');
    trace.push(`${name}:start`);
    await tick();
    trace.push(`${name}:end`);
    running--;
  };
  q.put('a', ev('a'));
  q.put('b', ev('b'));
  q.put('boom', async () => {
    throw new Error('boom');
  });
  q.put('c', ev('c'));
  assert.deepEqual(trace, [], 'never inside the caller');
  await q.whenIdle();
  assert.deepEqual(trace, ['a:start', 'a:end', 'b:start', 'b:end', 'c:start', 'c:end']);
  assert.equal(errors.length, 1, 'a failing event does not stop the queue');
});

test('a keyed event waiting in the queue absorbs repeats; once running, a repeat queues again', async () => {
  const q = new EventQueue(() => {});
  let runs = 0;
  let release!: () => void;
  const blocker = new Promise<void>((r) => {
    release = r;
  });
  q.put('block', () => blocker);
  for (let i = 0; i < 5; i++) q.put('brokers', async () => void runs++, 'brokers');
  release();
  await q.whenIdle();
  assert.equal(runs, 1);
  q.put(
    'brokers',
    async () => {
      runs++;
      q.put('brokers', async () => void runs++, 'brokers');
    },
    'brokers',
  );
  await q.whenIdle();
  assert.equal(runs, 3);
});

test('call resolves with the result; after close, callers get the fallback', async () => {
  const q = new EventQueue(() => {});
  assert.equal(
    await q.call(
      'x',
      async () => 42,
      () => -1,
    ),
    42,
  );
  await assert.rejects(
    q.call(
      'y',
      async () => {
        throw new Error('nope');
      },
      () => 0,
    ),
    /nope/,
  );
  let release!: () => void;
  q.put('block', () => new Promise<void>((r) => (release = r)));
  const waiting = q.call(
    'late',
    async () => 1,
    () => -1,
  );
  await tick();
  q.close();
  assert.equal(await waiting, -1);
  assert.equal(
    await q.call(
      'after',
      async () => 1,
      () => -2,
    ),
    -2,
  );
  release();
  await q.whenIdle();
});
