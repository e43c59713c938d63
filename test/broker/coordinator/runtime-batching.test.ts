// The runtime's write batching: operations share appends (within the partition's batch limit),
// responses wait for their batch, and a batch the log refuses is taken back exactly — its
// operations fail, the shard forgets its records, later operations carry on.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  AppendRefusedError,
  type CoordinatorResult,
  CoordinatorRuntime,
  type CoordinatorShard,
  InMemoryPartitionWriter,
  MockClock,
  type PartitionWriter,
  type RecordSerde,
  type SerializedRecord,
  type Undo,
} from '../../../src/broker/coordinator/runtime/index.js';
import { ErrorCode, KafkaError } from '../../../src/protocol/errors.js';

interface SetRecord {
  name: string;
  value: number | null;
}

const serde: RecordSerde<SetRecord> = {
  serialize: (r) => ({
    key: Buffer.from(r.name),
    value: r.value === null ? null : Buffer.from(String(r.value)),
  }),
  deserialize: (r) => ({
    name: r.key.toString(),
    value: r.value === null ? null : Number(r.value.toString()),
  }),
};

/** Named values; `undoable` shards can take a record back (as the group shard does for offsets). */
class ValueShard implements CoordinatorShard<SetRecord> {
  values = new Map<string, number>();
  replayUndoable?: (r: SetRecord) => Undo | null;
  constructor(undoable: boolean) {
    if (undoable)
      this.replayUndoable = (r) => {
        const previous = this.values.get(r.name);
        this.replay(r);
        return () => {
          if (previous === undefined) this.values.delete(r.name);
          else this.values.set(r.name, previous);
        };
      };
  }
  replay(r: SetRecord): void {
    if (r.value === null) this.values.delete(r.name);
    else this.values.set(r.name, r.value);
  }
  onLoaded(): void {}
  onUnloaded(): void {}
  set(
    name: string,
    value: number,
    onAppended?: (e: Error | null) => void,
  ): CoordinatorResult<SetRecord, number> {
    return { records: [{ name, value }], response: value, ...(onAppended ? { onAppended } : {}) };
  }
}

async function setup(
  opts: { undoable?: boolean; writer?: PartitionWriter & { load: InMemoryPartitionWriter['load'] } } = {},
) {
  const mem = new InMemoryPartitionWriter();
  const writer = opts.writer ?? mem;
  const shards: ValueShard[] = [];
  const errors: unknown[] = [];
  const runtime = new CoordinatorRuntime<ValueShard, SetRecord>({
    writer,
    loader: writer,
    serde,
    clock: new MockClock(),
    newShard: () => {
      const s = new ValueShard(opts.undoable ?? true);
      shards.push(s);
      return s;
    },
    onError: (_p, e) => errors.push(e),
  });
  await runtime.load(0);
  return { runtime, mem, shards, errors };
}

const turn = () => new Promise((r) => setImmediate(r));
const codeOf = (e: unknown) => (e instanceof KafkaError ? e.code : undefined);
const logOf = (w: InMemoryPartitionWriter) => w.entries(0).map((r) => `${r.key}=${r.value}`);

test('operations of every turn while an append is in flight share the next append, in order', async () => {
  const { runtime, mem } = await setup();
  mem.holdCommits();
  const first = runtime.write(0, (s) => s.set('a', 1));
  await turn();
  const later = [runtime.write(0, (s) => s.set('a', 2))];
  await turn();
  later.push(
    runtime.write(0, (s) => s.set('b', 3)),
    runtime.write(0, (s) => s.set('a', 4)),
  );
  await turn();
  assert.deepEqual(mem.appendSizes, [1], 'one append in flight at a time');
  mem.releaseCommits(); // and the appends after it are not held
  assert.equal(await first, 1);
  assert.deepEqual(await Promise.all(later), [2, 3, 4]);
  assert.deepEqual(mem.appendSizes, [1, 3]);
  assert.deepEqual(logOf(mem), ['a=1', 'a=2', 'b=3', 'a=4']);
  assert.equal(await runtime.read(0, (s) => s.values.get('a')), 4);
});

test('a refused append fails exactly its operations and takes their records back; no reload', async () => {
  const { runtime, mem, shards, errors } = await setup();
  await runtime.write(0, (s) => s.set('a', 1));
  mem.refuseNextAppend(ErrorCode.NOT_ENOUGH_REPLICAS);
  const appended: Array<Error | null> = [];
  const failed = [
    runtime.write(0, (s) => s.set('a', 2, (e) => appended.push(e))),
    runtime.write(0, (s) => s.set('b', 5)),
    // A read after them sees their records, so it fails with them.
    runtime.read(0, (s) => s.values.get('b')),
  ];
  for (const p of failed) await assert.rejects(p, (e) => codeOf(e) === ErrorCode.COORDINATOR_NOT_AVAILABLE);
  assert.equal(appended.length, 1);
  assert.ok(appended[0] instanceof AppendRefusedError);
  assert.equal(shards.length, 1, 'the shard was not reloaded');
  assert.equal(runtime.status(0), 'active');
  assert.deepEqual(
    await runtime.read(0, (s) => [...s.values]),
    [['a', 1]],
    'none of the refused records is applied',
  );
  assert.equal(await runtime.write(0, (s) => s.set('b', 6)), 6);
  assert.deepEqual(logOf(mem), ['a=1', 'b=6'], 'offsets carry on where the committed log ends');
  assert.equal(errors.length, 1, 'the refusal is reported');
});

test('a refused batch takes the batches queued behind it back too (their operations ran on top of it)', async () => {
  const mem = new InMemoryPartitionWriter();
  // Holds the first append's answer so that more operations queue behind it, then refuses it
  // (as a log whose appends are paused for a move between log dirs answers late).
  let refuse = (): void => {};
  let calls = 0;
  const writer = {
    append(p: number, records: readonly SerializedRecord[], ts: number): Promise<bigint> {
      if (calls++ > 0) return mem.append(p, records, ts);
      return new Promise((_, reject) => {
        refuse = () => reject(new AppendRefusedError(ErrorCode.NOT_ENOUGH_REPLICAS, 'ISR too small'));
      });
    },
    load: mem.load.bind(mem),
  };
  const { runtime, shards } = await setup({ writer });
  const refused = runtime.write(0, (s) => s.set('a', 1));
  await turn();
  const queued = runtime.write(0, (s) => s.set('a', 2));
  await turn();
  refuse();
  await assert.rejects(refused, (e) => codeOf(e) === ErrorCode.COORDINATOR_NOT_AVAILABLE);
  await assert.rejects(queued, (e) => codeOf(e) === ErrorCode.COORDINATOR_NOT_AVAILABLE);
  assert.equal(shards.length, 1);
  assert.equal(await runtime.read(0, (s) => s.values.size), 0);
  assert.equal(await runtime.write(0, (s) => s.set('c', 3)), 3);
  assert.deepEqual(logOf(mem), ['c=3']);
});

test('a shard that cannot take records back is reloaded from the log after a refusal', async () => {
  const { runtime, mem, shards } = await setup({ undoable: false });
  await runtime.write(0, (s) => s.set('a', 1));
  mem.refuseNextAppend(ErrorCode.NOT_ENOUGH_REPLICAS);
  await assert.rejects(
    runtime.write(0, (s) => s.set('a', 2)),
    (e) => codeOf(e) === ErrorCode.COORDINATOR_NOT_AVAILABLE,
  );
  await turn();
  assert.equal(shards.length, 2, 'reloaded');
  assert.equal(await runtime.read(0, (s) => s.values.get('a')), 1);
});

test('a lost leadership is not taken back but reloaded (the shard is going away)', async () => {
  const { runtime, mem, shards } = await setup();
  mem.refuseNextAppend(ErrorCode.NOT_LEADER_OR_FOLLOWER);
  await assert.rejects(
    runtime.write(0, (s) => s.set('a', 2)),
    (e) => codeOf(e) === ErrorCode.NOT_COORDINATOR,
  );
  await turn();
  assert.equal(shards.length, 2);
});

test('batches stay within the partition limit; an operation larger than a batch fails alone', async () => {
  const { runtime, mem } = await setup();
  // Header + 3 records of a 1-byte key and 1-byte value at their widest.
  mem.maxBatch = 61 + 3 * (2 + 36);
  const results = await Promise.all(
    Array.from({ length: 10 }, (_, i) => runtime.write(0, (s) => s.set(String.fromCharCode(97 + i), i))),
  );
  assert.deepEqual(results, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  assert.deepEqual(mem.appendSizes, [3, 3, 3, 1]);
  let appended: Error | null | undefined;
  await assert.rejects(
    runtime.write(0, () => ({
      records: Array.from({ length: 4 }, (_, i) => ({ name: `x${i}`, value: 1 })),
      response: null,
      onAppended: (e) => (appended = e),
    })),
    (e) => codeOf(e) === ErrorCode.RECORD_LIST_TOO_LARGE,
  );
  assert.equal(codeOf(appended), ErrorCode.RECORD_LIST_TOO_LARGE);
  assert.equal(await runtime.read(0, (s) => s.values.has('x0')), false, 'nothing of it replayed');
  assert.equal(mem.entries(0).length, 10);
});

test('submit: done runs once — at once for a failure or nothing to wait for, else after the commit', async () => {
  const { runtime, mem, errors } = await setup();
  const seen: Array<[string, unknown, unknown]> = [];
  const done =
    (label: string) =>
    (err: Error | null, value: unknown): void => {
      seen.push([label, codeOf(err) ?? err, value]);
    };
  runtime.submit(7, (s) => s.set('x', 1), done('unknown partition'));
  runtime.submit(0, () => ({ records: [], response: 'nothing' }), done('no records'));
  assert.deepEqual(
    seen,
    [
      ['unknown partition', ErrorCode.NOT_COORDINATOR, undefined],
      ['no records', null, 'nothing'],
    ],
    'both answered before submit returned',
  );
  seen.length = 0;
  mem.holdCommits();
  runtime.submit(0, (s) => s.set('a', 1), done('write'));
  runtime.submit(0, (s) => ({ records: [], response: s.values.get('a') }), done('read after it'));
  runtime.submit(
    0,
    () => {
      throw new KafkaError(ErrorCode.INVALID_GROUP_ID, 'refused by the operation');
    },
    done('throws'),
  );
  assert.deepEqual(seen, [['throws', ErrorCode.INVALID_GROUP_ID, undefined]]);
  await turn();
  assert.equal(seen.length, 1, 'the write and the read wait for the commit');
  // A callback that throws is reported; the waiters after it still get their answer.
  runtime.submit(
    0,
    (s) => s.set('b', 2),
    () => {
      throw new Error('a broken callback');
    },
  );
  runtime.submit(0, (s) => s.set('c', 3), done('after the broken one'));
  mem.releaseCommits();
  await turn();
  await turn();
  assert.deepEqual(seen.slice(1), [
    ['write', null, 1],
    ['read after it', null, 1],
    ['after the broken one', null, 3],
  ]);
  assert.ok(errors.some((e) => e instanceof Error && e.message === 'a broken callback'));
  assert.equal(runtime.status(0), 'active');
  assert.deepEqual(logOf(mem), ['a=1', 'b=2', 'c=3']);
});

test('submit: unload answers every waiting operation NOT_COORDINATOR, once', async () => {
  const { runtime, mem } = await setup();
  mem.holdCommits();
  const calls: unknown[] = [];
  for (let i = 0; i < 3; i++)
    runtime.submit(
      0,
      (s) => s.set(`k${i}`, i),
      (err) => calls.push(codeOf(err)),
    );
  await turn();
  runtime.unload(0);
  mem.releaseCommits();
  await turn();
  assert.deepEqual(calls, [ErrorCode.NOT_COORDINATOR, ErrorCode.NOT_COORDINATOR, ErrorCode.NOT_COORDINATOR]);
});
