// The log's memory contracts that let the broker reuse network and read buffers: the tail cache
// copies what it keeps (so an appended buffer may be overwritten once the append completes), it
// keeps only small batches, and reads put file bytes into the caller's buffers.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { batch, openManager, records, TOPIC_ID, tempDir } from './helpers.js';

test('an appended buffer may be overwritten once the append completed', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const mgr = await openManager(dir);
    const log = await mgr.createLog('t', 0, { topicId: TOPIC_ID });
    const sent = [batch(3, 'a'), batch(2, 'b')];
    for (const b of sent) await log.appendAsLeader(b, 0);
    for (const b of sent) b.fill(0xee); // what a reused network frame would do
    log.setHighWatermark(log.logEndOffset);
    const r = await log.read(0n, { maxBytes: 1 << 20, upperBound: 'hw', minOneBatch: true });
    assert.deepEqual(
      records(r.records).map((x) => x.value),
      ['a-0', 'a-1', 'a-2', 'b-0', 'b-1'],
    );
    await mgr.close();
  } finally {
    cleanup();
  }
});

test('file reads go into buffers from `allocate`; large batches are not kept in memory', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const mgr = await openManager(dir);
    const log = await mgr.createLog('t', 0, { topicId: TOPIC_ID });
    const big = batch(200, 'x'.repeat(1000)); // above the tail cache's copy limit: read from the file
    await log.appendAsLeader(big, 0);
    big.fill(0);
    log.setHighWatermark(log.logEndOffset);
    const given: Buffer[] = [];
    const allocate = (n: number): Buffer => {
      const b = Buffer.alloc(n);
      given.push(b);
      return b;
    };
    const r = await log.read(0n, { maxBytes: 1 << 20, upperBound: 'hw', minOneBatch: true, allocate });
    assert.ok(given.length >= 1, 'the read used the caller’s buffer');
    assert.equal(r.records.buffer, given.at(-1)!.buffer);
    const recs = records(r.records);
    assert.equal(recs.length, 200);
    assert.equal(recs[199]!.value, `${'x'.repeat(1000)}-199`);
    await mgr.close();
  } finally {
    cleanup();
  }
});
