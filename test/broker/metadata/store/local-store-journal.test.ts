// The local store's journal: each write appends what changed; a restart replays it onto the
// snapshot; a torn last line (a crash mid-append) is dropped, damage before it is CORRUPT; the
// journal is folded into a new snapshot once it outgrows it, and a crash between the two replays
// nothing twice. Sequential topic creation writes a line per change, not the whole state.
import assert from 'node:assert/strict';
import { appendFile, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  JOURNAL_FILE,
  LocalMetadataStore,
  METADATA_FILE,
} from '../../../../src/broker/metadata/store/local-store.js';
import { MetadataStoreError } from '../../../../src/broker/metadata/store/metadata-store.js';
import type { ControllerLease } from '../../../../src/broker/metadata/store/records.js';

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'samsa-local-journal-'));
  try {
    await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const topicId = (i: number) => `${String(i).padStart(21, 'A')}A`;

async function createWithLeader(s: LocalMetadataStore, lease: ControllerLease, name: string, i: number) {
  await s.createTopic(
    { name, topicId: topicId(i), partitions: [[1], [1]] },
    i % 2 === 0 ? { 'retention.ms': `${i}` } : {},
  );
  await s.writePartitionStates(
    lease,
    [0, 1].map((partition) => ({
      topic: name,
      partition,
      state: {
        leader: 1,
        leaderEpoch: i,
        isr: [1],
        controllerEpoch: lease.epoch,
        leaderRecoveryState: 0 as const,
      },
      expectedVersion: -1,
    })),
  );
}

/** Every durable part of a store, for comparing two of them. */
async function contents(s: LocalMetadataStore): Promise<unknown> {
  const names = await s.topicNames();
  return {
    clusterId: await s.clusterId(),
    topics: await s.assignments(names),
    states: await Promise.all(names.map(async (n) => [...(await s.partitionStates(n))])),
    configs: await Promise.all(names.map((n) => s.configs({ type: 'topics', name: n }))),
    brokerConfigs: await s.configs({ type: 'brokers', name: '<default>' }),
    deletions: await s.pendingTopicDeletions(),
  };
}

test('sequential changes append lines; a restart replays them, removals and config resets included', async () => {
  await withDir(async (dir) => {
    const s = new LocalMetadataStore(dir);
    await s.start();
    const lease = (await s.tryElectController(1))!;
    for (let i = 0; i < 50; i++) await createWithLeader(s, lease, `t${i}`, i);
    const snapshotSize = (await stat(join(dir, METADATA_FILE))).size;
    await s.setConfigs({ type: 'brokers', name: '<default>' }, { 'log.retention.ms': '7' });
    await s.setConfigs({ type: 'topics', name: 't0' }, {});
    await s.requestTopicDeletion('t3');
    await s.requestTopicDeletion('t4');
    await s.completeTopicDeletion(lease, 't4');
    const expected = await contents(s);
    await s.close();
    assert.equal((await stat(join(dir, METADATA_FILE))).size, snapshotSize, 'the snapshot was not rewritten');
    const lines = (await readFile(join(dir, JOURNAL_FILE), 'utf8')).trim().split('\n');
    assert.ok(lines.length >= 100, `${lines.length} journal lines`);
    // Each line holds what changed, not the whole state.
    assert.ok(Math.max(...lines.map((l) => l.length)) < 2000, 'lines stay small as the state grows');

    const again = new LocalMetadataStore(dir);
    await again.start();
    assert.deepEqual(await contents(again), expected);
    assert.equal((await again.topicNames()).includes('t4'), false);
    assert.deepEqual(await again.configs({ type: 'topics', name: 't0' }), {});
    assert.deepEqual(await again.configs({ type: 'topics', name: 't2' }), { 'retention.ms': '2' });
    await again.close();
  });
});

test('a torn last line is dropped and cut off; damage before the last line is CORRUPT', async () => {
  await withDir(async (dir) => {
    const s = new LocalMetadataStore(dir);
    await s.start();
    const lease = (await s.tryElectController(1))!;
    await createWithLeader(s, lease, 'kept', 1);
    const expected = await contents(s);
    await s.close();
    const path = join(dir, JOURNAL_FILE);
    const intact = await readFile(path, 'utf8');
    for (const torn of ['{"seq":99,"topics":[{"na', '{"seq":', '\u0000\u0000\u0000\n']) {
      await writeFile(path, intact + torn);
      const r = new LocalMetadataStore(dir);
      await r.start();
      assert.deepEqual(await contents(r), expected, JSON.stringify(torn));
      // New changes go after the intact part, not after the garbage.
      await r.setConfigs({ type: 'topics', name: 'kept' }, { 'retention.ms': '9' });
      await r.close();
      const r2 = new LocalMetadataStore(dir);
      await r2.start();
      assert.deepEqual(await r2.configs({ type: 'topics', name: 'kept' }), { 'retention.ms': '9' });
      await r2.setConfigs({ type: 'topics', name: 'kept' }, { 'retention.ms': '1' });
      await r2.close();
      await writeFile(path, intact);
    }
    const lines = intact.trim().split('\n');
    for (const damaged of [
      ['garbage', ...lines.slice(1)],
      // A gap in the sequence: a lost line.
      [lines[0]!, ...lines.slice(2)],
      [lines[0]!.replace('"topics":[', '"topics":7,"x":['), ...lines.slice(1)],
    ]) {
      if (damaged.length < 2) continue;
      await writeFile(path, `${damaged.join('\n')}\n`);
      await assert.rejects(
        new LocalMetadataStore(dir).start(),
        (e: unknown) =>
          e instanceof MetadataStoreError && e.code === 'CORRUPT' && e.message.includes(JOURNAL_FILE),
      );
    }
    await rm(join(dir, METADATA_FILE));
    await assert.rejects(
      new LocalMetadataStore(dir).start(),
      (e: unknown) =>
        e instanceof MetadataStoreError && e.code === 'CORRUPT' && /without its snapshot/.test(e.message),
    );
  });
});

test('the journal is folded into a new snapshot when it outgrows it; a crash in between replays nothing twice', async () => {
  await withDir(async (dir) => {
    const s = new LocalMetadataStore(dir);
    await s.start();
    const lease = (await s.tryElectController(1))!;
    // Writes of a topic with many partitions make large lines: > 1 MiB of journal needs a few hundred.
    const wide = Array.from({ length: 200 }, () => [1]);
    await s.createTopic({ name: 'wide', topicId: topicId(1), partitions: wide }, {});
    await s.writePartitionStates(
      lease,
      wide.map((_, partition) => ({
        topic: 'wide',
        partition,
        state: {
          leader: 1,
          leaderEpoch: 0,
          isr: [1],
          controllerEpoch: lease.epoch,
          leaderRecoveryState: 0 as const,
        },
        expectedVersion: -1,
      })),
    );
    const journal = join(dir, JOURNAL_FILE);
    let biggest = 0;
    let folded = false;
    for (let epoch = 1; epoch < 200 && !folded; epoch++) {
      await s.writePartitionStates(lease, [
        {
          topic: 'wide',
          partition: 0,
          state: {
            leader: 1,
            leaderEpoch: epoch,
            isr: [1],
            controllerEpoch: lease.epoch,
            leaderRecoveryState: 0,
          },
          expectedVersion: epoch - 1,
        },
      ]);
      const size = (await stat(journal)).size;
      if (size < biggest) folded = true;
      biggest = Math.max(biggest, size);
    }
    assert.ok(folded, `the journal was folded (reached ${biggest} bytes)`);
    const expected = await contents(s);
    await s.close();
    const snapshot = JSON.parse(await readFile(join(dir, METADATA_FILE), 'utf8'));
    assert.equal(snapshot.version, 3);
    assert.ok(snapshot.journalSeq > 0);

    const r = new LocalMetadataStore(dir);
    await r.start();
    assert.deepEqual(await contents(r), expected);
    await r.close();

    // A crash after the snapshot's rename, before the journal was emptied: the old lines are still
    // there (simulated by putting lines the snapshot holds back) and must be skipped.
    const stale = JSON.stringify({
      seq: snapshot.journalSeq,
      clusterId: snapshot.clusterId,
      lastZxid: '1',
      controllerEpoch: null,
      producerIds: null,
      topics: [],
      removedTopics: ['wide'],
      configs: {},
      pendingDeletions: [],
    });
    const current = await readFile(journal, 'utf8');
    await writeFile(journal, `${stale}\n`);
    await appendFile(journal, current);
    const r2 = new LocalMetadataStore(dir);
    await r2.start();
    assert.deepEqual(await contents(r2), expected, 'the stale line was not replayed');
    await r2.close();
  });
});
