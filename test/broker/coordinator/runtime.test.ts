import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  type CoordinatorResult,
  CoordinatorRuntime,
  type CoordinatorShard,
  InMemoryPartitionWriter,
  MockClock,
  type RecordSerde,
  type ShardContext,
} from '../../../src/broker/coordinator/runtime/index.js';
import { KafkaError } from '../../../src/protocol/errors.js';

// A tiny coordinator: named counters, one record per increment, tombstone = delete.
interface CounterRecord {
  name: string;
  value: number | null;
}

const serde: RecordSerde<CounterRecord> = {
  serialize: (r) => ({
    key: Buffer.from(r.name),
    value: r.value === null ? null : Buffer.from(String(r.value)),
  }),
  deserialize: (r) => {
    if (r.key.toString() === 'unknown-type') return null;
    return { name: r.key.toString(), value: r.value === null ? null : Number(r.value.toString()) };
  },
};

class CounterShard implements CoordinatorShard<CounterRecord> {
  counters = new Map<string, number>();
  loaded = false;
  unloaded = false;
  constructor(readonly ctx: ShardContext<CounterRecord>) {}
  replay(r: CounterRecord): void {
    if (r.value === null) this.counters.delete(r.name);
    else this.counters.set(r.name, r.value);
  }
  onLoaded(): void {
    this.loaded = true;
  }
  onUnloaded(): void {
    this.unloaded = true;
  }
  increment(name: string): CoordinatorResult<CounterRecord, number> {
    const next = (this.counters.get(name) ?? 0) + 1;
    return { records: [{ name, value: next }], response: next };
  }
}

function setup() {
  const clock = new MockClock();
  const writer = new InMemoryPartitionWriter();
  const shards: CounterShard[] = [];
  const errors: unknown[] = [];
  const runtime = new CoordinatorRuntime<CounterShard, CounterRecord>({
    writer,
    loader: writer,
    serde,
    clock,
    newShard: (ctx) => {
      const s = new CounterShard(ctx);
      shards.push(s);
      return s;
    },
    onError: (_p, err) => errors.push(err),
  });
  return { clock, writer, runtime, shards, errors };
}

const codeOf = (err: unknown) => (err instanceof KafkaError ? err.code : undefined);

test('operations on an unknown partition fail NOT_COORDINATOR, while loading COORDINATOR_LOAD_IN_PROGRESS', async () => {
  const { runtime, writer } = setup();
  await assert.rejects(
    runtime.write(0, (s) => s.increment('a')),
    (e) => codeOf(e) === 16,
  );
  writer.entries(3).push({ key: Buffer.from('a'), value: Buffer.from('5'), offset: 0n });
  const loading = runtime.load(3);
  assert.equal(runtime.status(3), 'loading');
  await assert.rejects(
    runtime.write(3, (s) => s.increment('a')),
    (e) => codeOf(e) === 14,
  );
  await loading;
  assert.equal(runtime.status(3), 'active');
  assert.equal(await runtime.write(3, (s) => s.increment('a')), 6);
});

test('responses wait for the commit of their records and of everything written before', async () => {
  const { runtime, writer } = setup();
  await runtime.load(0);
  writer.holdCommits();
  const order: string[] = [];
  const w = runtime.write(0, (s) => s.increment('a')).then((v) => order.push(`write ${v}`));
  // The read sees the uncommitted increment, so it must not answer before it is committed.
  const r = runtime.read(0, (s) => s.counters.get('a')).then((v) => order.push(`read ${v}`));
  await new Promise((res) => setImmediate(res));
  await new Promise((res) => setImmediate(res));
  assert.deepEqual(order, []);
  writer.releaseCommits();
  await Promise.all([w, r]);
  assert.deepEqual(order, ['write 1', 'read 1']);
});

test('operations of one turn share one append; the log replays to the same state', async () => {
  const { runtime, writer, shards } = setup();
  await runtime.load(1);
  const results = await Promise.all([1, 2, 3, 4, 5].map(() => runtime.write(1, (s) => s.increment('x'))));
  assert.deepEqual(results, [1, 2, 3, 4, 5]);
  assert.equal(writer.appendCount, 1);
  await runtime.write(1, () => ({
    records: [
      { name: 'x', value: null },
      { name: 'y', value: 9 },
    ],
    response: null,
  }));
  writer.entries(1).push({ key: Buffer.from('unknown-type'), value: null, offset: 7n });
  runtime.unload(1);
  assert.equal(shards[0]?.unloaded, true);
  await runtime.load(1);
  assert.deepEqual([...(shards[1]?.counters ?? [])], [['y', 9]]);
  assert.equal(shards[1]?.loaded, true);
});

test('a failed append fails its waiters and reloads the shard from the committed log', async () => {
  const { runtime, writer, shards, errors } = setup();
  await runtime.load(0);
  await runtime.write(0, (s) => s.increment('a'));
  writer.failNextAppend(new Error('disk full'));
  let appended: Error | null | undefined;
  const failed = runtime.write(0, (s) => ({ ...s.increment('a'), onAppended: (e) => (appended = e) }));
  await assert.rejects(failed, (e) => codeOf(e) === 15);
  assert.equal(appended?.message, 'disk full');
  assert.equal(errors.length, 1);
  // Reload happens by itself; the uncommitted increment is gone.
  await new Promise((res) => setImmediate(res));
  assert.equal(shards.length, 2);
  assert.equal(await runtime.read(0, (s) => s.counters.get('a')), 1);
});

test('timers run as operations on the shard and die with it', async () => {
  const { runtime, clock, writer } = setup();
  await runtime.load(0);
  await runtime.read(0, (s) => {
    s.ctx.timer.schedule('t', 1000, () => s.increment('timer'));
    s.ctx.timer.schedule('u', 500, () => s.increment('never'));
    s.ctx.timer.schedule('u', 2000, () => s.increment('u'));
  });
  clock.advance(999);
  await new Promise((res) => setImmediate(res));
  assert.equal(writer.entries(0).length, 0);
  clock.advance(1);
  await new Promise((res) => setImmediate(res));
  assert.deepEqual(
    writer.entries(0).map((r) => r.key.toString()),
    ['timer'],
  );
  runtime.unload(0);
  clock.advance(5000);
  assert.equal(clock.pendingTimers, 0);
});

test('unload fails operations still waiting for their commit', async () => {
  const { runtime, writer } = setup();
  await runtime.load(0);
  writer.holdCommits();
  const p = runtime.write(0, (s) => s.increment('a'));
  await new Promise((res) => setImmediate(res));
  runtime.unload(0);
  await assert.rejects(p, (e) => codeOf(e) === 16);
  writer.releaseCommits();
});
