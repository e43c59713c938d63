// `samsa fan-out`: the real command SIGKILLed again and again — once while a transaction of
// copied records is open, then at random points while records are still being produced — and
// restarted each time, then run with --stop-at-end: the target holds every source record exactly
// once (read with read_committed by our consumer, kcat and confluent-kafka-python), each key on
// murmur2(key) % 6, in order, with its headers and timestamp. Progress lines; and bad input as
// one line, exit 1.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { runFanOut } from '../../src/cli/commands/fan-out.js';
import { startTestBroker, type TestBroker } from '../../src/testkit/index.js';
import type { Proc } from '../broker/txn/interop-support.js';
import { createTopic } from '../client/consumer/support.js';
import { KillPoints, keepProducing, killWhen, spawnModule } from '../client/patterns/crash-support.js';
import {
  checkFanOut,
  countUncommitted,
  fillSource,
  readKcat,
  readOurs,
  readPython,
} from '../client/patterns/fan-out-support.js';
import { committedOffsets } from '../client/patterns/support.js';
import { repoFile } from '../support/repo.js';
import { scaled } from '../support/timeouts.js';
import { fails, failsIn } from './operator-support.js';
import { captureIO, closedPort, lines, runCli } from './support.js';

let b: TestBroker;
before(async () => {
  b = await startTestBroker({
    overrides: { 'offsets.topic.num.partitions': 3, 'transaction.state.log.num.partitions': 3 },
  });
});
after(async () => {
  await b?.close();
});

const SHAPE = { keys: 120, keylessEvery: 7 };
/** Bridges killed at random points, after the first one killed with a transaction open. */
const RANDOM_KILLS = 3;
const PROGRESS = /^copied (\d+) records \((\d+)\/s\), lag (\d+), (\d+) transactions/;

function fanOutProcess(args: readonly string[]): Proc {
  return spawnModule('src/cli/main.ts', ['fan-out', ...args, '--bootstrap-server', b.bootstrap]);
}

const sum = (offsets: Map<number, bigint>): number =>
  [...offsets.values()].reduce((s, o) => s + Number(o), 0);

async function waitFor(what: string, timeoutMs: number, cond: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + scaled(timeoutMs);
  while (!(await cond())) {
    assert.ok(Date.now() < deadline, `timed out after ${scaled(timeoutMs)} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

test(`SIGKILLed ${1 + RANDOM_KILLS} times (once with a transaction open, then at random points while records are produced) and restarted: every record exactly once, keyed by murmur2, in order`, {
  timeout: scaled(480_000),
}, async (t) => {
  await createTopic(b, 'cli-orders', 2);
  await fillSource(b.bootstrap, 'cli-orders', 0, 4000, SHAPE);
  const common = [
    '--from',
    'cli-orders',
    '--to',
    'cli-orders-wide',
    '--partitions',
    '6',
    '--group',
    'cli-widen',
  ];
  // Kill 1, at a known point: transactions of 2,500 records and no time limit. A transaction
  // commits after the poll that takes it to 2,500 (a poll returns at most 500 records), so of
  // the 4,000 + 500 records below one transaction of 2,500-2,999 is committed and the rest
  // (1,501-2,000) wait in a second, open one.
  const first = fanOutProcess([
    ...common,
    '--max-records-per-transaction',
    '2500',
    '--commit-interval-ms',
    '600000',
    '--progress-interval-ms',
    '100',
  ]);
  try {
    const start = await first.waitLine((l) => l.startsWith('fan-out '), 120_000);
    assert.equal(
      start,
      'fan-out cli-orders (2 partitions) -> cli-orders-wide (6 partitions, created), group cli-widen, transactional.id cli-widen:cli-orders',
    );
    const line = await first.waitLine((l) => Number(PROGRESS.exec(l)?.[1]) >= 2500, 120_000);
    assert.match(line, /^copied 2[5-9]\d\d records \(\d+\/s\), lag \d+, 1 transactions$/);
    await waitFor('the source in the target', 120_000, async () => {
      return (await countUncommitted(b.bootstrap, 'cli-orders-wide')) >= 4000;
    });
    await fillSource(b.bootstrap, 'cli-orders', 4000, 500, SHAPE);
    await waitFor('the open transaction to hold 500 more records', 120_000, async () => {
      return (await countUncommitted(b.bootstrap, 'cli-orders-wide')) >= 4500;
    });
  } finally {
    await first.kill('SIGKILL');
  }
  assert.equal(first.child.signalCode, 'SIGKILL');
  const visible = (await readKcat(b.bootstrap, 'cli-orders-wide')).length;
  assert.ok(visible >= 2500 && visible < 3000, `the committed transaction is visible (${visible} records)`);
  assert.equal(
    sum(await committedOffsets(b, 'cli-widen')),
    visible,
    'the group committed the source offsets of exactly the visible records',
  );
  assert.equal(
    await countUncommitted(b.bootstrap, 'cli-orders-wide'),
    4500,
    'the open transaction is in the log, invisible',
  );

  // Kills 2 and on, at random points: records keep arriving while bridges (default transaction
  // limits) come and go, each killed a random time after its first committed transaction —
  // with a transaction open, while it commits, or between two.
  const points = new KillPoints();
  t.diagnostic(`kill points from SAMSA_KILL_SEED=${points.seed}`);
  const producing = keepProducing(
    (from, count) => fillSource(b.bootstrap, 'cli-orders', from, count, SHAPE),
    4500,
    100,
    100,
  );
  let total: number;
  try {
    for (let n = 0; n < RANDOM_KILLS; n++) {
      const p = fanOutProcess([...common, '--progress-interval-ms', '50']);
      const extraMs = points.between(0, 1500);
      await killWhen(
        p,
        () => p.lines.some((l) => Number(PROGRESS.exec(l)?.[4]) >= 1),
        `bridge ${n + 2} to commit a transaction`,
        extraMs,
      );
      t.diagnostic(`bridge ${n + 2}: killed ${extraMs} ms after its first commit, at "${p.lines.at(-1)}"`);
    }
  } finally {
    total = await producing.stop();
  }

  const last = await runCli(['fan-out', ...common, '--stop-at-end', '--bootstrap-server', b.bootstrap], {
    timeoutMs: 180_000,
  });
  assert.equal(last.code, 0, last.stderr);
  const out = lines(last.stdout);
  assert.match(
    out[0]!,
    /^fan-out cli-orders \(2 partitions\) -> cli-orders-wide \(6 partitions\), group cli-widen/,
  );
  const done = /^done: copied (\d+) records in \d+\.\d s, lag 0$/.exec(out.at(-1)!);
  assert.ok(done, out.at(-1));
  // (The group's offsets cannot be read before this run: a bridge killed between sending its
  // offsets to the transaction and committing it leaves them pending until this run fences it.)
  const copied = Number(done[1]);
  assert.ok(copied > 0 && copied <= total - visible, `the last bridge copied what was left (${copied})`);
  assert.equal(sum(await committedOffsets(b, 'cli-widen')), total, 'the group committed the whole source');
  const aborted = (await countUncommitted(b.bootstrap, 'cli-orders-wide')) - total;
  assert.ok(
    aborted >= 4500 - visible,
    `the killed bridges' open transactions were aborted (${aborted} records)`,
  );
  t.diagnostic(`${total} records; ${aborted} aborted records in the log`);

  checkFanOut(await readOurs(b.bootstrap, 'cli-orders-wide', 6), total, 6, SHAPE, 'our consumer');
  checkFanOut(await readKcat(b.bootstrap, 'cli-orders-wide'), total, 6, SHAPE, 'kcat');
  checkFanOut(await readPython(b.bootstrap, 'cli-orders-wide', 6), total, 6, SHAPE, 'confluent-kafka-python');
});

test('SIGTERM commits what was copied and says so', { timeout: scaled(180_000) }, async () => {
  await createTopic(b, 'cli-term', 1);
  await fillSource(b.bootstrap, 'cli-term', 0, 300, SHAPE);
  const p = fanOutProcess(['--from', 'cli-term', '--to', 'cli-term-wide', '--partitions', '3']);
  try {
    await p.waitLine((l) => l.startsWith('fan-out '), 120_000);
    await waitFor(
      '300 records in the target',
      60_000,
      async () => (await readKcat(b.bootstrap, 'cli-term-wide')).length >= 300,
    );
    p.child.kill('SIGTERM');
    assert.equal(await p.exited, 0, p.stderr);
    assert.match(p.lines.at(-1)!, /^stopped: copied 300 records in \d+\.\d s, lag 0$/);
  } finally {
    await p.kill('SIGKILL');
  }
});

test('bad input: one line on stderr, exit status 1', { timeout: scaled(120_000) }, async () => {
  await createTopic(b, 'cli-src', 1);
  await createTopic(b, 'cli-four', 4);
  const bs = b.bootstrap;
  const cases: [RegExp, ...string[]][] = [
    [
      /^samsa: source topic 'cli-missing' does not exist \(samsa topics --list shows the topics\)\n$/,
      '--from',
      'cli-missing',
      '--to',
      'x',
      '--partitions',
      '3',
    ],
    [
      /^samsa fan-out: --partitions must be a whole number of 1 or more, got "0"\n$/,
      '--from',
      'cli-src',
      '--to',
      'x',
      '--partitions',
      '0',
    ],
    [
      /^samsa fan-out: --partitions must be a whole number of 1 or more, got "many"\n$/,
      '--from',
      'cli-src',
      '--to',
      'x',
      '--partitions',
      'many',
    ],
    [
      /^samsa fan-out: --partitions must be a whole number of 1 or more, got "-2"\n$/,
      '--from',
      'cli-src',
      '--to',
      'x',
      '--partitions',
      '-2',
    ],
    [/^samsa fan-out: --partitions is required\n$/, '--from', 'cli-src', '--to', 'x'],
    [/^samsa fan-out: --to is required\n$/, '--from', 'cli-src', '--partitions', '3'],
    [
      /^samsa fan-out: --from and --to must be different topics\n$/,
      '--from',
      'cli-src',
      '--to',
      'cli-src',
      '--partitions',
      '3',
    ],
    [
      /^samsa fan-out: --keyless is sticky or round-robin, not "random"\n$/,
      '--from',
      'cli-src',
      '--to',
      'x',
      '--partitions',
      '3',
      '--keyless',
      'random',
    ],
    [
      /^samsa fan-out: unknown option --partition \(did you mean --partitions\?\)\n$/,
      '--from',
      'cli-src',
      '--to',
      'x',
      '--partition',
      '3',
    ],
    [
      /^samsa fan-out: --to must be a topic name/,
      '--from',
      'cli-src',
      '--to',
      'no/slash',
      '--partitions',
      '3',
    ],
    [
      /^samsa: target topic 'cli-four' exists with 4 partitions, not 8: /,
      '--from',
      'cli-src',
      '--to',
      'cli-four',
      '--partitions',
      '8',
    ],
  ];
  for (const [pattern, ...args] of cases) await failsIn(runFanOut, bs, pattern, 'fan-out', ...args);
  // The same through the real command.
  await fails(
    bs,
    /^samsa fan-out: --partitions must be a whole number of 1 or more, got "0"\n$/,
    'fan-out',
    '--from',
    'cli-src',
    '--to',
    'x',
    '--partitions',
    '0',
  );
  await fails(
    bs,
    /^samsa: source topic 'cli-nope' does not exist/,
    'fan-out',
    '--from',
    'cli-nope',
    '--to',
    'x',
    '--partitions',
    '2',
  );
});

test('an unreachable broker: "cannot reach", exit 1; --help has examples', {
  timeout: scaled(120_000),
}, async () => {
  const server = `127.0.0.1:${await closedPort()}`;
  const io = captureIO();
  const code = await runFanOut(
    ['--from', 'a', '--to', 'b', '--partitions', '3', '--bootstrap-server', server],
    io.io,
  );
  assert.equal(code, 1);
  assert.equal(lines(io.stderr()).at(-1), `samsa: cannot reach ${server} (connection refused)`);
  assert.doesNotMatch(io.stderr(), /\n\s+at /, 'no stack trace');
  // Loads no broker module (the hook throws if one is imported).
  const hook = repoFile('test/cli/no-broker-hook.mjs');
  const help = await runCli(['fan-out', '--help'], { env: { NODE_OPTIONS: `--import ${hook}` } });
  assert.equal(help.code, 0, help.stderr);
  assert.match(
    help.stdout,
    /\nExamples:\n {2}samsa fan-out --from orders --to orders-wide --partitions 64\n/,
  );
  const top = await runCli(['--help']);
  assert.match(top.stdout, /\n {2}fan-out {3}copy a topic into one with more partitions/);
});
