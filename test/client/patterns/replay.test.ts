// Replay: Consumer.replayFrom(time | offsets) and `samsa consume --from-datetime/--from-offset`.
// Records are produced with two explicit timestamps, T0 and T1 = T0 + 30 s; replaying from T1
// reads exactly the second batch, from before T0 everything, from after the last record nothing
// (then only what is produced next). Under faults: the replay group of docs/patterns/replay.md in
// a child process, SIGKILLed at random points and restarted, reads exactly the records at or
// after the time (a run of them stamped exactly at it, the one before it a millisecond earlier),
// each restart continuing from the group's commits.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { after, before, test } from 'node:test';
import { runConsume } from '../../../src/cli/commands/consume.js';
import type { Consumer } from '../../../src/client/consumer/consumer.js';
import { IllegalStateError } from '../../../src/client/errors.js';
import { Producer } from '../../../src/client/producer/producer.js';
import type { TestBroker } from '../../../src/testkit/index.js';
import { scaled } from '../../support/timeouts.js';
import { broker, consumer, createTopic } from '../consumer/support.js';
import { KillPoints, killWhen, logLines, settledCommits, spawnModule } from './crash-support.js';

const TOPIC = 'replay';
const PARTITIONS = 3;
const T0 = Date.now() - 120_000;
const T1 = T0 + 30_000;
const FIRST = Array.from({ length: 30 }, (_, i) => `a${i}`);
const SECOND = Array.from({ length: 30 }, (_, i) => `b${i}`);

let b: TestBroker;
let dir: string;
before(async () => {
  b = await broker();
  dir = mkdtempSync(join(tmpdir(), 'samsa-replay-'));
  await createTopic(b, TOPIC, PARTITIONS);
  const p = new Producer({ bootstrapServers: b.bootstrap, lingerMs: 2 });
  try {
    const send = (values: string[], timestamp: number) =>
      Promise.all(
        values.map((v, i) =>
          p.send({ topic: TOPIC, partition: i % PARTITIONS, key: v, value: v, timestamp }),
        ),
      );
    await send(FIRST, T0);
    await send(SECOND, T1);
  } finally {
    await p.close();
  }
});
after(async () => {
  await b?.close();
  rmSync(dir, { recursive: true, force: true });
});

const all = () => Array.from({ length: PARTITIONS }, (_, partition) => ({ topic: TOPIC, partition }));

/** Polls until every assigned partition's position reached its end offset; returns the values. */
async function readToEnd(c: Consumer): Promise<string[]> {
  const tps = c.assignment();
  const ends = await c.endOffsets(tps);
  const out: string[] = [];
  const deadline = Date.now() + scaled(30_000);
  for (;;) {
    const positions = await Promise.all(tps.map((tp) => c.position(tp)));
    if (positions.every((p, i) => p >= ends[i]!)) return out;
    if (Date.now() > deadline) throw new Error(`timed out reading to the end: ${positions} of ${ends}`);
    for (const r of await c.poll(200)) out.push(r.value!.toString());
  }
}

const sorted = (a: string[]) => [...a].sort();

test('replayFrom(date) reads exactly the records at or after the date', async () => {
  const c = consumer(b, { autoOffsetReset: 'latest' });
  try {
    c.assign(all());
    const targets = await c.replayFrom(new Date(T1));
    assert.equal(targets.length, PARTITIONS);
    assert.deepEqual(sorted(await readToEnd(c)), sorted(SECOND));
    // The exact timestamp of the first batch is included ("at or after"); a millisecond later is not.
    await c.replayFrom(new Date(T0));
    assert.deepEqual(sorted(await readToEnd(c)), sorted([...FIRST, ...SECOND]));
    await c.replayFrom(T0 + 1);
    assert.deepEqual(sorted(await readToEnd(c)), sorted(SECOND));
  } finally {
    await c.close();
  }
});

test('a date after the last record replays nothing: the partitions start at their end', async () => {
  const c = consumer(b, { autoOffsetReset: 'earliest' });
  try {
    c.assign(all());
    const targets = await c.replayFrom(new Date(Date.now() + 3_600_000));
    const ends = await c.endOffsets(all());
    assert.deepEqual(
      targets.map((t) => t.offset),
      ends,
    );
    assert.deepEqual(await readToEnd(c), []);
  } finally {
    await c.close();
  }
});

test('replayFrom(offsets) moves only the partitions named; unassigned ones are refused', async () => {
  const c = consumer(b, { autoOffsetReset: 'latest' });
  try {
    c.assign(all());
    await c.replayFrom(new Date(Date.now() + 3_600_000));
    const targets = await c.replayFrom({ [`${TOPIC}-1`]: 5n });
    assert.deepEqual(targets, [{ topic: TOPIC, partition: 1, offset: 5n }]);
    // Partition 1 holds a1,a4,...,a28 then b1,b4,...,b28 (20 records): offset 5 on is 15 records.
    const got = await readToEnd(c);
    assert.equal(got.length, 15);
    await c.replayFrom([{ topic: TOPIC, partition: 0, offset: 0n }]);
    assert.equal((await readToEnd(c)).length, 20);
    await assert.rejects(c.replayFrom({ 'other-0': 1n }), IllegalStateError);
    await assert.rejects(c.replayFrom({ nopartition: 1n }), /topic-partition/);
  } finally {
    await c.close();
  }
});

test('a replay group positions each newly assigned partition at the date once, then keeps its own offsets', async () => {
  const group = 'replay-group';
  const run = async (): Promise<string[]> => {
    const c = consumer(b, { groupId: group, enableAutoCommit: false });
    try {
      c.subscribe([TOPIC], {
        async onPartitionsAssigned(tps) {
          const committed = await c.committed(tps);
          const fresh = tps.filter((_, i) => committed[i] === null);
          if (fresh.length > 0) await c.replayFrom(new Date(T1), { partitions: fresh });
        },
      });
      const out: string[] = [];
      const deadline = Date.now() + scaled(30_000);
      while (c.assignment().length < PARTITIONS || out.length < SECOND.length) {
        if (Date.now() > deadline) break;
        for (const r of await c.poll(200)) out.push(r.value!.toString());
        if (out.length >= SECOND.length) break;
      }
      await c.commitSync();
      return out;
    } finally {
      await c.close();
    }
  };
  assert.deepEqual(sorted(await run()), sorted(SECOND));
  const c = consumer(b, { groupId: group });
  try {
    const committed = await c.committed(all());
    assert.deepEqual(
      committed.map((o) => o?.offset),
      await c.endOffsets(all()),
      'the replay group committed its own offsets at the end',
    );
  } finally {
    await c.close();
  }
});

function io() {
  const out: string[] = [];
  const err: string[] = [];
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  stdout.on('data', (d: Buffer) => out.push(d.toString()));
  stderr.on('data', (d: Buffer) => err.push(d.toString()));
  return { io: { stdin: new PassThrough(), stdout, stderr }, out, err };
}

const lines = (out: string[]) =>
  out
    .join('')
    .split('\n')
    .filter((l) => l !== '');

test('samsa consume --from-datetime prints exactly the records at or after the time', async () => {
  const iso = new Date(T1).toISOString();
  const c = io();
  const code = await runConsume(
    ['--bootstrap-server', b.bootstrap, '--topic', TOPIC, '--from-datetime', iso, '--timeout-ms', '3000'],
    c.io,
  );
  assert.equal(code, 0, c.err.join(''));
  assert.deepEqual(sorted(lines(c.out)), sorted(SECOND));

  const g = io();
  const gcode = await runConsume(
    [
      '--bootstrap-server',
      b.bootstrap,
      '--topic',
      TOPIC,
      '--group',
      'replay-cli',
      '--from-datetime',
      iso.replace('Z', '+00:00'),
      '--max-messages',
      String(SECOND.length),
    ],
    g.io,
  );
  assert.equal(gcode, 0, g.err.join(''));
  assert.deepEqual(sorted(lines(g.out)), sorted(SECOND));
});

test('samsa consume --from-offset starts every partition there; bad values are usage errors', async () => {
  const c = io();
  const code = await runConsume(
    ['--bootstrap-server', b.bootstrap, '--topic', TOPIC, '--from-offset', '18', '--timeout-ms', '3000'],
    c.io,
  );
  assert.equal(code, 0, c.err.join(''));
  // 20 records per partition: offsets 18 and 19 of each.
  assert.deepEqual(sorted(lines(c.out)), sorted(['b24', 'b27', 'b25', 'b28', 'b26', 'b29']));
  for (const args of [
    ['--from-datetime', 'yesterday'],
    ['--from-datetime', '2024-01-01T00:00:00', '--from-offset', '1'],
    ['--from-offset', '-1'],
    ['--from-datetime', '2024-01-01T00:00:00', '--from-beginning'],
  ]) {
    const e = io();
    const rc = await runConsume(['--bootstrap-server', b.bootstrap, '--topic', TOPIC, ...args], e.io);
    assert.notEqual(rc, 0, `${args.join(' ')} was accepted`);
    assert.match(e.err.join(''), /from-datetime|from-offset/);
  }
});

const KILLS = 3;

test(`a replay group SIGKILLed ${KILLS} times and restarted reads exactly the records at or after the time, boundary ties included`, {
  timeout: scaled(360_000),
}, async (t) => {
  const topic = 'replay-kill';
  const group = 'replay-kill-group';
  const at = Date.now() - 3_600_000;
  // Per partition 600 records: before `first` stamped up to at − 1 ms (the last one exactly
  // at − 1), then 100 stamped exactly `at`, then later ones.
  const PER_PARTITION = 600;
  const first = [200, 250, 300];
  const stampOf = (p: number, j: number): number =>
    j < first[p]! ? at - (first[p]! - j) : j < first[p]! + 100 ? at : at + (j - first[p]! - 99);
  await createTopic(b, topic, first.length);
  const producer = new Producer({ bootstrapServers: b.bootstrap, lingerMs: 5 });
  try {
    const sends: Promise<unknown>[] = [];
    for (let p = 0; p < first.length; p++)
      for (let j = 0; j < PER_PARTITION; j++)
        sends.push(producer.send({ topic, partition: p, value: `${p}/${j}`, timestamp: stampOf(p, j) }));
    await Promise.all(sends);
  } finally {
    await producer.close();
  }
  const expected = new Set<string>();
  for (let p = 0; p < first.length; p++)
    for (let j = first[p]!; j < PER_PARTITION; j++) expected.add(`${p}@${j}`);

  const points = new KillPoints();
  t.diagnostic(`kill points from SAMSA_KILL_SEED=${points.seed}`);
  const start = (n: number) => {
    const log = join(dir, `replay-run${n}.log`);
    return {
      log,
      proc: spawnModule('test/client/patterns/replay-child.ts', [b.bootstrap, topic, group, String(at), log]),
    };
  };
  const logs: string[] = [];
  const commitsAtKill: Map<number, bigint>[] = [];
  for (let n = 0; n < KILLS; n++) {
    const { log, proc } = start(n);
    logs.push(log);
    const atRecords = points.between(40, 250);
    await killWhen(
      proc,
      () => logLines(log).length >= atRecords,
      `replay run ${n} to read ${atRecords} records`,
      0,
    );
    commitsAtKill.push(await settledCommits(b, group));
    t.diagnostic(`run ${n}: killed after ${logLines(log).length} records (kill point ${atRecords})`);
  }
  const last = start(KILLS);
  logs.push(last.log);
  try {
    await last.proc.waitLine((l) => l === 'done', 180_000);
    assert.equal(await last.proc.exited, 0, last.proc.stderr);
  } finally {
    await last.proc.kill('SIGKILL');
  }

  const read = new Set<string>();
  let duplicates = 0;
  logs.forEach((log, n) => {
    const lastOffset = new Map<number, number>();
    for (const [p, o, value, ts] of logLines(log)) {
      const partition = Number(p);
      const offset = Number(o);
      const id = `${partition}@${offset}`;
      assert.ok(
        expected.has(id),
        `run ${n} read ${id} (${value}, stamped ${Number(ts) - at} ms from the time): before the time`,
      );
      assert.equal(value, `${partition}/${offset}`, `run ${n}: the record at ${id}`);
      assert.equal(Number(ts), stampOf(partition, offset), `run ${n}: the timestamp of ${id}`);
      assert.ok(
        offset > (lastOffset.get(partition) ?? -1),
        `run ${n} read ${id} after offset ${lastOffset.get(partition)}`,
      );
      lastOffset.set(partition, offset);
      if (n > 0) {
        // A restart continues from the group's commits: it never goes back to the time, and
        // re-reads only what the killed run read after its last commit.
        const committed = commitsAtKill[n - 1]!.get(partition);
        if (committed !== undefined)
          assert.ok(
            BigInt(offset) >= committed,
            `run ${n} read ${id} below the committed offset ${committed}`,
          );
      }
      if (read.has(id)) duplicates++;
      read.add(id);
    }
  });
  assert.equal(read.size, expected.size, `${expected.size} records at or after the time, ${read.size} read`);
  t.diagnostic(
    `${expected.size} records replayed by ${logs.length} runs, ${duplicates} read again after a kill`,
  );
});
