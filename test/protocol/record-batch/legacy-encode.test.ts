// The legacy (magic 0/1) encoder and the v2 → legacy down-conversion, checked with the legacy
// decoder and against the layout of real librdkafka message sets (fixtures from kcat).

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import zlib from 'node:zlib';
import { decompress } from '../../../src/protocol/compression/index.js';
import {
  decodeLegacyMessageSet,
  downConvertRecords,
  encodeControlBatch,
  encodeLegacyMessageSet,
  encodeLegacyMessageSetSync,
  encodeRecordBatch,
  encodeRecordBatchSync,
  iterateBatches,
  parseLegacyMessage,
  RecordBatchError,
} from '../../../src/protocol/record-batch/index.js';
import { repoFile } from '../../support/repo.js';

const CODECS = ['none', 'gzip', 'snappy', 'lz4'] as const;
const rec = (i: number, ts = 1_700_000_000_000n + BigInt(i)) => ({
  offset: 100n + BigInt(i),
  timestamp: ts,
  key: i % 3 === 0 ? null : Buffer.from(`k${i}`),
  value: i % 4 === 3 ? null : Buffer.from(`value ${i} ${'x'.repeat(i * 7)}`),
});

describe('encodeLegacyMessageSet', () => {
  for (const magic of [0, 1] as const) {
    for (const codec of CODECS) {
      test(`magic ${magic} ${codec}: decodes back with absolute offsets, keys, values, timestamps`, async () => {
        const input = Array.from({ length: 6 }, (_, i) => rec(i));
        const set = await encodeLegacyMessageSet(input, { magic, compression: codec });
        assert.deepEqual(encodeLegacyMessageSetSync(input, { magic, compression: codec }), set);
        const entries = [...iterateBatches(set)];
        assert.equal(entries.length, codec === 'none' ? 6 : 1);
        for (const e of entries) assert.equal(e.magic, magic);
        if (codec !== 'none') {
          // One wrapper: offset of the last record, null key.
          const w = parseLegacyMessage(set, 0, set.length, true);
          assert.equal(w.offset, 105n);
          assert.equal(w.key, null);
          assert.equal(w.attributes & 7, CODECS.indexOf(codec));
          if (magic === 1) assert.equal(w.timestamp, 1_700_000_000_005n, 'wrapper = max timestamp');
        }
        const out = await decodeLegacyMessageSet(set);
        assert.deepEqual(
          out.map((r) => [r.offset, r.timestamp, r.key?.toString() ?? null, r.value?.toString() ?? null]),
          input.map((r) => [
            r.offset,
            magic === 0 ? -1n : r.timestamp,
            r.key?.toString() ?? null,
            r.value?.toString() ?? null,
          ]),
        );
      });
    }
  }

  test('magic 1 LogAppendTime: the type bit and the append time on every message', async () => {
    const input = [rec(0), rec(1)];
    for (const codec of ['none', 'gzip'] as const) {
      const set = await encodeLegacyMessageSet(input, {
        magic: 1,
        compression: codec,
        timestampType: 'LogAppendTime',
        logAppendTime: 42n,
      });
      for (const e of iterateBatches(set)) assert.equal(set.readInt8(e.position + 17) & 0x08, 0x08);
      assert.deepEqual(
        (await decodeLegacyMessageSet(set)).map((r) => r.timestamp),
        [42n, 42n],
      );
    }
  });

  test('same bytes as librdkafka for uncompressed sets (kcat fixtures)', () => {
    const lines: string[] = JSON.parse(
      readFileSync(repoFile('test/fixtures/record-batch/kcat-legacy-lines.json'), 'utf8'),
    );
    for (const magic of [0, 1] as const) {
      const fixture = readFileSync(repoFile(`test/fixtures/record-batch/kcat-magic${magic}-none.bin`));
      const ts =
        magic === 1 ? parseLegacyMessage(fixture, 0, 12 + fixture.readInt32BE(8), true).timestamp : -1n;
      const input = lines.map((l, i) => {
        const at = l.indexOf(':');
        const m = parseLegacyMessage(
          fixture,
          [...iterateBatches(fixture)][i]!.position,
          [...iterateBatches(fixture)][i]!.size,
          true,
        );
        return {
          offset: BigInt(i),
          timestamp: magic === 1 ? m.timestamp : ts,
          key: Buffer.from(l.slice(0, at)),
          value: Buffer.from(l.slice(at + 1)),
        };
      });
      assert.deepEqual(encodeLegacyMessageSetSync(input, { magic }), fixture, `magic ${magic}`);
    }
  });

  test('magic-0 lz4 carries the KAFKA-3160 header checksum, as Kafka 0.9 wrote it', async () => {
    const set = await encodeLegacyMessageSet([rec(0), rec(1)], { magic: 0, compression: 'lz4' });
    const frame = parseLegacyMessage(set, 0, set.length, true).value!;
    await assert.rejects(decompress('lz4', frame), (e: unknown) => (e as { code?: number }).code === 2);
    assert.equal((await decodeLegacyMessageSet(set)).length, 2, 'the legacy decoder repairs it');
    const v1 = await encodeLegacyMessageSet([rec(0), rec(1)], { magic: 1, compression: 'lz4' });
    await decompress('lz4', parseLegacyMessage(v1, 0, v1.length, true).value!);
  });

  test('snappy is xerial-framed (Java clients of that era read only that)', async () => {
    const set = await encodeLegacyMessageSet([rec(0)], { magic: 1, compression: 'snappy' });
    const value = parseLegacyMessage(set, 0, set.length, true).value!;
    assert.equal(value.subarray(0, 8).toString('latin1'), '\x82SNAPPY\x00');
  });

  test('zstd does not exist before magic 2', () => {
    assert.throws(
      () => encodeLegacyMessageSetSync([rec(0)], { magic: 1, compression: 'zstd' }),
      (e: unknown) => e instanceof RecordBatchError && e.errorName === 'UNSUPPORTED_COMPRESSION_TYPE',
    );
  });

  test('CRC-32 covers magic..end', () => {
    const set = encodeLegacyMessageSetSync([rec(1)], { magic: 1 });
    assert.equal(set.readUInt32BE(12), zlib.crc32(set.subarray(16)) >>> 0);
  });
});

describe('downConvertRecords', () => {
  const records = (n: number, from = 0) =>
    Array.from({ length: n }, (_, i) => ({
      key: Buffer.from(`k${from + i}`),
      value: Buffer.from(`v${from + i}`),
      timestamp: 1_600_000_000_000 + from + i,
      headers: [{ key: 'h', value: Buffer.from('dropped') }],
    }));

  for (const codec of CODECS) {
    for (const magic of [0, 1] as const) {
      test(`${codec} v2 batches → magic ${magic}, compression kept`, async () => {
        const a = await encodeRecordBatch(records(3), { baseOffset: 10, compression: codec });
        const b = await encodeRecordBatch(records(2, 3), { baseOffset: 13, compression: codec });
        // One batch per call: converted sets are larger than v2 and the answer is size-bound.
        const out = Buffer.concat([
          await downConvertRecords(a, magic, 10n),
          await downConvertRecords(b, magic, 10n),
        ]);
        const entries = [...iterateBatches(out)];
        assert.equal(entries.length, codec === 'none' ? 5 : 2);
        for (const e of entries) {
          assert.equal(e.magic, magic);
          assert.equal(out.readInt8(e.position + 17) & 7, CODECS.indexOf(codec));
        }
        const decoded = await decodeLegacyMessageSet(out);
        assert.deepEqual(
          decoded.map((r) => [r.offset, r.timestamp, r.key!.toString(), r.value!.toString()]),
          [0, 1, 2, 3, 4].map((i) => [
            BigInt(10 + i),
            magic === 0 ? -1n : BigInt(1_600_000_000_000 + i),
            `k${i}`,
            `v${i}`,
          ]),
        );
      });
    }
  }

  test('control batches are dropped; uncompressed records below the fetch offset too, compressed kept whole', async () => {
    const plain = encodeRecordBatchSync(records(4), { baseOffset: 0 });
    const marker = encodeControlBatch({
      type: 'COMMIT',
      producerId: 7n,
      producerEpoch: 0,
      baseOffset: 4n,
      coordinatorEpoch: 0,
      timestamp: 1,
    });
    const gz = encodeRecordBatchSync(records(3, 5), { baseOffset: 5, compression: 'gzip' });
    const out = await downConvertRecords(Buffer.concat([plain, marker, gz]), 1, 2n);
    const offsets = (await decodeLegacyMessageSet(out)).map((r) => Number(r.offset));
    assert.deepEqual(offsets, [2, 3, 5, 6, 7]);
    const fromGz = await downConvertRecords(gz, 1, 6n);
    assert.deepEqual(
      (await decodeLegacyMessageSet(fromGz)).map((r) => Number(r.offset)),
      [5, 6, 7],
      'the wrapper keeps its first record',
    );
  });

  test('LogAppendTime batches keep their type and append time', async () => {
    const b = encodeRecordBatchSync(records(2), { timestampType: 'LogAppendTime', timestamp: 5 });
    b.writeBigInt64BE(77n, 35); // MaxTimestamp = the append time (CRC not checked: stored bytes)
    const out = await downConvertRecords(b, 1, 0n);
    for (const e of iterateBatches(out)) assert.equal(out.readInt8(e.position + 17) & 0x08, 0x08);
    assert.deepEqual(
      (await decodeLegacyMessageSet(out)).map((r) => r.timestamp),
      [77n, 77n],
    );
  });

  test('zstd: UNSUPPORTED_COMPRESSION_TYPE first, else the answer stops before it', async () => {
    const z = await encodeRecordBatch(records(1), { baseOffset: 0, compression: 'zstd' });
    const plain = encodeRecordBatchSync(records(1, 1), { baseOffset: 1 });
    await assert.rejects(
      downConvertRecords(Buffer.concat([z, plain]), 1, 0n),
      (e: unknown) => e instanceof RecordBatchError && e.errorName === 'UNSUPPORTED_COMPRESSION_TYPE',
    );
    const z2 = await encodeRecordBatch(records(1, 1), { baseOffset: 1, compression: 'zstd' });
    const first = encodeRecordBatchSync(records(1), { baseOffset: 0 });
    const out = await downConvertRecords(Buffer.concat([first, z2]), 1, 0n);
    assert.deepEqual(
      (await decodeLegacyMessageSet(out)).map((r) => Number(r.offset)),
      [0],
    );
  });

  test('the answer is bounded by max(input size, first converted batch)', async () => {
    // 1-byte values: a legacy message is larger than a v2 record, so not everything fits.
    const many = Array.from({ length: 200 }, (_, i) => ({ value: Buffer.from([i]), timestamp: 1 }));
    const input = Buffer.concat([
      encodeRecordBatchSync(many.slice(0, 100), { baseOffset: 0 }),
      encodeRecordBatchSync(many.slice(100), { baseOffset: 100 }),
    ]);
    const out = await downConvertRecords(input, 1, 0n);
    assert.ok(out.length > input.length, 'the first batch is always whole');
    assert.equal((await decodeLegacyMessageSet(out)).length, 100, 'the second did not fit');
    const small = encodeRecordBatchSync([{ value: Buffer.alloc(500) }], { baseOffset: 0 });
    assert.equal((await decodeLegacyMessageSet(await downConvertRecords(small, 0, 0n))).length, 1);
  });

  test('a partial trailing batch is ignored, an empty read stays empty', async () => {
    const b = encodeRecordBatchSync(records(2), { baseOffset: 0 });
    const out = await downConvertRecords(Buffer.concat([b, b.subarray(0, 30)]), 0, 0n);
    assert.equal((await decodeLegacyMessageSet(out)).length, 2);
    assert.equal((await downConvertRecords(Buffer.alloc(0), 1, 0n)).length, 0);
  });
});
