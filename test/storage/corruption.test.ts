// Corruption of every file the storage layer reads: recovery must never throw, never serve
// bytes that fail their CRC, keep a valid prefix of the log, and rebuild what it can.
import assert from 'node:assert/strict';
import {
  appendFileSync,
  cpSync,
  readdirSync,
  readFileSync,
  rmSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ErrorCode, KafkaError } from '../../src/protocol/errors.js';
import type { LogManager } from '../../src/storage/index.js';
import { batch, openManager, records, TOPIC_ID, tempDir } from './helpers.js';

const CONFIG = { segmentBytes: 1500, indexIntervalBytes: 200 };
const BATCHES = 40;
const PER_BATCH = 3;
// Recent timestamps, so segments roll on size (ancient ones would roll on segment.ms).
const T0 = Date.now() - 60_000;

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** Builds the reference log; `crash` copies the directory while the manager is still open. */
async function build(root: string, crash: boolean): Promise<string> {
  const dir = join(root, crash ? 'crashed' : 'clean');
  const mgr = await openManager(dir, { defaults: CONFIG });
  const log = await mgr.createLog('t', 0, { topicId: TOPIC_ID });
  for (let i = 0; i < BATCHES; i++) {
    await log.appendAsLeader(
      batch(PER_BATCH, `b${i}`, {
        producerId: 9n,
        producerEpoch: 0,
        baseSequence: i * PER_BATCH,
        timestamp: T0 + i,
      }),
      i < 20 ? 1 : 2,
    );
  }
  log.setHighWatermark(log.logEndOffset);
  await mgr.checkpoint();
  if (crash) {
    await log.flush();
    const copy = `${dir}-copy`;
    cpSync(dir, copy, { recursive: true });
    await mgr.close();
    return copy;
  }
  await mgr.close();
  return dir;
}

const expected = (offset: bigint) => `b${offset / BigInt(PER_BATCH)}-${offset % BigInt(PER_BATCH)}`;

/** Opens a mutated copy and checks every invariant; returns how many offsets were lost. */
async function verify(dir: string, allowCorruptReads: boolean): Promise<number> {
  let mgr: LogManager;
  try {
    mgr = await openManager(dir, { defaults: CONFIG });
  } catch (err) {
    assert.fail(`recovery threw: ${(err as Error).stack}`);
  }
  const log = mgr.getLog('t', 0)!;
  assert.ok(log.logEndOffset <= BigInt(BATCHES * PER_BATCH));
  let offset = log.logStartOffset;
  while (offset < log.logEndOffset) {
    let recs: ReturnType<typeof records>;
    try {
      recs = records(
        (await log.read(offset, { maxBytes: 150, upperBound: 'leo', minOneBatch: true })).records,
      );
    } catch (err) {
      assert.ok(
        err instanceof KafkaError && err.code === ErrorCode.CORRUPT_MESSAGE && allowCorruptReads,
        `read at ${offset}: ${(err as Error).message}`,
      );
      offset++;
      continue;
    }
    assert.ok(recs.length > 0, `nothing at ${offset} below LEO ${log.logEndOffset}`);
    for (const r of recs) assert.equal(r.value, expected(r.offset));
    offset = recs.at(-1)!.offset + 1n;
  }
  // Appends continue after whatever recovery kept.
  const leo = log.logEndOffset;
  const r = await log.appendAsLeader(batch(1, 'after'), 3);
  assert.equal(r.baseOffset, leo);
  const back = records(
    (await log.read(leo, { maxBytes: 1000, upperBound: 'leo', minOneBatch: true })).records,
  );
  assert.equal(back[0]!.value, 'after-0');
  await mgr.close();
  return BATCHES * PER_BATCH - Number(leo);
}

/** Runs `fn` on each path (a statement, so mutations may be written as expressions). */
function each(paths: string[], fn: (path: string) => unknown): void {
  for (const p of paths) fn(p);
}

function files(dir: string, suffix: string): string[] {
  return readdirSync(join(dir, 't-0'))
    .filter((f) => f.endsWith(suffix))
    .sort()
    .map((f) => join(dir, 't-0', f));
}

test('byte flips, truncation and garbage in .log files', async () => {
  const { dir: root, cleanup } = tempDir();
  try {
    const random = rng(7);
    for (const crash of [false, true]) {
      const base = await build(root, crash);
      for (let round = 0; round < 12; round++) {
        const copy = join(root, `case-${crash}-${round}`);
        cpSync(base, copy, { recursive: true });
        const logs = files(copy, '.log');
        const target = round % 2 === 0 ? logs.at(-1)! : logs[Math.floor(random() * logs.length)]!;
        const data = readFileSync(target);
        const kind = round % 4;
        if (kind === 0 || data.length === 0)
          appendFileSync(target, Buffer.from('garbage after the last batch'));
        else if (kind === 1) truncateSync(target, Math.floor(random() * data.length));
        else {
          const at = Math.floor(random() * data.length);
          data[at] = data[at]! ^ (1 + Math.floor(random() * 255));
          writeFileSync(target, data);
        }
        // Flips in segments the recovery does not rescan are caught by the read-side CRC check.
        await verify(copy, true);
        rmSync(copy, { recursive: true, force: true });
      }
    }
  } finally {
    cleanup();
  }
});

test('a torn tail after a crash is cut at the last whole batch', async () => {
  const { dir: root, cleanup } = tempDir();
  try {
    const base = await build(root, true);
    const last = files(base, '.log').at(-1)!;
    const size = readFileSync(last).length;
    truncateSync(last, size - 5);
    const lost = await verify(base, false);
    assert.equal(lost, PER_BATCH, 'exactly the torn batch is lost');
  } finally {
    cleanup();
  }
});

test('corrupt or missing .index, .timeindex, checkpoints, snapshots and epoch cache are rebuilt', async () => {
  const { dir: root, cleanup } = tempDir();
  try {
    const random = rng(11);
    const mutations: [string, (copy: string) => void][] = [
      [
        'index garbage',
        (c) => each(files(c, '.index'), (f) => writeFileSync(f, Buffer.from('not an index!!!!'))),
      ],
      [
        'index partial entry',
        (c) => each(files(c, '.index'), (f) => appendFileSync(f, Buffer.from([1, 2, 3]))),
      ],
      ['index deleted', (c) => each(files(c, '.index'), (f) => rmSync(f))],
      [
        'index random flips',
        (c) =>
          each(files(c, '.index'), (f) => {
            const d = readFileSync(f);
            if (d.length > 0) d[Math.floor(random() * d.length)] ^= 0x5a;
            writeFileSync(f, d);
          }),
      ],
      [
        'timeindex garbage',
        (c) => each(files(c, '.timeindex'), (f) => writeFileSync(f, Buffer.alloc(24, 0xff))),
      ],
      ['timeindex deleted', (c) => each(files(c, '.timeindex'), (f) => rmSync(f))],
      [
        'recovery checkpoint garbage',
        (c) => writeFileSync(join(c, 'recovery-point-offset-checkpoint'), 'zzz\n9\n'),
      ],
      [
        'log start checkpoint garbage',
        (c) => writeFileSync(join(c, 'log-start-offset-checkpoint'), '0\n1\nt 0 banana\n'),
      ],
      [
        'replication checkpoint truncated',
        (c) => writeFileSync(join(c, 'replication-offset-checkpoint'), '0\n2\nt 0 12\n'),
      ],
      [
        'epoch checkpoint garbage',
        (c) => writeFileSync(join(c, 't-0', 'leader-epoch-checkpoint'), '0\n2\n5 100\n2 3\n'),
      ],
      ['snapshot garbage', (c) => each(files(c, '.snapshot'), (f) => writeFileSync(f, Buffer.from('junk')))],
      [
        'snapshot flips',
        (c) =>
          each(files(c, '.snapshot'), (f) => {
            const d = readFileSync(f);
            d[Math.floor(random() * d.length)] ^= 0x01;
            writeFileSync(f, d);
          }),
      ],
      [
        'partition.metadata garbage',
        (c) => writeFileSync(join(c, 't-0', 'partition.metadata'), 'version: 9\n'),
      ],
      ['clean marker without checkpoints', (c) => rmSync(join(c, 'recovery-point-offset-checkpoint'))],
    ];
    for (const crash of [false, true]) {
      const base = await build(root, crash);
      for (const [name, mutate] of mutations) {
        const copy = join(root, `m-${crash}-${name.replaceAll(' ', '-')}`);
        cpSync(base, copy, { recursive: true });
        mutate(copy);
        const lost = await verify(copy, false);
        assert.equal(lost, 0, `${name}: no data lost`);
        // The rebuilt state answers like the original.
        const mgr = await openManager(copy, { defaults: CONFIG });
        const log = mgr.getLog('t', 0)!;
        assert.deepEqual(log.endOffsetForEpoch(1), { leaderEpoch: 1, endOffset: 60n }, name);
        assert.deepEqual(
          await log.offsetForTimestamp(BigInt(T0 + 30)),
          { offset: 90n, timestamp: BigInt(T0 + 30), leaderEpoch: 2 },
          name,
        );
        const dup = await log.appendAsLeader(
          batch(PER_BATCH, 'b39', { producerId: 9n, producerEpoch: 0, baseSequence: 39 * PER_BATCH }),
          2,
        );
        assert.equal(dup.duplicate, true, `${name}: producer state rebuilt`);
        await mgr.close();
        rmSync(copy, { recursive: true, force: true });
      }
    }
  } finally {
    cleanup();
  }
});
