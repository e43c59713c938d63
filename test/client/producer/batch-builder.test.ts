// The batch builder's output is checked against an independent decoder (kafkajs 2.2.4) and
// against the byte layout of CLIENTS.md §2.1, including the CRC-32C over attributes..end.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import {
  BatchBuilder,
  encodeHeaders,
  varintSize,
  varlongSize,
} from '../../../src/client/producer/batch-builder.js';
import { ProducerBatch } from '../../../src/client/producer/producer-batch.js';
import { crc32c } from '../../../src/protocol/crc32c.js';

const require = createRequire(import.meta.url);
const KjsDecoder = require('kafkajs/src/protocol/decoder');
const decodeBatch = require('kafkajs/src/protocol/recordBatch/v0/decoder');

interface KjsRecord {
  key: Buffer | null;
  value: Buffer | null;
  timestamp: string;
  offset: string;
  headers: Record<string, Buffer | Buffer[]>;
}

async function decode(
  buf: Buffer,
): Promise<{ records: KjsRecord[]; producerId: string; firstSequence: number }> {
  return decodeBatch(new KjsDecoder(buf));
}

test('varint sizes match zig-zag encoding lengths', () => {
  assert.equal(varintSize(0), 1);
  assert.equal(varintSize(-1), 1);
  assert.equal(varintSize(63), 1);
  assert.equal(varintSize(64), 2);
  assert.equal(varintSize(-65), 2);
  assert.equal(varintSize(2 ** 31 - 1), 5);
  assert.equal(varlongSize(0), 1);
  assert.equal(varlongSize(2 ** 40), 6);
  assert.equal(varlongSize(-(2 ** 40)), 6);
});

test('records encode into a batch that kafkajs decodes, with a valid CRC-32C', async () => {
  const batch = new ProducerBatch('t', 0, 16384, Date.now());
  const t0 = 1_700_000_000_000;
  const none = encodeHeaders(undefined);
  assert.ok(batch.tryAppend(t0, Buffer.from('k1'), Buffer.from('v1'), none, undefined));
  assert.ok(batch.tryAppend(t0 + 5, null, Buffer.from('v2'), encodeHeaders({ h: 'x', n: null }), undefined));
  assert.ok(
    batch.tryAppend(t0 - 3, Buffer.alloc(0), null, encodeHeaders([['a', Buffer.from([1, 2])]]), undefined),
  );
  batch.closeUncompressed();
  const payload = batch.seal({ producerId: 42n, producerEpoch: 3, baseSequence: 7, transactional: false });
  assert.equal(payload.readInt32BE(8), payload.length - 12);
  assert.equal(payload.readInt8(16), 2);
  assert.equal(payload.readUInt32BE(17), crc32c(payload.subarray(21)));
  assert.equal(payload.readInt32BE(23), 2); // last offset delta
  assert.equal(payload.readBigInt64BE(27), BigInt(t0));
  assert.equal(payload.readBigInt64BE(35), BigInt(t0 + 5));
  assert.equal(payload.readInt32BE(57), 3);
  const d = await decode(payload);
  assert.equal(d.producerId, '42');
  assert.equal(d.firstSequence, 7);
  assert.equal(d.records.length, 3);
  assert.equal(d.records[0]!.key!.toString(), 'k1');
  assert.equal(d.records[0]!.value!.toString(), 'v1');
  assert.equal(d.records[1]!.key, null);
  assert.equal(d.records[1]!.timestamp, String(t0 + 5));
  assert.equal(d.records[1]!.headers['h']!.toString(), 'x');
  assert.equal(d.records[2]!.key!.length, 0);
  assert.equal(d.records[2]!.value, null);
  assert.equal(d.records[2]!.timestamp, String(t0 - 3));
  assert.deepEqual([...(d.records[2]!.headers['a'] as Buffer)], [1, 2]);
  assert.equal(d.records[2]!.offset, '2');
});

test('gzip batches compress only the records area and stay decodable', async () => {
  const batch = new ProducerBatch('t', 0, 16384, Date.now());
  const none = encodeHeaders(undefined);
  for (let i = 0; i < 50; i++)
    batch.tryAppend(1000 + i, null, Buffer.from(`value-${i}-${'x'.repeat(50)}`), none, undefined);
  await batch.close(1);
  const payload = batch.seal({ producerId: -1n, producerEpoch: -1, baseSequence: -1, transactional: true });
  assert.ok(payload.length < 50 * 50);
  assert.equal(payload.readInt16BE(21), 1 | 0x10);
  assert.equal(payload.readUInt32BE(17), crc32c(payload.subarray(21)));
  const d = await decode(payload);
  assert.equal(d.records.length, 50);
  assert.equal(d.records[49]!.value!.toString(), `value-49-${'x'.repeat(50)}`);
});

test('a full batch refuses the next record; an oversized first record gets its own buffer', () => {
  const b = new BatchBuilder(200);
  const none = encodeHeaders(undefined);
  let n = 0;
  while (b.tryAppend(0, null, Buffer.alloc(30), none)) n++;
  assert.ok(n >= 3 && n <= 5, `appended ${n}`);
  assert.ok(b.size <= 200);
  const big = new BatchBuilder(200);
  assert.ok(big.tryAppend(0, null, Buffer.alloc(5000), none));
  assert.ok(big.size > 5000);
  assert.equal(big.tryAppend(0, null, Buffer.alloc(1), none), false);
});

test('re-sealing after an epoch bump rewrites sequence, epoch and CRC', async () => {
  const batch = new ProducerBatch('t', 0, 1024, Date.now());
  batch.tryAppend(1, null, Buffer.from('a'), encodeHeaders(undefined), undefined);
  batch.closeUncompressed();
  batch.seal({ producerId: 5n, producerEpoch: 0, baseSequence: 10, transactional: false });
  const p = batch.seal({ producerId: 5n, producerEpoch: 1, baseSequence: 0, transactional: false });
  assert.equal(p.readInt16BE(51), 1);
  assert.equal(p.readInt32BE(53), 0);
  assert.equal(p.readUInt32BE(17), crc32c(p.subarray(21)));
});

test('completion reports offsets per record and only to records with callbacks', () => {
  const batch = new ProducerBatch('t', 2, 1024, Date.now());
  const none = encodeHeaders(undefined);
  const seen: [number, bigint, number][] = [];
  batch.tryAppend(100, null, Buffer.from('a'), none, undefined);
  batch.tryAppend(200, null, Buffer.from('b'), none, (err, md) => {
    assert.equal(err, null);
    seen.push([md!.partition, md!.offset, md!.timestamp]);
  });
  batch.tryAppend(300, null, Buffer.from('c'), none, (_e, md) =>
    seen.push([md!.partition, md!.offset, md!.timestamp]),
  );
  batch.complete(40n, -1n);
  assert.deepEqual(seen, [
    [2, 41n, 200],
    [2, 42n, 300],
  ]);
  const errs: string[] = [];
  const b2 = new ProducerBatch('t', 0, 1024, Date.now());
  b2.tryAppend(1, null, null, none, (e) => errs.push(e!.message));
  b2.fail(new Error('boom'));
  b2.fail(new Error('twice'));
  assert.deepEqual(errs, ['boom']);
});
