import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ErrorCode, KafkaError } from '../../src/protocol/errors.js';
import { batch, openManager, records, TOPIC_ID, tempDir } from './helpers.js';

const HOUR = 3_600_000;

test('retention.ms deletes whole old segments below the HW and moves the log start', async () => {
  const { dir, cleanup } = tempDir();
  try {
    let now = 10 * HOUR;
    const mgr = await openManager(dir, {
      now: () => now,
      defaults: { segmentBytes: 1024, retentionMs: HOUR, fileDeleteDelayMs: 0 },
    });
    const log = await mgr.createLog('t', 0, { topicId: TOPIC_ID });
    for (let i = 0; i < 40; i++) await log.appendAsLeader(batch(2, `old${i}`, { timestamp: now }), 0);
    now += 2 * HOUR;
    for (let i = 0; i < 5; i++) await log.appendAsLeader(batch(2, `new${i}`, { timestamp: now }), 0);
    const before = log.segmentCount;
    await mgr.runMaintenance();
    assert.equal(log.segmentCount, before, 'nothing below the HW yet');
    log.setHighWatermark(log.logEndOffset);
    await mgr.runMaintenance();
    assert.ok(log.segmentCount < before);
    assert.ok(log.logStartOffset > 0n);
    const first = records(
      (await log.read(log.logStartOffset, { maxBytes: 1 << 20, upperBound: 'hw', minOneBatch: true }))
        .records,
    );
    assert.equal(first[0]!.offset, log.logStartOffset);
    await assert.rejects(
      log.read(0n, { maxBytes: 100, upperBound: 'hw', minOneBatch: true }),
      (e: unknown) => e instanceof KafkaError && e.code === ErrorCode.OFFSET_OUT_OF_RANGE,
    );
    // Everything old has gone once the active segment rolls too.
    now += 2 * HOUR;
    await mgr.runMaintenance();
    await mgr.runMaintenance();
    assert.equal(log.logStartOffset, log.logEndOffset);
    assert.deepEqual(
      readdirSync(join(dir, 't-0')).filter((f) => f.endsWith('.deleted')),
      [],
    );
    const start = log.logStartOffset;
    await mgr.close();
    const again = await openManager(dir, { now: () => now });
    assert.equal(again.getLog('t', 0)!.logStartOffset, start);
    await again.close();
  } finally {
    cleanup();
  }
});

test('retention.bytes keeps the newest segments', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const mgr = await openManager(dir, {
      defaults: { segmentBytes: 1000, retentionBytes: 3000, retentionMs: -1 },
    });
    const log = await mgr.createLog('t', 0, { topicId: TOPIC_ID });
    for (let i = 0; i < 100; i++) await log.appendAsLeader(batch(1, `v${i}`), 0);
    log.setHighWatermark(log.logEndOffset);
    assert.ok(log.size > 3000);
    await mgr.runMaintenance();
    assert.ok(log.size <= 3000 + 1000, `size ${log.size}`);
    assert.ok(log.size >= 2000);
    assert.ok(log.logStartOffset > 0n);
    await mgr.close();
  } finally {
    cleanup();
  }
});

test('deleteRecordsBefore moves the log start (bounded by the HW) and survives restart', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const mgr = await openManager(dir, { defaults: { segmentBytes: 500 } });
    const log = await mgr.createLog('t', 0, { topicId: TOPIC_ID });
    for (let i = 0; i < 30; i++) await log.appendAsLeader(batch(1, `v${i}`), 0);
    log.setHighWatermark(20n);
    await assert.rejects(
      log.deleteRecordsBefore(25n),
      (e: unknown) => e instanceof KafkaError && e.code === ErrorCode.OFFSET_OUT_OF_RANGE,
    );
    const segs = log.segmentCount;
    assert.equal(await log.deleteRecordsBefore(13n), 13n);
    assert.equal(log.logStartOffset, 13n);
    assert.ok(log.segmentCount < segs);
    const r = await log.read(13n, { maxBytes: 1 << 20, upperBound: 'hw', minOneBatch: true });
    assert.equal(records(r.records)[0]!.offset, 13n);
    assert.deepEqual(await log.offsetForTimestamp(-2n), { offset: 13n, timestamp: -1n, leaderEpoch: 0 });
    await mgr.close();
    const again = await openManager(dir);
    assert.equal(again.getLog('t', 0)!.logStartOffset, 13n);
    await again.close();
  } finally {
    cleanup();
  }
});
