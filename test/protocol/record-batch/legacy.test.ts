import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import zlib from 'node:zlib';
import { compressSync } from '../../../src/protocol/compression/index.js';
import {
  decodeLegacyMessageSet,
  decodeLegacyMessageSetSync,
  encodeRecordBatchSync,
  RecordBatchError,
} from '../../../src/protocol/record-batch/index.js';

function bytes(b: Buffer | null): Buffer {
  const len = Buffer.alloc(4);
  len.writeInt32BE(b === null ? -1 : b.length);
  return b === null ? len : Buffer.concat([len, b]);
}

/** One log entry holding a legacy message (CRC-32 over magic..end). */
function entry(
  offset: bigint,
  magic: 0 | 1,
  attributes: number,
  key: Buffer | null,
  value: Buffer | null,
  ts = 0n,
): Buffer {
  const head = Buffer.alloc(magic === 1 ? 10 : 2);
  head[0] = magic;
  head[1] = attributes;
  if (magic === 1) head.writeBigInt64BE(ts, 2);
  const body = Buffer.concat([head, bytes(key), bytes(value)]);
  const prefix = Buffer.alloc(16);
  prefix.writeBigInt64BE(offset, 0);
  prefix.writeInt32BE(body.length + 4, 8);
  prefix.writeUInt32BE(zlib.crc32(body) >>> 0, 12);
  return Buffer.concat([prefix, body]);
}

const k = (s: string) => Buffer.from(s);

function expectError(fn: () => unknown, name: string): void {
  assert.throws(fn, (e: unknown) => e instanceof RecordBatchError && e.errorName === name);
}

describe('uncompressed legacy messages', () => {
  test('magic 0: no timestamps, null key/value', async () => {
    const set = Buffer.concat([entry(10n, 0, 0, k('a'), k('1')), entry(11n, 0, 0, null, null)]);
    assert.deepEqual(await decodeLegacyMessageSet(set), [
      { offset: 10n, timestamp: -1n, key: k('a'), value: k('1'), headers: [] },
      { offset: 11n, timestamp: -1n, key: null, value: null, headers: [] },
    ]);
  });
  test('magic 1: timestamps; a truncated tail is ignored', () => {
    const set = Buffer.concat([
      entry(3n, 1, 0, k('a'), k('1'), 1234n),
      entry(4n, 1, 0, k('b'), k('2'), 1235n),
    ]);
    const out = decodeLegacyMessageSetSync(set.subarray(0, set.length - 3));
    assert.deepEqual(
      out.map((r) => [r.offset, r.timestamp]),
      [[3n, 1234n]],
    );
  });
});

describe('compressed wrappers', () => {
  test('v0: inner offsets are absolute', async () => {
    const inner = Buffer.concat([entry(100n, 0, 0, k('a'), k('1')), entry(101n, 0, 0, k('b'), k('2'))]);
    const set = entry(101n, 0, 1, null, compressSync('gzip', inner));
    assert.deepEqual(
      (await decodeLegacyMessageSet(set)).map((r) => [r.offset, r.key?.toString()]),
      [
        [100n, 'a'],
        [101n, 'b'],
      ],
    );
  });
  test('v1: relative inner offsets against the wrapper (last) offset; CreateTime keeps inner timestamps', async () => {
    const inner = Buffer.concat([
      entry(0n, 1, 0, k('a'), k('1'), 50n),
      entry(1n, 1, 0, k('b'), k('2'), 60n),
      entry(2n, 1, 0, k('c'), k('3'), 70n),
    ]);
    for (const codec of ['gzip', 'snappy', 'lz4'] as const) {
      const set = entry(
        1002n,
        1,
        [0, 'gzip', 'snappy', 'lz4'].indexOf(codec),
        null,
        compressSync(codec, inner),
        70n,
      );
      assert.deepEqual(
        (await decodeLegacyMessageSet(set)).map((r) => [r.offset, r.timestamp]),
        [
          [1000n, 50n],
          [1001n, 60n],
          [1002n, 70n],
        ],
        codec,
      );
    }
  });
  test('v1 LogAppendTime wrapper overrides inner timestamps', () => {
    const inner = Buffer.concat([entry(0n, 1, 0, null, k('1'), 50n), entry(1n, 1, 0, null, k('2'), 60n)]);
    const set = entry(9n, 1, 0x08 | 1, null, compressSync('gzip', inner), 999n);
    assert.deepEqual(
      decodeLegacyMessageSetSync(set).map((r) => [r.offset, r.timestamp]),
      [
        [8n, 999n],
        [9n, 999n],
      ],
    );
  });
  test('several wrappers and plain messages in one set', () => {
    const w1 = entry(
      1n,
      1,
      1,
      null,
      compressSync(
        'gzip',
        Buffer.concat([entry(0n, 1, 0, null, k('x'), 1n), entry(1n, 1, 0, null, k('y'), 1n)]),
      ),
      1n,
    );
    const plain = entry(2n, 1, 0, null, k('z'), 2n);
    assert.deepEqual(
      decodeLegacyMessageSetSync(Buffer.concat([w1, plain])).map((r) => r.value?.toString()),
      ['x', 'y', 'z'],
    );
  });
});

describe('hostile legacy input → typed errors', () => {
  test('bad CRC → CORRUPT_MESSAGE (unless verification is off)', () => {
    const e = entry(0n, 1, 0, k('a'), k('1'), 5n);
    e[e.length - 1]! ^= 1;
    expectError(() => decodeLegacyMessageSetSync(e), 'CORRUPT_MESSAGE');
    assert.equal(decodeLegacyMessageSetSync(e, { verifyCrc: false }).length, 1);
  });
  test('key/value lengths beyond the message, or bytes after the value → CORRUPT_MESSAGE', () => {
    const e = entry(0n, 0, 0, k('abc'), k('1'));
    const bad = Buffer.from(e);
    bad.writeInt32BE(1000, 18); // key length
    expectError(() => decodeLegacyMessageSetSync(bad, { verifyCrc: false }), 'CORRUPT_MESSAGE');
    const neg = Buffer.from(e);
    neg.writeInt32BE(-7, 18);
    expectError(() => decodeLegacyMessageSetSync(neg, { verifyCrc: false }), 'CORRUPT_MESSAGE');
    const longer = Buffer.concat([e, Buffer.alloc(2)]);
    longer.writeInt32BE(e.length - 12 + 2, 8);
    expectError(() => decodeLegacyMessageSetSync(longer, { verifyCrc: false }), 'CORRUPT_MESSAGE');
  });
  test('nested compression, magic mismatch, empty or truncated inner sets → CORRUPT_MESSAGE', () => {
    const innerWrapper = entry(0n, 1, 1, null, compressSync('gzip', entry(0n, 1, 0, null, k('x'), 1n)), 1n);
    expectError(
      () => decodeLegacyMessageSetSync(entry(0n, 1, 1, null, compressSync('gzip', innerWrapper), 1n)),
      'CORRUPT_MESSAGE',
    );
    expectError(
      () =>
        decodeLegacyMessageSetSync(
          entry(0n, 1, 1, null, compressSync('gzip', entry(0n, 0, 0, null, k('x'))), 1n),
        ),
      'CORRUPT_MESSAGE',
    );
    expectError(
      () => decodeLegacyMessageSetSync(entry(0n, 1, 1, null, compressSync('gzip', Buffer.alloc(0)), 1n)),
      'CORRUPT_MESSAGE',
    );
    const inner = entry(0n, 1, 0, null, k('xyz'), 1n);
    expectError(
      () =>
        decodeLegacyMessageSetSync(
          entry(0n, 1, 1, null, compressSync('gzip', inner.subarray(0, inner.length - 1)), 1n),
        ),
      'CORRUPT_MESSAGE',
    );
    expectError(() => decodeLegacyMessageSetSync(entry(0n, 1, 1, null, null, 1n)), 'CORRUPT_MESSAGE');
    expectError(
      () => decodeLegacyMessageSetSync(entry(0n, 1, 2, null, k('not snappy'), 1n)),
      'CORRUPT_MESSAGE',
    );
  });
  test('zstd or unknown codec in a legacy message → UNSUPPORTED_COMPRESSION_TYPE', () => {
    expectError(
      () => decodeLegacyMessageSetSync(entry(0n, 1, 4, null, k('x'), 1n)),
      'UNSUPPORTED_COMPRESSION_TYPE',
    );
  });
  test('a magic 2 batch is refused by the legacy decoder', async () => {
    await assert.rejects(
      decodeLegacyMessageSet(encodeRecordBatchSync([{ value: k('v') }])),
      (e: unknown) => e instanceof RecordBatchError && e.code === 2,
    );
  });
  test('bomb in a wrapper → MESSAGE_TOO_LARGE', async () => {
    const inner = entry(0n, 1, 0, null, Buffer.alloc(2 << 20), 1n);
    const set = entry(0n, 1, 1, null, compressSync('gzip', inner), 1n);
    await assert.rejects(
      decodeLegacyMessageSet(set, { maxDecompressedSize: 1 << 20 }),
      (e: unknown) => e instanceof RecordBatchError && e.code === 10,
    );
  });
});
