import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { describe, test } from 'node:test';
import type { CompressionName } from '../../../src/protocol/compression/index.js';
import {
  decodeRecordBatch,
  decodeRecords,
  encodeRecordBatch,
  encodeRecordBatchSync,
  RecordBatchError,
  type RecordInput,
  readBatchHeader,
  validateBatch,
} from '../../../src/protocol/record-batch/index.js';
import { goldenFrame, produceRecords } from './golden.js';
import { kafkajsEncode, type RefInput } from './kafkajs-reference.js';

const require = createRequire(import.meta.url);
const kafkajsCrc32C: (b: Buffer) => number = require('kafkajs/src/protocol/recordBatch/crc32C/index.js');

const T = 1_700_000_000_000;

function toOurs(r: RefInput): RecordInput {
  const headers = r.headers ? Object.entries(r.headers).map(([key, value]) => ({ key, value })) : undefined;
  return { key: r.key, value: r.value, timestamp: r.timestamp, headers };
}

const CASES: Record<string, RefInput[]> = {
  'one small record': [{ key: Buffer.from('k'), value: Buffer.from('v'), timestamp: T }],
  'null key, null value, empty buffers': [
    { key: null, value: Buffer.from('x'), timestamp: T },
    { key: Buffer.from('k'), value: null, timestamp: T + 1 },
    { key: Buffer.alloc(0), value: Buffer.alloc(0), timestamp: T + 2 },
  ],
  'headers, UTF-8 header keys': [
    {
      key: Buffer.from('k1'),
      value: Buffer.from('v1'),
      timestamp: T,
      headers: { a: Buffer.from('1'), 'clé-ü': Buffer.from([0, 1, 2]) },
    },
    {
      key: Buffer.from('k2'),
      value: Buffer.from('v2'),
      timestamp: T + 5,
      headers: { empty: Buffer.alloc(0) },
    },
  ],
  'multi-byte varints: 300-byte and 70 KB values, negative timestamp delta': [
    { key: Buffer.alloc(200, 1), value: Buffer.alloc(300, 2), timestamp: T },
    { key: null, value: Buffer.alloc(70_000, 3), timestamp: T - 100_000 },
    { key: Buffer.from('late'), value: Buffer.from('x'), timestamp: T + 3_000_000_000 },
  ],
  '200 records': Array.from({ length: 200 }, (_, i) => ({
    key: Buffer.from(`key-${i}`),
    value: Buffer.from(`value-${i}`.repeat(i % 7)),
    timestamp: T + i * 3,
  })),
};

describe('uncompressed encoder reproduces kafkajs 2.2.4 byte for byte', () => {
  for (const [name, records] of Object.entries(CASES)) {
    test(name, async () => {
      const opts = {
        baseOffset: 0,
        producerId: -1,
        producerEpoch: 0,
        baseSequence: 0,
        partitionLeaderEpoch: 0,
      };
      const expected = await kafkajsEncode(records, opts);
      assert.deepEqual(encodeRecordBatchSync(records.map(toOurs), opts), expected);
      assert.deepEqual(await encodeRecordBatch(records.map(toOurs), opts), expected);
    });
  }
  test('transactional idempotent batch with a base offset', async () => {
    const records = CASES['null key, null value, empty buffers']!;
    const opts = {
      baseOffset: 77,
      producerId: 9_000_000_001,
      producerEpoch: 4,
      baseSequence: 12,
      partitionLeaderEpoch: 3,
      transactional: true,
    };
    assert.deepEqual(encodeRecordBatchSync(records.map(toOurs), opts), await kafkajsEncode(records, opts));
  });
  test('CRC agrees with kafkajs’s own (JavaScript) CRC-32C', () => {
    const b = encodeRecordBatchSync(CASES['200 records']!.map(toOurs), { compression: 'gzip' });
    assert.equal(readBatchHeader(b).crc, kafkajsCrc32C(b.subarray(21)));
  });
});

test('re-encoding the batch kafkajs really produced gives the same bytes', async () => {
  const original = produceRecords(goldenFrame('kafkajs-produce-v7.bin'));
  const cursor = await decodeRecordBatch(original);
  const h = cursor.header;
  const records: RecordInput[] = [];
  while (cursor.next()) {
    records.push({
      key: cursor.key(),
      value: cursor.value(),
      headers: cursor.headers(),
      timestamp: cursor.timestamp,
      offsetDelta: cursor.offsetDelta,
    });
  }
  assert.equal(records.length, 3);
  const again = encodeRecordBatchSync(records, {
    baseOffset: h.baseOffset,
    partitionLeaderEpoch: h.partitionLeaderEpoch,
    producerId: h.producerId,
    producerEpoch: h.producerEpoch,
    baseSequence: h.baseSequence,
  });
  assert.deepEqual(again, original);
});

describe('every codec round-trips through the decoder', () => {
  const input: RecordInput[] = CASES['200 records']!.map(toOurs);
  input[3] = {
    ...input[3]!,
    headers: [
      { key: 'h', value: null },
      { key: 'i', value: Buffer.from('j') },
    ],
  };
  for (const codec of ['none', 'gzip', 'snappy', 'lz4', 'zstd'] as CompressionName[]) {
    test(codec, async () => {
      const b = await encodeRecordBatch(input, {
        compression: codec,
        baseOffset: 500n,
        producerId: 1n,
        producerEpoch: 0,
        baseSequence: 0,
      });
      const h = validateBatch(b, 0);
      assert.ok(!(h instanceof RecordBatchError), String(h));
      assert.equal(h.attributes & 7, ['none', 'gzip', 'snappy', 'lz4', 'zstd'].indexOf(codec));
      const out = await decodeRecords(b);
      assert.equal(out.length, input.length);
      out.forEach((r, i) => {
        assert.equal(r.offset, 500n + BigInt(i));
        assert.equal(r.timestamp, BigInt(input[i]!.timestamp!));
        assert.deepEqual(r.key, input[i]!.key);
        assert.deepEqual(r.value, input[i]!.value);
        assert.deepEqual(r.headers, input[i]!.headers ?? []);
      });
      if (codec !== 'zstd')
        assert.deepEqual(
          encodeRecordBatchSync(input, {
            compression: codec,
            baseOffset: 500n,
            producerId: 1n,
            producerEpoch: 0,
            baseSequence: 0,
          }),
          b,
        );
    });
  }
  test('snappy with xerial framing', async () => {
    const b = await encodeRecordBatch(input, { compression: 'snappy', compressionOptions: { xerial: true } });
    assert.equal(b.readUInt8(61), 0x82);
    assert.equal((await decodeRecords(b)).length, input.length);
  });
});

describe('encoder options and input checks', () => {
  test('defaults: Java’s “no producer” values, leader epoch −1, timestamps now', () => {
    const before = Date.now();
    const h = readBatchHeader(encodeRecordBatchSync([{ value: Buffer.from('x') }]));
    assert.equal(h.producerId, -1n);
    assert.equal(h.producerEpoch, -1);
    assert.equal(h.baseSequence, -1);
    assert.equal(h.partitionLeaderEpoch, -1);
    assert.equal(h.baseOffset, 0n);
    assert.ok(h.baseTimestamp >= BigInt(before) && h.baseTimestamp <= BigInt(Date.now()));
  });
  test('attributes: codec id number, LogAppendTime, control', () => {
    const h = readBatchHeader(
      encodeRecordBatchSync([{ value: null }], {
        compression: 2,
        timestampType: 'LogAppendTime',
        transactional: true,
        isControl: true,
      }),
    );
    assert.equal(h.attributes, 2 | 8 | 16 | 32);
  });
  test('explicit offset deltas (a compacted batch) set LastOffsetDelta', async () => {
    const b = encodeRecordBatchSync(
      [
        { value: null, offsetDelta: 0 },
        { value: null, offsetDelta: 5 },
      ],
      { timestamp: T },
    );
    assert.equal(readBatchHeader(b).lastOffsetDelta, 5);
    assert.deepEqual(
      (await decodeRecords(b)).map((r) => r.offset),
      [0n, 5n],
    );
  });
  test('bad input → RecordBatchError', () => {
    const isInvalid = (e: unknown) => e instanceof RecordBatchError && e.errorName === 'INVALID_RECORD';
    assert.throws(
      () =>
        encodeRecordBatchSync([
          { value: null, offsetDelta: 1 },
          { value: null, offsetDelta: 1 },
        ]),
      isInvalid,
    );
    assert.throws(() => encodeRecordBatchSync([{ value: null, timestamp: 1.5 }]), isInvalid);
    assert.throws(
      () => encodeRecordBatchSync([{ value: null }], { compression: 'brotli' as CompressionName }),
      (e: unknown) => e instanceof RecordBatchError && e.code === 76,
    );
  });
  test('empty batch: count 0, timestamps −1', () => {
    const h = readBatchHeader(encodeRecordBatchSync([]));
    assert.equal(h.recordCount, 0);
    assert.equal(h.lastOffsetDelta, -1);
    assert.equal(h.baseTimestamp, -1n);
  });
  test('bigint timestamps', async () => {
    const b = encodeRecordBatchSync([
      { value: null, timestamp: BigInt(T) },
      { value: null, timestamp: BigInt(T + 1) },
    ]);
    assert.deepEqual(
      (await decodeRecords(b)).map((r) => r.timestamp),
      [BigInt(T), BigInt(T + 1)],
    );
  });
});
