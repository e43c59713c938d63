// Replay: Consumer.replayFrom(time | offsets) and `samsa consume --from-datetime/--from-offset`.
// Records are produced with two explicit timestamps, T0 and T1 = T0 + 30 s; replaying from T1
// reads exactly the second batch, from before T0 everything, from after the last record nothing
// (then only what is produced next).
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { after, before, test } from 'node:test';
import { runConsume } from '../../../src/cli/commands/consume.js';
import type { Consumer } from '../../../src/client/consumer/consumer.js';
import { IllegalStateError } from '../../../src/client/errors.js';
import { Producer } from '../../../src/client/producer/producer.js';
import type { TestBroker } from '../../../src/testkit/index.js';
import { scaled } from '../../support/timeouts.js';
import { broker, consumer, createTopic } from '../consumer/support.js';

const TOPIC = 'replay';
const PARTITIONS = 3;
const T0 = Date.now() - 120_000;
const T1 = T0 + 30_000;
const FIRST = Array.from({ length: 30 }, (_, i) => `a${i}`);
const SECOND = Array.from({ length: 30 }, (_, i) => `b${i}`);

let b: TestBroker;
before(async () => {
  b = await broker();
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
