// Kill -9 mid-way, again and again: a child process runs an OrderedParallelConsumer (ordering
// 'key') over a topic of 200 keys in 4 partitions while records are still being produced; it is
// SIGKILLed at a random point of each of its first KILLS runs and started again, and the last run
// finishes the job. Nothing is lost (every record processed by some run), each run keeps every
// key in offset order, and each run starts exactly at the offsets committed when the previous
// one died — so whatever is processed twice lies after the last commit, never before it.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { TestBroker } from '../../../src/testkit/index.js';
import { scaled, TestTimeoutError } from '../../support/timeouts.js';
import { broker, createTopic } from '../consumer/support.js';
import {
  KillPoints,
  keepProducing,
  killWhen,
  logLines,
  settledCommits,
  spawnModule,
} from './crash-support.js';
import { assertKeyOrder, id, type Processed, produceKeyed, until } from './support.js';

const CHILD = 'test/client/patterns/ordered-parallel-child.ts';
const KEYS = 200;
/** Records in the topic before the first run; as many more are produced while the runs are killed. */
const INITIAL = 3000;
const KILLS = 3;

let b: TestBroker;
let dir: string;
before(async () => {
  b = await broker();
  dir = mkdtempSync(join(tmpdir(), 'samsa-opc-crash-'));
});
after(async () => {
  await b?.close();
  rmSync(dir, { recursive: true, force: true });
});

function readRun(log: string): Processed[] {
  return logLines(log).map(([p, o, key]) => ({ partition: Number(p), offset: BigInt(o!), key: key! }));
}

test(`SIGKILLed ${KILLS} times at random points while records arrive, restarted each time: nothing lost, keys in order, re-delivery only after the last commit`, {
  timeout: scaled(480_000),
}, async (t) => {
  const topic = 'opc-crash';
  const group = 'opc-crash';
  const points = new KillPoints();
  t.diagnostic(`kill points from SAMSA_KILL_SEED=${points.seed}`);
  await createTopic(b, topic, 4);
  await produceKeyed(b, topic, INITIAL, KEYS);
  const producing = keepProducing(
    (from, count) => produceKeyed(b, topic, count, KEYS, from),
    INITIAL,
    100,
    300,
  );

  const runs: Processed[][] = [];
  /** The group's offsets when each killed run died (settled). */
  const commitsAtKill: Map<number, bigint>[] = [];
  const start = (n: number) => {
    const log = join(dir, `run${n}.log`);
    return { log, proc: spawnModule(CHILD, [b.bootstrap, topic, group, log]) };
  };
  let total: number;
  try {
    for (let n = 0; n < KILLS; n++) {
      const { log, proc } = start(n);
      // Somewhere in the middle of this run's work: after 300 to 1,200 records it processed.
      const atRecords = points.between(300, 1200);
      await killWhen(
        proc,
        () => readRun(log).length >= atRecords,
        `run ${n} to process ${atRecords} records`,
        0,
      );
      commitsAtKill.push(await settledCommits(b, group));
      runs.push(readRun(log));
      t.diagnostic(
        `run ${n}: killed after ${runs[n]!.length} records (kill point ${atRecords}), ${producing.produced()} produced`,
      );
    }
  } finally {
    total = await producing.stop();
  }

  const { log, proc } = start(KILLS);
  // A record lost for good (a commit past it) never comes: on the timeout the checks below name
  // it, and the timeout is reported only if they find nothing.
  let timedOut: TestTimeoutError | null = null;
  try {
    await until(
      () => new Set([...runs.flat(), ...readRun(log)].map(id)).size >= total,
      240_000,
      `every one of the ${total} records processed by one of the runs`,
    ).catch((e: unknown) => {
      if (!(e instanceof TestTimeoutError)) throw e;
      timedOut = e;
    });
    if (timedOut === null) {
      proc.child.kill('SIGTERM');
      assert.equal(await proc.exited, 0, proc.stderr);
    }
  } finally {
    await proc.kill('SIGKILL');
  }
  runs.push(readRun(log));

  let duplicates = 0;
  runs.forEach((run, n) => {
    // Per-key order within each run, and no record twice within one run.
    assertKeyOrder(run, `run ${n}`);
    assert.equal(new Set(run.map(id)).size, run.length, `run ${n} processed a record twice`);
    if (n === 0) return;
    // The run resumed exactly at the commit point the previous one left: nothing below it again.
    const committed = commitsAtKill[n - 1]!;
    for (const p of run) {
      const c = committed.get(p.partition) ?? 0n;
      assert.ok(
        p.offset >= c,
        `run ${n}: partition ${p.partition} offset ${p.offset} processed again below the commit point ${c}`,
      );
    }
    const before = new Set(runs.slice(0, n).flat().map(id));
    duplicates += run.filter((p) => before.has(id(p))).length;
  });
  // Every offset below a commit point was processed before that commit: the commit never passed
  // an unfinished record.
  commitsAtKill.forEach((committed, n) => {
    const done = new Set(
      runs
        .slice(0, n + 1)
        .flat()
        .map(id),
    );
    for (const [partition, c] of committed)
      for (let o = 0n; o < c; o++)
        assert.ok(
          done.has(id({ partition, offset: o })),
          `committed offset ${partition}@${o} (after run ${n}) was never processed`,
        );
  });
  // A loaded machine may kill a run before its first commit (every commitIntervalMs); the check
  // above must still have had commits to look at.
  assert.ok(
    commitsAtKill.some((committed) => [...committed.values()].some((o) => o > 0n)),
    'some killed run committed progress before it died',
  );
  if (timedOut !== null) throw timedOut;
  // Nothing lost, nothing that was never produced.
  const all = new Set(runs.flat().map(id));
  assert.equal(all.size, total, `${total} records produced, ${all.size} distinct ones processed`);
  t.diagnostic(
    `runs processed ${runs.map((r) => r.length).join(' + ')} records for ${total}; ${duplicates} re-deliveries, all after a commit point`,
  );
});
