// The lane scheduler alone (no broker): per-lane order, the concurrency bound, retries that keep
// their lane blocked without holding a slot, skip and halt, and dropping a partition.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  type FailureDecision,
  LaneScheduler,
  type LaneTask,
} from '../../../src/client/patterns/lane-scheduler.js';
import { scaled } from '../../support/timeouts.js';

interface Task extends LaneTask {
  id: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function task(id: number, laneKey: string | null, partitionKey = 'p0'): Task {
  return { id, laneKey, partitionKey, attempts: 0 };
}

async function until(cond: () => boolean): Promise<void> {
  const ms = scaled(20_000);
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms`);
    await sleep(2);
  }
}

test('one task per lane at a time, in order; lanes run side by side up to the bound', async () => {
  let running = 0;
  let peak = 0;
  const runningLanes = new Set<string>();
  const done: Task[] = [];
  const s = new LaneScheduler<Task>(4, {
    async execute(t) {
      assert.ok(!runningLanes.has(t.laneKey!), `lane ${t.laneKey} ran two tasks at once`);
      runningLanes.add(t.laneKey!);
      running++;
      peak = Math.max(peak, running);
      await sleep(Math.random() * 4);
      running--;
      runningLanes.delete(t.laneKey!);
    },
    async failed() {
      return 'halt';
    },
    completed(t) {
      done.push(t);
    },
  });
  for (let i = 0; i < 400; i++) s.add(task(i, `k${i % 10}`));
  await until(() => done.length === 400);
  assert.ok(peak <= 4, `peak concurrency ${peak}`);
  assert.ok(peak >= 2, 'lanes ran concurrently');
  for (let k = 0; k < 10; k++) {
    const ids = done.filter((t) => t.laneKey === `k${k}`).map((t) => t.id);
    assert.deepEqual(
      ids,
      [...ids].sort((a, b) => a - b),
      `lane k${k} out of order`,
    );
  }
  assert.equal(s.held, 0);
});

test('a retry keeps its lane blocked but frees the slot for other lanes', async () => {
  const order: string[] = [];
  let failOnce = true;
  const s = new LaneScheduler<Task>(1, {
    async execute(t) {
      if (t.id === 0 && failOnce) {
        failOnce = false;
        throw new Error('transient');
      }
      order.push(`${t.laneKey}:${t.id}`);
    },
    async failed(): Promise<FailureDecision> {
      return { retryAfterMs: 30 };
    },
    completed() {},
  });
  s.add(task(0, 'a'));
  s.add(task(1, 'a'));
  s.add(task(2, 'b'));
  await until(() => order.length === 3);
  // b ran while a waited for its retry; a's second task waited for the first.
  assert.deepEqual(order, ['b:2', 'a:0', 'a:1']);
});

test('skip completes the task and lets its lane go on; halt stops everything after it', async () => {
  const completed: number[] = [];
  const s = new LaneScheduler<Task>(1, {
    async execute(t) {
      if (t.id === 1 || t.id === 3) throw new Error('bad');
    },
    async failed(t): Promise<FailureDecision> {
      return t.id === 1 ? 'skip' : 'halt';
    },
    completed(t) {
      completed.push(t.id);
    },
  });
  for (let i = 0; i < 6; i++) s.add(task(i, 'a'));
  await until(() => completed.length === 3);
  await sleep(20);
  assert.deepEqual(completed, [0, 1, 2]);
  assert.equal(s.held, 3, 'the failed task and those behind it stay unfinished');
});

test('dropping a partition forgets its queued tasks; its running task still completes', async () => {
  const started: number[] = [];
  const completed: number[] = [];
  let release!: () => void;
  const gate = new Promise<void>((r) => {
    release = r;
  });
  const s = new LaneScheduler<Task>(2, {
    async execute(t) {
      started.push(t.id);
      if (t.partitionKey === 'p0') await gate;
    },
    async failed() {
      return 'halt';
    },
    completed(t) {
      completed.push(t.id);
    },
  });
  s.add(task(0, 'a', 'p0'));
  s.add(task(1, 'a', 'p0'));
  s.add(task(2, 'b', 'p0'));
  s.add(task(3, 'c', 'p1'));
  await until(() => started.length >= 2);
  assert.equal(s.runningIn('p0'), started.filter((id) => id !== 3).length);
  const dropped = s.dropPartition('p0');
  assert.ok(dropped >= 1);
  const idle = s.whenIdle('p0');
  release();
  await idle;
  await until(() => completed.includes(3));
  await sleep(20);
  assert.ok(!started.includes(1), 'a dropped task never starts');
  assert.equal(s.held, 0);
});
