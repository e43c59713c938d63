import assert from 'node:assert/strict';
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { readEpochCheckpoint, readOffsetCheckpoint } from '../../src/storage/checkpoint-file.js';
import { LeaderEpochCache } from '../../src/storage/leader-epoch-cache.js';
import { batch, openManager, TOPIC_ID, tempDir } from './helpers.js';

test('leader-epoch cache: assign, end offsets, truncation from both ends, checkpoint format', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const path = join(dir, 'leader-epoch-checkpoint');
    const c = LeaderEpochCache.empty(path);
    assert.deepEqual(c.endOffsetFor(0, 10n), { leaderEpoch: -1, endOffset: -1n });
    c.assign(1, 0n);
    c.assign(1, 5n); // same epoch: no change
    c.assign(3, 10n);
    c.assign(6, 40n);
    c.assign(2, 50n); // older epoch at a later offset: ignored
    assert.deepEqual(c.entries, [
      { epoch: 1, startOffset: 0n },
      { epoch: 3, startOffset: 10n },
      { epoch: 6, startOffset: 40n },
    ]);
    assert.deepEqual(c.endOffsetFor(0, 99n), { leaderEpoch: 0, endOffset: 0n });
    assert.deepEqual(c.endOffsetFor(1, 99n), { leaderEpoch: 1, endOffset: 10n });
    assert.deepEqual(c.endOffsetFor(2, 99n), { leaderEpoch: 1, endOffset: 10n });
    assert.deepEqual(c.endOffsetFor(5, 99n), { leaderEpoch: 3, endOffset: 40n });
    assert.deepEqual(c.endOffsetFor(6, 99n), { leaderEpoch: 6, endOffset: 99n });
    assert.deepEqual(c.endOffsetFor(7, 99n), { leaderEpoch: -1, endOffset: -1n });
    assert.equal(c.epochForOffset(39n), 3);
    await c.flush();
    assert.equal(readFileSync(path, 'utf8'), '0\n3\n1 0\n3 10\n6 40\n');
    c.truncateFromEnd(40n);
    c.truncateFromStart(12n);
    assert.deepEqual(c.entries, [{ epoch: 3, startOffset: 12n }]);
    await c.flush();
    assert.deepEqual(await readEpochCheckpoint(path), [{ epoch: 3, startOffset: 12n }]);
    for (const bad of ['1\n1\n3 12\n', '0\n2\n3 12\n', '0\n1\n3 x\n', '0\n2\n5 10\n4 20\n', '']) {
      writeFileSync(path, bad);
      assert.equal(await readEpochCheckpoint(path), null, JSON.stringify(bad));
    }
    const cp = join(dir, 'recovery-point-offset-checkpoint');
    writeFileSync(cp, '0\n2\nmy-topic 0 42\nother 3 7\n');
    assert.deepEqual([...(await readOffsetCheckpoint(cp))!.values()], [42n, 7n]);
    writeFileSync(cp, '0\n2\nmy-topic 0 42\n');
    assert.equal(await readOffsetCheckpoint(cp), null);
    assert.deepEqual(await readOffsetCheckpoint(join(dir, 'missing')), new Map());
  } finally {
    cleanup();
  }
});

test('flush.messages=1: a new epoch is checkpointed lazily, before the recovery point leaves its segment', async () => {
  const { dir, cleanup } = tempDir();
  const copy = `${dir}-crash`;
  try {
    const defaults = { flushMessages: 1, segmentBytes: 3000 };
    const mgr = await openManager(dir, { defaults });
    const log = await mgr.createLog('t', 0, { topicId: TOPIC_ID });
    const big = (i: number) => batch(1, `${i}-${'x'.repeat(1000)}`);
    const checkpoint = join(log.dir, 'leader-epoch-checkpoint');
    await log.appendAsLeader(big(0), 1);
    assert.deepEqual(await readEpochCheckpoint(checkpoint), [], 'no checkpoint write on the first append');
    for (let i = 1; i < 3; i++) await log.appendAsLeader(big(i), 1);
    for (let i = 3; i < 6; i++) await log.appendAsLeader(big(i), 2);
    assert.ok(log.segmentCount > 1, 'rolled');
    const onDisk = (await readEpochCheckpoint(checkpoint)) ?? [];
    assert.deepEqual(
      onDisk[0],
      { epoch: 1, startOffset: 0n },
      'epoch 1 is durable once segments below the recovery point hold it',
    );
    // A crash image: every checkpoint as the running broker left it, no clean-shutdown marker.
    await mgr.checkpoint();
    cpSync(dir, copy, { recursive: true });
    await mgr.close();
    const again = await openManager(copy, { defaults });
    const log2 = again.getLog('t', 0)!;
    assert.equal(log2.logEndOffset, 6n);
    assert.deepEqual(log2.endOffsetForEpoch(1), { leaderEpoch: 1, endOffset: 3n });
    assert.deepEqual(log2.endOffsetForEpoch(2), { leaderEpoch: 2, endOffset: 6n });
    await again.close();
  } finally {
    cleanup();
    rmSync(copy, { recursive: true, force: true });
  }
});
