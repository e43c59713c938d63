import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { compressSync } from '../../../src/protocol/compression/index.js';
import { crc32c } from '../../../src/protocol/crc32c.js';
import {
  checkRecords,
  decodeRecordBatch,
  decodeRecordBatchSync,
  decodeRecords,
  encodeRecordBatchSync,
  RecordBatchError,
  setMaxTimestampAndLogAppendTime,
} from '../../../src/protocol/record-batch/index.js';

const T = 1_700_000_000_000;

/** A batch around a hand-made records area, with a correct CRC (so the record checks are hit). */
function rawBatch(area: Buffer, count: number, codec = 0): Buffer {
  const b = Buffer.concat([encodeRecordBatchSync([], { timestamp: T }), area]);
  b.writeInt32BE(b.length - 12, 8);
  b.writeInt16BE(codec, 21);
  b.writeInt32BE(count - 1, 23);
  b.writeBigInt64BE(BigInt(T), 27);
  b.writeInt32BE(count, 57);
  b.writeUInt32BE(crc32c(b.subarray(21)), 17);
  return b;
}

/** zig-zag varint bytes, written independently of the code under test. */
function vi(n: number): number[] {
  let u = n >= 0 ? n * 2 : -n * 2 - 1;
  const out: number[] = [];
  while (u >= 0x80) {
    out.push((u % 0x80) | 0x80);
    u = Math.floor(u / 0x80);
  }
  out.push(u);
  return out;
}

/** One record: body fields given as byte arrays; the length prefix is computed. */
function rec(...fields: number[][]): number[] {
  const body = fields.flat();
  return [...vi(body.length), ...body];
}

const GOOD = rec([0], vi(0), vi(0), vi(1), [0x6b], vi(1), [0x76], vi(0)); // key "k", value "v"

function expectInvalid(fn: () => unknown, name = 'INVALID_RECORD'): void {
  assert.throws(fn, (e: unknown) => e instanceof RecordBatchError && e.errorName === name);
}

function drain(b: Buffer): number {
  const c = decodeRecordBatchSync(b);
  return checkRecords(c);
}

describe('lazy cursor', () => {
  const batch = encodeRecordBatchSync(
    [
      {
        key: Buffer.from('k0'),
        value: Buffer.from('v0'),
        timestamp: T,
        headers: [{ key: 'h', value: Buffer.from('x') }],
      },
      { key: null, value: null, timestamp: T + 9 },
      {
        key: Buffer.from('k2'),
        value: Buffer.alloc(0),
        timestamp: T - 4,
        headers: [{ key: 'n', value: null }],
      },
    ],
    { baseOffset: 100n },
  );
  test('positions and lengths without materialising', () => {
    const c = decodeRecordBatchSync(batch);
    assert.equal(c.index, -1);
    assert.ok(c.next());
    assert.equal(c.offsetDelta, 0);
    assert.equal(c.offset, 100n);
    assert.equal(c.timestampMs, T);
    assert.equal(c.keyLength, 2);
    assert.equal(c.data.toString('latin1', c.keyOffset, c.keyOffset + c.keyLength), 'k0');
    assert.equal(c.valueLength, 2);
    assert.equal(c.headerCount, 1);
    assert.ok(c.next());
    assert.equal(c.keyLength, -1);
    assert.equal(c.key(), null);
    assert.equal(c.value(), null);
    assert.equal(c.timestamp, BigInt(T + 9));
    assert.ok(c.next());
    assert.equal(c.offset, 102n);
    assert.equal(c.timestamp, BigInt(T - 4));
    assert.deepEqual(c.value(), Buffer.alloc(0));
    assert.deepEqual(c.headers(), [{ key: 'n', value: null }]);
    assert.ok(!c.next());
    assert.ok(!c.next());
  });
  test('key and value are views of the batch, not copies', () => {
    const c = decodeRecordBatchSync(batch);
    c.next();
    assert.equal(c.key()!.buffer, batch.buffer);
  });
  test('key, value and header values are plain Buffers over the batch bytes, at their positions', () => {
    // Built inside a larger allocation, so that a view's byteOffset is not the batch's own.
    const host = Buffer.alloc(batch.length + 37);
    batch.copy(host, 37);
    const inHost = host.subarray(37);
    const c = decodeRecordBatchSync(inHost);
    c.next();
    const key = c.key()!;
    const value = c.value()!;
    const header = c.headers()[0]!.value!;
    for (const [view, text, at] of [
      [key, 'k0', c.keyOffset],
      [value, 'v0', c.valueOffset],
    ] as const) {
      assert.equal(Object.getPrototypeOf(view), Buffer.prototype);
      assert.ok(Buffer.isBuffer(view));
      assert.deepStrictEqual(view, Buffer.from(text));
      assert.equal(view.buffer, host.buffer);
      assert.equal(view.byteOffset, c.data.byteOffset + at);
    }
    assert.equal(Object.getPrototypeOf(header), Buffer.prototype);
    assert.deepStrictEqual(header, Buffer.from('x'));
    assert.equal(header.buffer, host.buffer);
    // A view sees later writes to the batch bytes (no copy) and stays within its own length.
    c.data[c.valueOffset] = 0x77;
    assert.equal(value.toString(), 'w0');
    assert.equal(value.subarray(0, 5).length, 2);
    c.next();
    assert.equal(c.key(), null);
    assert.equal(c.value(), null);
    c.next();
    assert.deepStrictEqual(c.value(), Buffer.alloc(0));
    assert.equal(Object.getPrototypeOf(c.value()), Buffer.prototype);
  });
  test('iterable, toRecord, and decodeRecords agree', async () => {
    const viaIter: bigint[] = [];
    for (const c of decodeRecordBatchSync(batch)) viaIter.push(c.offset);
    assert.deepEqual(viaIter, [100n, 101n, 102n]);
    const all = await decodeRecords(batch);
    assert.deepEqual(all[0], {
      offset: 100n,
      timestamp: BigInt(T),
      key: Buffer.from('k0'),
      value: Buffer.from('v0'),
      headers: [{ key: 'h', value: Buffer.from('x') }],
    });
    assert.deepEqual(all[1]!.headers, []);
  });
  test('LogAppendTime batches report MaxTimestamp for every record', async () => {
    const b = Buffer.from(batch);
    setMaxTimestampAndLogAppendTime(b, 0, 1_800_000_000_000n);
    assert.deepEqual(
      (await decodeRecords(b)).map((r) => r.timestamp),
      [1_800_000_000_000n, 1_800_000_000_000n, 1_800_000_000_000n],
    );
  });
  test('sync and async decoding of compressed batches; zstd is async-only', async () => {
    const records = [{ key: null, value: Buffer.from('hello'.repeat(50)), timestamp: T }];
    for (const compression of ['gzip', 'snappy', 'lz4'] as const) {
      assert.equal(decodeRecordBatchSync(encodeRecordBatchSync(records, { compression })).next(), true);
    }
    const z = await (await import('../../../src/protocol/record-batch/index.js')).encodeRecordBatch(records, {
      compression: 'zstd',
    });
    assert.equal((await decodeRecords(z))[0]!.value!.toString(), 'hello'.repeat(50));
    expectInvalid(() => decodeRecordBatchSync(z), 'UNSUPPORTED_COMPRESSION_TYPE');
  });
  test('checkRecords walks everything, optionally requiring sequential offsets', () => {
    assert.equal(checkRecords(decodeRecordBatchSync(batch), { sequentialOffsets: true }), 3);
    const gap = encodeRecordBatchSync([
      { value: null, offsetDelta: 0 },
      { value: null, offsetDelta: 2 },
    ]);
    assert.equal(checkRecords(decodeRecordBatchSync(gap)), 2);
    expectInvalid(() => checkRecords(decodeRecordBatchSync(gap), { sequentialOffsets: true }));
  });
});

describe('hostile batches → typed errors', () => {
  test('the hand-built reference record decodes', () => {
    assert.equal(drain(rawBatch(Buffer.from([...GOOD, ...GOOD]), 2)), 2);
  });
  test('bad CRC → CORRUPT_MESSAGE unless verification is off', async () => {
    const b = rawBatch(Buffer.from(GOOD), 1);
    b[b.length - 2]! ^= 0xff;
    expectInvalid(() => decodeRecordBatchSync(b), 'CORRUPT_MESSAGE');
    await assert.rejects(decodeRecordBatch(b), (e: unknown) => e instanceof RecordBatchError && e.code === 2);
    assert.ok(decodeRecordBatchSync(b, { verifyCrc: false }).next());
  });
  test('truncated batch, Length beyond the buffer, wrong magic → CORRUPT_MESSAGE', () => {
    const b = rawBatch(Buffer.from(GOOD), 1);
    expectInvalid(() => decodeRecordBatchSync(b.subarray(0, b.length - 1)), 'CORRUPT_MESSAGE');
    expectInvalid(() => decodeRecordBatchSync(b.subarray(0, 30)), 'CORRUPT_MESSAGE');
    const m = Buffer.from(b);
    m[16] = 3;
    expectInvalid(() => decodeRecordBatchSync(m), 'CORRUPT_MESSAGE');
  });
  test('record count larger than the data (lying count) → INVALID_RECORD', () => {
    expectInvalid(() => drain(rawBatch(Buffer.from(GOOD), 2)));
    expectInvalid(() => drain(rawBatch(Buffer.from(GOOD), 2_000_000_000)));
  });
  test('record count smaller than the data (trailing bytes) → INVALID_RECORD', () => {
    expectInvalid(() => drain(rawBatch(Buffer.from([...GOOD, ...GOOD]), 1)));
  });
  test('negative record count → INVALID_RECORD', () => {
    expectInvalid(() => decodeRecordBatchSync(rawBatch(Buffer.from(GOOD), -1)));
  });
  test('huge or overlong varints → INVALID_RECORD', () => {
    // Record length 2^31-1 (5-byte varint) in a 20-byte area.
    expectInvalid(() => drain(rawBatch(Buffer.from([0xfe, 0xff, 0xff, 0xff, 0x0f, ...GOOD]), 1)));
    // A 6-byte varint.
    expectInvalid(() => drain(rawBatch(Buffer.from([0x80, 0x80, 0x80, 0x80, 0x80, 0x01, ...GOOD]), 1)));
    // Varint cut off by the end of the data.
    expectInvalid(() => drain(rawBatch(Buffer.from([0x80]), 1)));
    // Timestamp delta beyond 2^53.
    const ts = [0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01];
    expectInvalid(() => drain(rawBatch(Buffer.from(rec([0], ts, vi(0), vi(-1), vi(-1), vi(0))), 1)));
  });
  test('key / value lengths beyond the record → INVALID_RECORD', () => {
    expectInvalid(() =>
      drain(rawBatch(Buffer.from(rec([0], vi(0), vi(0), vi(50), [1, 2], vi(-1), vi(0))), 1)),
    );
    expectInvalid(() =>
      drain(rawBatch(Buffer.from(rec([0], vi(0), vi(0), vi(-1), vi(1_000_000), [1], vi(0))), 1)),
    );
    expectInvalid(() => drain(rawBatch(Buffer.from(rec([0], vi(0), vi(0), vi(-2), vi(-1), vi(0))), 1)));
    // A value that runs into the next record: the record's own length bounds it.
    const short = [...vi(5), 0, ...vi(0), ...vi(0), ...vi(-1), ...vi(3), 1, 2, 3, 0];
    expectInvalid(() => drain(rawBatch(Buffer.from([...short, ...GOOD]), 2)));
  });
  test('header count / header lengths out of bounds → INVALID_RECORD, nothing allocated by count', () => {
    expectInvalid(() =>
      drain(rawBatch(Buffer.from(rec([0], vi(0), vi(0), vi(-1), vi(-1), vi(1_000_000_000))), 1)),
    );
    expectInvalid(() => drain(rawBatch(Buffer.from(rec([0], vi(0), vi(0), vi(-1), vi(-1), vi(-3))), 1)));
    expectInvalid(() =>
      drain(rawBatch(Buffer.from(rec([0], vi(0), vi(0), vi(-1), vi(-1), vi(1), vi(-1), vi(-1))), 1)),
    );
    expectInvalid(() =>
      drain(
        rawBatch(Buffer.from(rec([0], vi(0), vi(0), vi(-1), vi(-1), vi(1), vi(1), [0x61], vi(9), [1])), 1),
      ),
    );
  });
  test('bytes left inside a record after its headers → INVALID_RECORD', () => {
    expectInvalid(() =>
      drain(rawBatch(Buffer.from(rec([0], vi(0), vi(0), vi(-1), vi(-1), vi(0), [7, 7])), 1)),
    );
  });
  test('compressed area: garbage → CORRUPT_MESSAGE, lying count → INVALID_RECORD', async () => {
    await assert.rejects(
      decodeRecordBatch(rawBatch(Buffer.from('not gzip at all'), 1, 1)),
      (e: unknown) => e instanceof RecordBatchError && e.code === 2,
    );
    const lying = rawBatch(compressSync('lz4', Buffer.from(GOOD)), 5, 3);
    const c = await decodeRecordBatch(lying);
    assert.ok(c.next());
    assert.throws(
      () => c.next(),
      (e: unknown) => e instanceof RecordBatchError && e.code === 87,
    );
  });
  test('decompression bomb in a batch → MESSAGE_TOO_LARGE', async () => {
    const b = encodeRecordBatchSync([{ value: Buffer.alloc(4 << 20) }], { compression: 'gzip' });
    assert.ok(b.length < 10_000);
    await assert.rejects(
      decodeRecordBatch(b, { maxDecompressedSize: 1 << 20 }),
      (e: unknown) => e instanceof RecordBatchError && e.errorName === 'MESSAGE_TOO_LARGE' && e.code === 10,
    );
    assert.throws(
      () => decodeRecordBatchSync(b, { maxDecompressedSize: 1 << 20 }),
      (e: unknown) => e instanceof RecordBatchError && e.code === 10,
    );
  });
  test('unknown codec in attributes → UNSUPPORTED_COMPRESSION_TYPE', async () => {
    await assert.rejects(
      decodeRecordBatch(rawBatch(Buffer.from(GOOD), 1, 6)),
      (e: unknown) => e instanceof RecordBatchError && e.code === 76,
    );
  });
});

// The cursor's inline varint paths (1 and 2 bytes, the bounded general reader beyond): every
// field decodes as the general reader would at the 1/2/3-byte boundaries, non-minimal encodings
// included, and a 2-byte varint that would end past its record is refused even when the next
// record's bytes follow it in the buffer.
describe('inline varint paths', () => {
  function bytes(n: number, fill: number): number[] {
    return new Array<number>(n).fill(fill);
  }

  // 1-byte: |v| ≤ 63; 2-byte: 64 ≤ |v| ≤ 8191 (and −64); 3-byte beyond.
  const EDGES = [0, 1, -1, 63, -64, 64, -65, 100, 8191, -8192, 8192, -8193, 1 << 20, -(1 << 20)];

  test('timestamp and offset deltas decode at every varint length boundary', () => {
    const neg = (v: number) => (v === 0 ? 0 : -v);
    const area = Buffer.from(EDGES.flatMap((v) => rec([0], vi(v), vi(neg(v)), vi(-1), vi(-1), vi(0))));
    const c = decodeRecordBatchSync(rawBatch(area, EDGES.length));
    const seen: [number, number][] = [];
    while (c.next()) seen.push([c.timestampDelta, c.offsetDelta]);
    assert.deepEqual(
      seen,
      EDGES.map((v) => [v, neg(v)]),
    );
  });

  test('key and value lengths (and so record lengths) across the boundaries', () => {
    const lengths = [0, 1, 63, 64, 65, 1024, 8191, 8192, 20_000];
    const area = Buffer.from(
      lengths.flatMap((n, i) => rec([0], vi(i), vi(i), vi(n), bytes(n, 0x6b), vi(n), bytes(n, 0x76), vi(0))),
    );
    const c = decodeRecordBatchSync(rawBatch(area, lengths.length));
    for (const n of lengths) {
      assert.ok(c.next());
      assert.deepEqual(c.key(), Buffer.alloc(n, 0x6b));
      assert.deepEqual(c.value(), Buffer.alloc(n, 0x76));
      assert.equal(c.headerCount, 0);
    }
    assert.equal(c.next(), false);
  });

  test('null key and value, and headers after a 2-byte value length', () => {
    const area = Buffer.from([
      ...rec([0], vi(0), vi(0), vi(-1), vi(-1), vi(0)),
      ...rec([0], vi(0), vi(1), vi(-1), vi(200), bytes(200, 1), vi(1), vi(1), [0x68], vi(2), [1, 2]),
    ]);
    const c = decodeRecordBatchSync(rawBatch(area, 2));
    assert.ok(c.next());
    assert.equal(c.key(), null);
    assert.equal(c.value(), null);
    assert.ok(c.next());
    assert.equal(c.value()!.length, 200);
    assert.deepEqual(c.headers(), [{ key: 'h', value: Buffer.from([1, 2]) }]);
  });

  test('non-minimal 2-byte encodings decode as the general reader decodes them', () => {
    // 0x80 0x00 = 0 and 0x82 0x00 = 1 (zig-zag): an over-long but valid varint.
    const area = Buffer.from(rec([0], [0x80, 0x00], [0x82, 0x00], vi(-1), [0x84, 0x00], [0x61, 0x62], vi(0)));
    const c = decodeRecordBatchSync(rawBatch(area, 1));
    assert.ok(c.next());
    assert.equal(c.timestampDelta, 0);
    assert.equal(c.offsetDelta, 1);
    assert.deepEqual(c.value(), Buffer.from('ab'));
    assert.equal(c.next(), false);
  });

  test('a 2-byte varint cut by its record end is refused, whatever follows in the buffer', () => {
    const next = rec([0], vi(0), vi(1), vi(-1), vi(-1), vi(0)); // starts with a byte < 0x80
    // Value length: first byte 0x81 is the record's last byte.
    const valueCut = [...vi(6), 0, ...vi(0), ...vi(0), ...vi(1), 0x6b, 0x81];
    expectInvalid(() => decodeRecordBatchSync(rawBatch(Buffer.from([...valueCut, ...next]), 2)).next());
    // Offset delta: a 4-byte timestamp delta pushes its first byte 0x81 to the record's end.
    const offsetCut = [...vi(6), 0, 0x80, 0x80, 0x80, 0x01, 0x81];
    expectInvalid(() => decodeRecordBatchSync(rawBatch(Buffer.from([...offsetCut, ...next]), 2)).next());
    // Record length: a first byte 0x81 as the last byte of the records area.
    const c = decodeRecordBatchSync(rawBatch(Buffer.from([...next, 0x81]), 2));
    assert.ok(c.next());
    expectInvalid(() => c.next());
  });

  test('a length that overruns its record is refused on the 2-byte path too', () => {
    // Value length 100 (2 bytes) but only 3 value bytes before the record ends.
    const area = Buffer.from(rec([0], vi(0), vi(0), vi(-1), vi(100), [1, 2, 3], vi(0)));
    expectInvalid(() => decodeRecordBatchSync(rawBatch(area, 1)).next());
    // Record length 200 (2 bytes) with fewer bytes in the batch.
    const short = Buffer.from([...vi(200), 0, ...vi(0), ...vi(0), ...vi(-1), ...vi(-1), ...vi(0)]);
    expectInvalid(() => decodeRecordBatchSync(rawBatch(short, 1)).next());
  });
});
