import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { crc32c } from '../../../src/protocol/crc32c.js';
import {
  completeBatchesEnd,
  compressionOf,
  encodeRecordBatchSync,
  isControl,
  isTransactional,
  iterateBatches,
  LOG_OVERHEAD,
  RECORD_BATCH_OVERHEAD,
  RecordBatchError,
  readBatchHeader,
  readInt64,
  setBaseOffset,
  setMaxTimestampAndLogAppendTime,
  setPartitionLeaderEpoch,
  TimestampType,
  timestampTypeOf,
  validateBatch,
  verifyBatchCrc,
  writeInt64,
} from '../../../src/protocol/record-batch/index.js';

const T = 1_700_000_000_000;
const records = [
  { key: Buffer.from('a'), value: Buffer.from('one'), timestamp: T },
  { key: null, value: Buffer.from('two'), timestamp: T + 7 },
  { key: Buffer.from('c'), value: null, timestamp: T + 3 },
];

function batch(opts: Parameters<typeof encodeRecordBatchSync>[1] = {}): Buffer {
  return encodeRecordBatchSync(records, { producerId: 42n, producerEpoch: 3, baseSequence: 10, ...opts });
}

function expectError(result: unknown, name: string, code: number): void {
  assert.ok(result instanceof RecordBatchError, `expected a RecordBatchError, got ${JSON.stringify(result)}`);
  assert.equal(result.errorName, name);
  assert.equal(result.code, code);
}

/** Rewrites an int field and fixes the CRC, to reach the semantic checks behind it. */
function patched(buf: Buffer, write: (b: Buffer) => void): Buffer {
  const b = Buffer.from(buf);
  write(b);
  b.writeUInt32BE(crc32c(b.subarray(21)), 17);
  return b;
}

describe('crc32c', () => {
  test('check value and chaining', () => {
    assert.equal(crc32c(Buffer.from('123456789')), 0xe3069283);
    assert.equal(crc32c(Buffer.from('6789'), crc32c(Buffer.from('12345'))), 0xe3069283);
  });
});

describe('header access', () => {
  test('constants', () => {
    assert.equal(RECORD_BATCH_OVERHEAD, 61);
    assert.equal(LOG_OVERHEAD, 12);
  });
  test('readBatchHeader reads every field', () => {
    const b = batch({ baseOffset: 1000n, partitionLeaderEpoch: 5, transactional: true, compression: 'gzip' });
    const h = readBatchHeader(b, 0);
    assert.deepEqual(
      { ...h, crc: 0 },
      {
        baseOffset: 1000n,
        length: b.length - 12,
        partitionLeaderEpoch: 5,
        magic: 2,
        crc: 0,
        attributes: 0x11,
        lastOffsetDelta: 2,
        baseTimestamp: BigInt(T),
        maxTimestamp: BigInt(T + 7),
        producerId: 42n,
        producerEpoch: 3,
        baseSequence: 10,
        recordCount: 3,
      },
    );
    assert.equal(h.crc, crc32c(b.subarray(21)));
    assert.equal(compressionOf(h.attributes), 1);
    assert.ok(isTransactional(h.attributes));
    assert.ok(!isControl(h.attributes));
    assert.equal(timestampTypeOf(h.attributes), TimestampType.CREATE_TIME);
  });
  test('reads at a non-zero position', () => {
    const b = Buffer.concat([Buffer.alloc(5), batch({ baseOffset: 7n })]);
    assert.equal(readBatchHeader(b, 5).baseOffset, 7n);
    assert.ok(verifyBatchCrc(b, 5));
  });
});

describe('in-place writers', () => {
  test('base offset and leader epoch are outside the CRC', () => {
    const b = batch();
    setBaseOffset(b, 0, 123456789012n);
    setPartitionLeaderEpoch(b, 0, 9);
    assert.ok(verifyBatchCrc(b, 0));
    assert.equal(readBatchHeader(b).baseOffset, 123456789012n);
    assert.equal(readBatchHeader(b).partitionLeaderEpoch, 9);
    assert.ok(!(validateBatch(b, 0) instanceof RecordBatchError));
  });
  test('setMaxTimestampAndLogAppendTime sets the type bit and recomputes the CRC', () => {
    const b = batch({ compression: 'lz4' });
    setMaxTimestampAndLogAppendTime(b, 0, 1_800_000_000_000n);
    const h = readBatchHeader(b);
    assert.equal(h.maxTimestamp, 1_800_000_000_000n);
    assert.equal(timestampTypeOf(h.attributes), TimestampType.LOG_APPEND_TIME);
    assert.equal(compressionOf(h.attributes), 3);
    assert.ok(verifyBatchCrc(b));
  });
});

describe('validateBatch', () => {
  test('accepts a good client batch and returns its header', () => {
    const b = batch();
    const h = validateBatch(b, 0, b.length);
    assert.ok(!(h instanceof RecordBatchError));
    assert.equal(h.recordCount, 3);
  });
  test('bad CRC → CORRUPT_MESSAGE', () => {
    const b = batch();
    b[b.length - 1]! ^= 1;
    expectError(validateBatch(b, 0), 'CORRUPT_MESSAGE', 2);
  });
  test('truncated batch / tiny Length / too little data → CORRUPT_MESSAGE', () => {
    const b = batch();
    expectError(validateBatch(b, 0, b.length - 1), 'CORRUPT_MESSAGE', 2);
    expectError(validateBatch(b.subarray(0, 8), 0), 'CORRUPT_MESSAGE', 2);
    const small = Buffer.from(b);
    small.writeInt32BE(40, 8);
    expectError(validateBatch(small, 0), 'CORRUPT_MESSAGE', 2);
    const negative = Buffer.from(b);
    negative.writeInt32BE(-5, 8);
    expectError(validateBatch(negative, 0), 'CORRUPT_MESSAGE', 2);
  });
  test('magic other than 2 → CORRUPT_MESSAGE', () => {
    const b = batch();
    b[16] = 1;
    expectError(validateBatch(b, 0), 'CORRUPT_MESSAGE', 2);
  });
  test('count != LastOffsetDelta + 1 → INVALID_RECORD', () => {
    const b = patched(batch(), (x) => x.writeInt32BE(5, 23));
    expectError(validateBatch(b, 0), 'INVALID_RECORD', 87);
    // Read back from a (compacted) log, fewer records than the offset span is fine.
    assert.ok(!(validateBatch(b, 0, b.length, { fromClient: false }) instanceof RecordBatchError));
  });
  test('count above LastOffsetDelta + 1 is invalid even for log batches', () => {
    const b = patched(batch(), (x) => x.writeInt32BE(1, 23));
    expectError(validateBatch(b, 0, b.length, { fromClient: false }), 'INVALID_RECORD', 87);
  });
  test('lying record count (more records than bytes could hold) → INVALID_RECORD', () => {
    const b = patched(batch(), (x) => {
      x.writeInt32BE(1_000_000, 57);
      x.writeInt32BE(999_999, 23);
    });
    expectError(validateBatch(b, 0), 'INVALID_RECORD', 87);
    const neg = patched(batch(), (x) => x.writeInt32BE(-1, 57));
    expectError(validateBatch(neg, 0, neg.length, { fromClient: false }), 'INVALID_RECORD', 87);
  });
  test('empty, control and unsequenced idempotent batches from a client → INVALID_RECORD', () => {
    const empty = encodeRecordBatchSync([]);
    expectError(validateBatch(empty, 0), 'INVALID_RECORD', 87);
    assert.ok(!(validateBatch(empty, 0, empty.length, { fromClient: false }) instanceof RecordBatchError));
    expectError(validateBatch(batch({ isControl: true, transactional: true }), 0), 'INVALID_RECORD', 87);
    expectError(validateBatch(batch({ baseSequence: -1 }), 0), 'INVALID_RECORD', 87);
  });
  test('unknown compression codec → UNSUPPORTED_COMPRESSION_TYPE', () => {
    const b = patched(batch(), (x) => x.writeInt16BE(6, 21));
    expectError(validateBatch(b, 0), 'UNSUPPORTED_COMPRESSION_TYPE', 76);
  });
});

describe('iterateBatches', () => {
  const a = batch({ baseOffset: 0n });
  const b = batch({ baseOffset: 3n, compression: 'snappy' });
  const all = Buffer.concat([a, b]);
  test('walks concatenated batches', () => {
    const seen = [...iterateBatches(all)];
    assert.deepEqual(seen, [
      { position: 0, size: a.length, magic: 2 },
      { position: a.length, size: b.length, magic: 2 },
    ]);
    assert.equal(completeBatchesEnd(all), all.length);
  });
  test('stops cleanly at a truncated tail, wherever it is cut', () => {
    for (const cut of [1, 10, 16, 17, 60, b.length - 1]) {
      const seen = [...iterateBatches(all.subarray(0, a.length + cut))];
      assert.equal(seen.length, 1, `cut ${cut}`);
    }
    assert.equal(completeBatchesEnd(all.subarray(0, all.length - 1)), a.length);
    assert.equal([...iterateBatches(Buffer.alloc(0))].length, 0);
  });
  test('walks legacy messages and respects start/end', () => {
    const legacy = Buffer.alloc(26);
    legacy.writeInt32BE(14, 8);
    legacy[16] = 0;
    const mixed = Buffer.concat([legacy, a]);
    assert.deepEqual(
      [...iterateBatches(mixed)].map((x) => x.magic),
      [0, 2],
    );
    assert.deepEqual(
      [...iterateBatches(mixed, 26, mixed.length)].map((x) => x.position),
      [26],
    );
  });
  test('a Length too small for its magic → CORRUPT_MESSAGE', () => {
    const bad = Buffer.from(all);
    bad.writeInt32BE(20, 8);
    assert.throws(
      () => [...iterateBatches(bad)],
      (e: unknown) => e instanceof RecordBatchError && e.code === 2,
    );
  });
});

test('readInt64 and writeInt64 agree with readBigInt64BE and writeBigInt64BE on every edge of their fast paths', () => {
  const edges = [0n, -1n, 1n, -2n, 2n ** 32n - 1n, 2n ** 32n, -(2n ** 32n), -(2n ** 32n) - 1n];
  for (const e of [2n ** 53n, 2n ** 63n]) edges.push(e - 1n, e, e + 1n, -e + 1n, -e, -e - 1n);
  for (let i = 0n; i < 64n; i++) edges.push(1n << i, -(1n << i), (1n << i) - 1n, 0x5a5a5a5a5a5a5a5an >> i);
  const buf = Buffer.alloc(20);
  for (const raw of edges) {
    const v = BigInt.asIntN(64, raw);
    buf.fill(0xa5);
    buf.writeBigInt64BE(v, 5);
    assert.equal(readInt64(buf, 5), v, `read ${v}`);
    buf.fill(0xa5);
    writeInt64(buf, v, 5);
    assert.equal(buf.readBigInt64BE(5), v, `write ${v}`);
    assert.equal(buf[4], 0xa5, 'nothing written before');
    assert.equal(buf[13], 0xa5, 'nothing written after');
  }
});
