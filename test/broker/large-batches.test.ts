// Large batches through the pooled paths: produce frames are reused once the log has written
// them, and fetch reads go into pooled buffers returned after the response is written. Reuse
// must never show: every record read back is the one produced, also with requests pipelined and
// with a long poll that re-reads.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { produceApi } from '../../src/protocol/messages/generated/produce.js';
import { encodeRecordBatchSync } from '../../src/protocol/record-batch/index.js';
import { startTestBroker, type TestBroker } from '../../src/testkit/index.js';
import { RawClient } from './support/raw-client.js';
import { createTopic, fetchAll, fetchOnce, produce } from './support/wire.js';

const RECORDS = 100;
const VALUE = 2000; // ~200 KB per batch: above the tail cache's copy limit and the pooling floor

let broker: TestBroker;
let p: RawClient;
let c: RawClient;

before(async () => {
  broker = await startTestBroker();
  p = await RawClient.connect(broker.port);
  c = await RawClient.connect(broker.port);
  assert.equal(await createTopic(p, 'big', 1), 0);
});
after(async () => {
  p.close();
  c.close();
  await broker.close();
});

/** Batch `n`: record j's value is filled with a byte derived from (n, j). */
function batch(n: number): Buffer {
  return encodeRecordBatchSync(
    Array.from({ length: RECORDS }, (_, j) => ({
      key: Buffer.from(`${n}:${j}`),
      value: Buffer.alloc(VALUE, (n * 31 + j) % 251),
    })),
  );
}

async function checkAll(batches: number): Promise<void> {
  const got = await fetchAll(c, 'big', 0);
  assert.equal(got.length, batches * RECORDS);
  for (const [i, r] of got.entries()) {
    const n = Math.floor(i / RECORDS);
    const j = i % RECORDS;
    assert.equal(r.offset, BigInt(i));
    assert.equal(r.key?.toString(), `${n}:${j}`);
    assert.ok(r.value?.equals(Buffer.alloc(VALUE, (n * 31 + j) % 251)), `value of offset ${i}`);
  }
}

test('produce and fetch of large batches, one at a time, read back exactly', async () => {
  for (let n = 0; n < 6; n++) {
    assert.equal((await produce(p, 'big', 0, batch(n))).errorCode, 0);
    await checkAll(n + 1);
  }
  assert.ok((broker.services.buffers?.idleBytes ?? 0) > 0, 'buffers went back to the pool');
});

test('pipelined produce requests reusing frames keep their own bytes', async () => {
  const ids: number[] = [];
  for (let n = 6; n < 16; n++) {
    ids.push(
      p.sendRequest(produceApi, 9, {
        transactionalId: null,
        acks: 1,
        timeoutMs: 5000,
        topicData: [{ name: 'big', partitionData: [{ index: 0, records: batch(n) }] }],
      }),
    );
  }
  for (const _ of ids) assert.ok(await p.nextFrame(), 'produce answered');
  await checkAll(16);
});

test('a long poll woken by a large append answers with that append', async () => {
  const polled = fetchOnce(c, 'big', 0, 16n * BigInt(RECORDS), { maxWaitMs: 5000, minBytes: 1 });
  await new Promise((r) => setTimeout(r, 100));
  // Encoded once: timestamps make two encodings differ.
  const sent = batch(16);
  const expected = Buffer.from(sent);
  assert.equal((await produce(p, 'big', 0, sent)).errorCode, 0);
  const res = await polled;
  const records = res.records!;
  // The same batch, except the base offset (bytes 0-7) and partition leader epoch (12-15) the
  // log assigned.
  assert.equal(records.length, expected.length);
  assert.ok(records.subarray(16).equals(expected.subarray(16)));
  assert.ok(records.subarray(8, 12).equals(expected.subarray(8, 12)));
  await checkAll(17);
});
