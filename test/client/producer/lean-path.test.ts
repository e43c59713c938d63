// The producer's hot-path data structures: run-length encoded completion state, the slab-backed
// buffer pool with its single deadline timer, the partitioner's fast paths, and request frames
// encoded from the API descriptor alone (byte-identical to the protocol module's frames).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RecordTooLargeError } from '../../../src/client/errors.js';
import { MemoryPool } from '../../../src/client/producer/accumulator.js';
import { encodeHeaders } from '../../../src/client/producer/batch-builder.js';
import { Partitioner } from '../../../src/client/producer/partitioner.js';
import { Producer } from '../../../src/client/producer/producer.js';
import {
  type DeliveryCallback,
  ProducerBatch,
  PromiseCompletion,
  type RecordMetadata,
} from '../../../src/client/producer/producer-batch.js';
import { encodeClientRequest } from '../../../src/net/broker-link.js';
import { apiVersionsApi } from '../../../src/protocol/messages/generated/api-versions.js';
import { controlledShutdownApi } from '../../../src/protocol/messages/generated/controlled-shutdown.js';
import { metadataApi } from '../../../src/protocol/messages/generated/metadata.js';
import { produceApi } from '../../../src/protocol/messages/generated/produce.js';
import { encodeRequest } from '../../../src/protocol/messages/index.js';
import type { ApiDescriptor } from '../../../src/protocol/messages/runtime.js';
import { murmur2Partition } from '../../../src/protocol/partitioners.js';

const NONE = encodeHeaders(undefined);

test('completion runs: shared callbacks, per-record callbacks, gaps and timestamp changes', () => {
  const b = new ProducerBatch('t', 3, 4096, 0);
  const seen: [string, bigint, number][] = [];
  const shared: DeliveryCallback = (_err, md) => seen.push(['s', md!.offset, md!.timestamp]);
  const own =
    (tag: string): DeliveryCallback =>
    (_e, md) =>
      seen.push([tag, md!.offset, md!.timestamp]);
  // records: 0 s@10, 1 s@10, 2 s@11, 3 none@12, 4 none@12, 5 a@12, 6 b@12, 7 s@13, 8 none@14
  const plan: [DeliveryCallback | undefined, number][] = [
    [shared, 10],
    [shared, 10],
    [shared, 11],
    [undefined, 12],
    [undefined, 12],
    [own('a'), 12],
    [own('b'), 12],
    [shared, 13],
    [undefined, 14],
  ];
  for (const [cb, ts] of plan) assert.ok(b.tryAppend(ts, null, Buffer.from('x'), NONE, cb));
  assert.equal(b.count, 9);
  assert.equal(b.callbackCount, 6);
  b.complete(100n, -1n);
  assert.deepEqual(seen, [
    ['s', 100n, 10],
    ['s', 101n, 10],
    ['s', 102n, 11],
    ['a', 105n, 12],
    ['b', 106n, 12],
    ['s', 107n, 13],
  ]);
  // Leading fire-and-forget records: the first timestamp run starts at the first callback.
  const c = new ProducerBatch('t', 0, 4096, 0);
  const late: [bigint, number][] = [];
  const cb: DeliveryCallback = (_e, md) => late.push([md!.offset, md!.timestamp]);
  c.tryAppend(5, null, null, NONE, undefined);
  c.tryAppend(6, null, null, NONE, cb);
  c.tryAppend(7, null, null, NONE, cb);
  c.tryAppend(7, null, null, NONE, undefined);
  c.tryAppend(9, null, null, NONE, cb);
  c.complete(0n, -1n);
  assert.deepEqual(late, [
    [1n, 6],
    [2n, 7],
    [4n, 9],
  ]);
});

test('completion: LogAppendTime, offsets beyond 2^53, acks=0 and failures reach every callback', () => {
  const md: RecordMetadata[] = [];
  const b = new ProducerBatch('t', 0, 4096, 0);
  for (let i = 0; i < 3; i++) b.tryAppend(5 + i, null, null, NONE, (_e, m) => md.push(m!));
  const big = 2n ** 60n;
  b.complete(big, 777n);
  assert.deepEqual(
    md.map((m) => [m.offset, m.timestamp]),
    [
      [big, 777],
      [big + 1n, 777],
      [big + 2n, 777],
    ],
  );
  const unknown: bigint[] = [];
  const c = new ProducerBatch('t', 0, 4096, 0);
  c.tryAppend(1, null, null, NONE, (_e, m) => unknown.push(m!.offset));
  c.tryAppend(1, null, null, NONE, (_e, m) => unknown.push(m!.offset));
  c.complete(-1n, -1n);
  assert.deepEqual(unknown, [-1n, -1n]);

  const errs: number[] = [];
  const f = new ProducerBatch('t', 0, 4096, 0);
  const onErr: DeliveryCallback = (e) => errs.push(e === null ? 0 : 1);
  f.tryAppend(1, null, null, NONE, onErr);
  f.tryAppend(1, null, null, NONE, undefined);
  f.tryAppend(1, null, null, NONE, onErr);
  f.tryAppend(1, null, null, NONE, onErr);
  f.fail(new Error('x'));
  assert.deepEqual(errs, [1, 1, 1]);
  assert.equal(f.callbackCount, 3);
});

test('promise completions: resolved with metadata, rejected on failure, mixed with callbacks', async () => {
  const settle = () => {
    let resolve!: (md: RecordMetadata) => void;
    let reject!: (err: Error) => void;
    const p = new Promise<RecordMetadata>((a, b) => {
      resolve = a;
      reject = b;
    });
    return { p, c: new PromiseCompletion(resolve, reject) };
  };
  const b = new ProducerBatch('t', 1, 4096, 0);
  const one = settle();
  const two = settle();
  const viaCallback: bigint[] = [];
  b.tryAppend(7, null, null, NONE, one.c);
  b.tryAppend(8, null, null, NONE, (_e, md) => viaCallback.push(md!.offset));
  b.tryAppend(9, null, null, NONE, two.c);
  b.complete(10n, -1n);
  assert.deepEqual(await one.p, { topic: 't', partition: 1, offset: 10n, timestamp: 7 });
  assert.deepEqual(await two.p, { topic: 't', partition: 1, offset: 12n, timestamp: 9 });
  assert.deepEqual(viaCallback, [11n]);
  const f = new ProducerBatch('t', 0, 4096, 0);
  const three = settle();
  f.tryAppend(1, null, null, NONE, three.c);
  f.fail(new Error('gone'));
  await assert.rejects(three.p, /gone/);
});

test('send() promise rejects with a typed error before anything is buffered', async () => {
  const producer = new Producer({ bootstrapServers: '127.0.0.1:1', maxRequestSize: 1000 });
  try {
    await assert.rejects(producer.send({ topic: 't', value: Buffer.alloc(5000) }), RecordTooLargeError);
  } finally {
    await producer.close({ timeoutMs: 100 });
  }
});

test('close() fails records waiting for metadata once, and they are not reported again later', async () => {
  const producer = new Producer({ bootstrapServers: '127.0.0.1:1', maxBlockMs: 300 });
  const seen: string[] = [];
  producer.send({ topic: 't', value: Buffer.from('x') }, (err) => seen.push(err?.name ?? 'ok'));
  await producer.close({ timeoutMs: 50 });
  await new Promise((r) => setTimeout(r, 500)); // past max.block.ms
  assert.deepEqual(seen, ['ClientClosedError']);
});

test('memory pool: batch buffers come from slabs, are recycled, and never overlap', () => {
  const pool = new MemoryPool(1 << 20, 16384);
  const bufs: Buffer[] = [];
  for (let i = 0; i < 64; i++) bufs.push(pool.allocate(16384)!);
  assert.equal(pool.allocate(1000), undefined); // only the pooled size is served
  for (let i = 0; i < bufs.length; i++) bufs[i]!.fill(i);
  for (let i = 0; i < bufs.length; i++) assert.ok(bufs[i]!.every((v) => v === i));
  assert.equal(bufs[0]!.buffer, bufs[63]!.buffer); // one slab for all 64
  pool.recycle(bufs[7]!);
  assert.equal(pool.allocate(16384), bufs[7]);
  // Past the slab a new one is cut (accounting, not the allocator, bounds buffer.memory).
  assert.notEqual(pool.allocate(16384)!.buffer, bufs[0]!.buffer);
});

test('memory pool: waiters wake on release, or at their deadline from one shared timer', async () => {
  const pool = new MemoryPool(100);
  assert.ok(pool.tryReserve(100));
  let woke = 0;
  const a = pool.waitForRelease(Date.now() + 60_000).then(() => woke++);
  pool.release(10);
  await a;
  assert.equal(woke, 1);
  const t0 = Date.now();
  await pool.waitForRelease(Date.now() + 30);
  assert.ok(Date.now() - t0 >= 25, 'woken by the deadline timer');
  const pending = pool.waitForRelease(Date.now() + 60_000);
  pool.clearDeadline(); // no timer left to keep the process alive
  pool.release(0);
  await pending;
});

test('partitioner: built-in hash without a context object, sticky null keys, user functions', () => {
  const p = new Partitioner('murmur2', 100, false);
  const key = Buffer.from('order-42');
  assert.equal(p.partition('t', key, 12, [], 10), murmur2Partition(key, 12));
  assert.equal(p.partition('t', null, 1, [0], 10), 0);
  const first = p.partition('t', null, 6, [0, 1, 2, 3, 4, 5], 60);
  assert.equal(p.partition('t', null, 6, [0, 1, 2, 3, 4, 5], 60), first); // 60 < 100 bytes: stays
  assert.notEqual(p.partition('t', null, 6, [0, 1, 2, 3, 4, 5], 10), first); // 120 ≥ 100: switches
  const crc = new Partitioner('crc32', 100, false);
  const picked = crc.partition('t', Buffer.alloc(0), 4, [2], 10); // empty key: librdkafka → sticky
  assert.equal(picked, 2);
  const calls: (Buffer | null)[] = [];
  const user = new Partitioner(
    (ctx) => {
      calls.push(ctx.key);
      return ctx.key === null ? null : 1;
    },
    100,
    false,
  );
  assert.equal(user.partition('t', key, 1, [0], 10), 1); // called even for one partition
  assert.equal(user.partition('t', null, 1, [0], 10), 0);
  assert.deepEqual(calls, [key, null]);
  const ignoring = new Partitioner('murmur2', 100, true);
  assert.equal(ignoring.partition('t', key, 1, [0], 10), 0);
});

test('request frames encoded from the descriptor equal the protocol module frames', () => {
  const bodies = [
    [apiVersionsApi, { clientSoftwareName: 'samsa', clientSoftwareVersion: '0.1.0' }],
    [
      metadataApi,
      {
        topics: [{ name: 'topic-a', topicId: 'AAAAAAAAAAAAAAAAAAAAAA' }],
        allowAutoTopicCreation: false,
        includeClusterAuthorizedOperations: false,
        includeTopicAuthorizedOperations: false,
      },
    ],
    [
      produceApi,
      {
        transactionalId: null,
        acks: 1,
        timeoutMs: 30000,
        topicData: [{ name: 't', partitionData: [{ index: 0, records: Buffer.alloc(2000, 7) }] }],
      },
    ],
    [controlledShutdownApi, { brokerId: 1, brokerEpoch: 5n }],
  ] as unknown as [ApiDescriptor<never, unknown>, unknown][];
  let compared = 0;
  for (const [api, body] of bodies) {
    for (let v = api.minVersion; v <= api.maxVersion; v++) {
      for (const clientId of ['bench', null]) {
        let expected: Buffer;
        try {
          expected = Buffer.concat(encodeRequest(api, v, 77, clientId, body as never));
        } catch {
          continue; // body not valid for this version
        }
        const actual = Buffer.concat(encodeClientRequest(api, v, 77, clientId, body as never));
        assert.deepEqual(actual, expected, `${api.name} v${v} clientId ${clientId}`);
        compared++;
      }
    }
  }
  assert.ok(compared > 40, `compared ${compared} frames`);
});
