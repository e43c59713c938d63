// Kill -9 mid-way: a child process runs an OrderedParallelConsumer over 5,000 records (200 keys,
// 4 partitions) and is SIGKILLed after about 40% of them; a second child then finishes the job.
// Nothing is lost (every record processed by one run or the other), each run keeps every key in
// offset order, and the second run starts exactly at the committed offsets — so everything
// processed twice lies in the tail that was not yet committed when the first run died.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { TestBroker } from '../../../src/testkit/index.js';
import { LOADER_FLAGS, moduleFile } from '../../support/repo.js';
import { scaled } from '../../support/timeouts.js';
import { broker, createTopic } from '../consumer/support.js';
import {
  assertKeyOrder,
  committedOffsets,
  id,
  type Processed,
  produceKeyed,
  sleep,
  until,
} from './support.js';

const CHILD = moduleFile('test/client/patterns/ordered-parallel-child.ts');
const RECORDS = 5000;

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

function startChild(
  topic: string,
  group: string,
  log: string,
): { child: ChildProcess; stderr: () => string } {
  const child = spawn(process.execPath, [...LOADER_FLAGS, CHILD, b.bootstrap, topic, group, log], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr!.on('data', (d: Buffer) => {
    err += d.toString();
  });
  return { child, stderr: () => err };
}

function readRun(log: string): Processed[] {
  if (!existsSync(log)) return [];
  return readFileSync(log, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => {
      const [p, o, key] = l.split(' ');
      return { partition: Number(p), offset: BigInt(o!), key: key! };
    });
}

function exited(child: ChildProcess): Promise<number | string> {
  if (child.exitCode !== null || child.signalCode !== null)
    return Promise.resolve(child.exitCode ?? child.signalCode!);
  return new Promise((r) => child.once('exit', (code, sig) => r(code ?? sig ?? -1)));
}

test('SIGKILL mid-way, then a restart: nothing lost, keys in order, duplicates only from the uncommitted tail', {
  timeout: scaled(300_000),
}, async () => {
  const topic = 'opc-crash';
  const group = 'opc-crash';
  await createTopic(b, topic, 4);
  await produceKeyed(b, topic, RECORDS, 200);
  const log1 = join(dir, 'run1.log');
  const log2 = join(dir, 'run2.log');

  const first = startChild(topic, group, log1);
  try {
    await until(() => readRun(log1).length >= 2000, 120_000, 'the first run processed 2,000 records');
  } finally {
    first.child.kill('SIGKILL');
  }
  assert.equal(await exited(first.child), 'SIGKILL');
  // A commit the child sent just before the kill may still be applied: read until two reads agree.
  let committed = await committedOffsets(b, group);
  for (;;) {
    await sleep(300);
    const again = await committedOffsets(b, group);
    const text = (m: Map<number, bigint>) =>
      [...m]
        .map(([p, o]) => `${p}:${o}`)
        .sort()
        .join(',');
    if (text(again) === text(committed)) break;
    committed = again;
  }
  const run1 = readRun(log1);
  assert.ok(run1.length < RECORDS, 'killed before the end');
  assert.ok(
    [...committed.values()].some((o) => o > 0n),
    'the first run committed progress before it died',
  );

  const second = startChild(topic, group, log2);
  try {
    await until(
      () => new Set([...run1, ...readRun(log2)].map(id)).size >= RECORDS,
      180_000,
      'every record processed by one of the runs',
    );
    second.child.kill('SIGTERM');
    assert.equal(await exited(second.child), 0, second.stderr());
  } finally {
    second.child.kill('SIGKILL');
  }
  const run2 = readRun(log2);

  // Nothing lost.
  assert.equal(new Set([...run1, ...run2].map(id)).size, RECORDS);
  // Per-key order within each run (and no record twice within one run).
  assertKeyOrder(run1, 'first run');
  assertKeyOrder(run2, 'second run');
  assert.equal(new Set(run1.map(id)).size, run1.length);
  assert.equal(new Set(run2.map(id)).size, run2.length);
  // The second run resumed at the commit point: nothing below it again, and it includes the first
  // record at it — so every duplicate comes from the uncommitted tail.
  for (const p of run2) {
    const c = committed.get(p.partition) ?? 0n;
    assert.ok(
      p.offset >= c,
      `partition ${p.partition} offset ${p.offset} re-processed below the commit point ${c}`,
    );
  }
  const done1 = new Set(run1.map(id));
  for (const [partition, c] of committed)
    for (let o = 0n; o < c; o++)
      assert.ok(
        done1.has(id({ partition, offset: o })),
        `committed offset ${partition}@${o} was never processed`,
      );
  const duplicates = run2.filter((p) => done1.has(id(p))).length;
  process.stdout.write(
    `# first run ${run1.length}, second run ${run2.length}, duplicates ${duplicates} (uncommitted tail)\n`,
  );
});
