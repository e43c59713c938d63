import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { batch, openManager, records, TOPIC_ID, tempDir } from './helpers.js';

test("Kafka's layout: segment files, indexes, checkpoints, metadata", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const mgr = await openManager(dir, {
      defaults: { segmentBytes: 2048, indexIntervalBytes: 256 },
      tailCacheBytes: 0,
      brokerId: 3,
    });
    const log = await mgr.createLog('orders', 2, { topicId: TOPIC_ID });
    for (let i = 0; i < 100; i++) await log.appendAsLeader(batch(4, `r${i}`), 7);
    log.setHighWatermark(log.logEndOffset);
    assert.ok(log.segmentCount > 3, `rolled: ${log.segmentCount} segments`);
    await mgr.close();
    const pdir = join(dir, 'orders-2');
    const files = readdirSync(pdir);
    assert.ok(files.includes('00000000000000000000.log'));
    assert.ok(files.includes('00000000000000000000.index'));
    assert.ok(files.includes('00000000000000000000.timeindex'));
    assert.ok(
      files.some((f) => /^\d{20}\.snapshot$/.test(f)),
      'producer snapshots',
    );
    for (const f of files.filter((x) => x.endsWith('.log'))) assert.ok(statSync(join(pdir, f)).size <= 2048);
    assert.equal(
      readFileSync(join(pdir, 'partition.metadata'), 'utf8'),
      `version: 0\ntopic_id: ${TOPIC_ID}\n`,
    );
    assert.equal(readFileSync(join(pdir, 'leader-epoch-checkpoint'), 'utf8'), '0\n1\n7 0\n');
    for (const name of [
      'recovery-point-offset-checkpoint',
      'log-start-offset-checkpoint',
      'replication-offset-checkpoint',
    ]) {
      const text = readFileSync(join(dir, name), 'utf8');
      assert.match(text, /^0\n1\norders 2 \d+\n$/);
    }
    assert.equal(readFileSync(join(dir, 'replication-offset-checkpoint'), 'utf8'), '0\n1\norders 2 400\n');
    assert.match(readFileSync(join(dir, 'meta.properties'), 'utf8'), /broker\.id=3/);
    assert.ok(existsSync(join(dir, '.kafka_cleanshutdown')));
    // Index files hold 8-byte / 12-byte entries.
    assert.equal(statSync(join(pdir, '00000000000000000000.index')).size % 8, 0);
    assert.ok(statSync(join(pdir, '00000000000000000000.index')).size > 0);
    assert.equal(statSync(join(pdir, '00000000000000000000.timeindex')).size % 12, 0);

    const again = await openManager(dir, {
      defaults: { segmentBytes: 2048, indexIntervalBytes: 256 },
      tailCacheBytes: 0,
    });
    assert.ok(!existsSync(join(dir, '.kafka_cleanshutdown')), 'marker removed while running');
    const log2 = again.getLog('orders', 2)!;
    // Every offset reads back from the right batch, across segments.
    for (let off = 0n; off < 400n; off += 13n) {
      const r = await log2.read(off, { maxBytes: 300, upperBound: 'hw', minOneBatch: true });
      const recs = records(r.records);
      assert.ok(recs[0]!.offset <= off && recs.at(-1)!.offset >= off, `offset ${off}`);
      assert.equal(recs.find((x) => x.offset === off)!.value, `r${off / 4n}-${off % 4n}`);
    }
    await log2.appendAsLeader(batch(1, 'after'), 8);
    assert.equal(log2.logEndOffset, 401n);
    await again.close();
  } finally {
    cleanup();
  }
});

test('segment.ms rolls on time; LRU keeps few descriptors open', async () => {
  const { dir, cleanup } = tempDir();
  try {
    let now = 1_000_000;
    const mgr = await openManager(dir, { now: () => now, defaults: { segmentMs: 1000 }, maxOpenFiles: 4 });
    const log = await mgr.createLog('t', 0, { topicId: TOPIC_ID });
    await log.appendAsLeader(batch(1, 'a', { timestamp: now }), 0);
    now += 500;
    await log.appendAsLeader(batch(1, 'b', { timestamp: now }), 0);
    assert.equal(log.segmentCount, 1);
    now += 1000;
    await log.appendAsLeader(batch(1, 'c', { timestamp: now }), 0);
    assert.equal(log.segmentCount, 2);
    const logs = [];
    for (let p = 1; p <= 20; p++) {
      const l = await mgr.createLog('t', p, { topicId: TOPIC_ID });
      await l.appendAsLeader(batch(1, `p${p}`, { timestamp: now }), 0);
      logs.push(l);
    }
    for (const [i, l] of logs.entries()) {
      l.setHighWatermark(l.logEndOffset);
      const r = await l.read(0n, { maxBytes: 1000, upperBound: 'hw', minOneBatch: true });
      assert.equal(records(r.records)[0]!.value, `p${i + 1}-0`);
    }
    await mgr.close();
  } finally {
    cleanup();
  }
});
