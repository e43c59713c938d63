// The pieces of the network-thread hand-off on their own: the dispatcher's pipelining table as
// a network thread reads it, response chunks packed for a message (shared bytes stay shared),
// transferable frames and their reuse, one message per turn.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ALL_HANDLERS } from '../../../src/broker/apis/index.js';
import { ApiRegistry } from '../../../src/broker/apis/registry.js';
import { sizeClass } from '../../../src/broker/network/buffer-pool.js';
import { FramePool } from '../../../src/broker/network/threads/frame-pool.js';
import { MessageBatcher, tablePipelinable } from '../../../src/broker/network/threads/messages.js';
import { pipelineTable } from '../../../src/broker/network/threads/network-threads.js';
import { packChunks } from '../../../src/broker/network/threads/remote-connections.js';

function header(key: number, version: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeInt16BE(key, 0);
  b.writeInt16BE(version, 2);
  return b;
}

test('the pipelining table answers as the handlers declare, per key and version', () => {
  const registry = new ApiRegistry(ALL_HANDLERS);
  const table = pipelineTable((k) => registry.get(k));
  for (const h of ALL_HANDLERS) {
    for (let v = h.minVersion; v <= h.maxVersion; v++) {
      const p = h.pipelinable;
      const expected = p === true || (typeof p === 'function' && p(v));
      assert.equal(tablePipelinable(table, header(h.api.key, v)), expected, `${h.api.name} v${v}`);
    }
  }
  assert.equal(tablePipelinable(table, header(0, 9)), true, 'Produce v9 overlaps');
  assert.equal(tablePipelinable(table, header(0, 2)), false, 'Produce v0-2 do not (up-conversion awaits)');
  assert.equal(tablePipelinable(table, header(18, 3)), false, 'ApiVersions does not');
  assert.equal(tablePipelinable(table, header(999, 0)), false, 'an unknown key does not');
  assert.equal(tablePipelinable(table, header(0, -1)), false);
  assert.equal(tablePipelinable(table, Buffer.alloc(3)), false, 'nor a frame too short for a header');
});

test('packChunks shares SharedArrayBuffer chunks and copies the others into one buffer', () => {
  const shared = Buffer.from(new SharedArrayBuffer(64)).fill(7).subarray(8, 40);
  const head = Buffer.from('header');
  const tail = Buffer.from('tail');
  const { chunks, packed } = packChunks([head, shared, tail]);
  assert.ok(packed instanceof ArrayBuffer);
  assert.equal(packed.byteLength, head.length + tail.length);
  assert.equal(chunks[1], shared, 'the shared chunk is passed as it is');
  assert.equal(chunks[0]!.buffer, packed);
  assert.equal(chunks[2]!.buffer, packed);
  assert.deepEqual(Buffer.concat(chunks), Buffer.concat([head, shared, tail]));
  const onlyShared = packChunks([shared]);
  assert.equal(onlyShared.packed, undefined, 'nothing to copy, no buffer');
});

test('frames have buffers of their own; a returned one is reused for its size class', () => {
  const pool = new FramePool({ trimIntervalMs: 0 });
  const small = pool.acquire(100);
  assert.equal(small.byteOffset, 0);
  assert.equal(small.buffer.byteLength, sizeClass(100), 'never a slice of a shared slab');
  const big = pool.acquire(70_000);
  const store = big.buffer as ArrayBuffer;
  pool.adopt(store);
  assert.equal(pool.idleBytes, store.byteLength);
  const again = pool.acquire(70_000 - 10);
  assert.equal(again.buffer, store, 'the returned buffer serves the next frame of its class');
  assert.equal(again.length, 70_000 - 10);
  pool.adopt(new ArrayBuffer(1000)); // not a class size: not ours
  assert.equal(pool.idleBytes, 0);
  pool.release(pool.acquire(5000)); // a frame never handed over goes back too
  assert.equal(pool.idleBytes, sizeClass(5000));
  pool.close();
  assert.equal(pool.idleBytes, 0);
});

test('a MessageBatcher posts what one run of JavaScript pushed as one message', async () => {
  const posted: { items: number[]; transfer: ArrayBuffer[] }[] = [];
  const b = new MessageBatcher<number>((items, transfer) => posted.push({ items, transfer }));
  const ab = new ArrayBuffer(8);
  b.push(1);
  b.push(2, ab, undefined);
  b.push(3);
  assert.equal(posted.length, 0, 'nothing before the run ends');
  await Promise.resolve();
  assert.deepEqual(posted, [{ items: [1, 2, 3], transfer: [ab] }]);
  b.push(4);
  b.flush();
  assert.deepEqual(posted[1], { items: [4], transfer: [] });
  await Promise.resolve();
  assert.equal(posted.length, 2, 'a flushed batch is not posted twice');
});
