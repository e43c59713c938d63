// Batches written by real clients: RecordBatch v2 from kcat/librdkafka 2.0.2 with every codec
// (test/fixtures/golden, tools/capture-golden) and legacy magic 0/1 message sets from the same
// kcat (test/fixtures/record-batch, tools/capture-legacy-batches.ts).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import {
  checkRecords,
  decodeLegacyMessageSet,
  decodeLegacyMessageSetSync,
  decodeRecordBatch,
  decodeRecords,
  encodeRecordBatchSync,
  iterateBatches,
  RecordBatchError,
  type RecordInput,
  validateBatch,
} from '../../../src/protocol/record-batch/index.js';
import { repoFile } from '../../support/repo.js';
import { goldenFrame, kcatGoldenValue, produceRecords } from './golden.js';

const CODECS = ['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const;

describe('kcat 1.7.1 (librdkafka 2.0.2) RecordBatch v2', () => {
  for (const [id, codec] of CODECS.entries()) {
    test(`${codec}: validates, decodes keys, values and headers`, async () => {
      const batch = produceRecords(goldenFrame(`librdkafka-produce-v7-${codec}.bin`));
      const h = validateBatch(batch, 0);
      assert.ok(!(h instanceof RecordBatchError), String(h));
      assert.equal(h.attributes & 7, id);
      const records = await decodeRecords(batch);
      assert.deepEqual(
        records.map((r) => [r.offset, r.key?.toString(), r.value?.toString()]),
        [1, 2, 3].map((i) => [BigInt(i - 1), `key-${i}`, kcatGoldenValue(i)]),
      );
      for (const r of records) {
        assert.deepEqual(r.headers, [
          { key: 'source', value: Buffer.from('kcat') },
          { key: 'trace', value: Buffer.from('golden') },
        ]);
      }
      assert.equal(checkRecords(await decodeRecordBatch(batch), { sequentialOffsets: true }), 3);
    });
  }
  test('re-encoding the uncompressed batch reproduces librdkafka’s bytes', async () => {
    const original = produceRecords(goldenFrame('librdkafka-produce-v7-none.bin'));
    const cursor = await decodeRecordBatch(original);
    const h = cursor.header;
    const records: RecordInput[] = [];
    for (const r of cursor)
      records.push({ key: r.key(), value: r.value(), headers: r.headers(), timestamp: r.timestamp });
    const again = encodeRecordBatchSync(records, {
      baseOffset: h.baseOffset,
      partitionLeaderEpoch: h.partitionLeaderEpoch,
      producerId: h.producerId,
      producerEpoch: h.producerEpoch,
      baseSequence: h.baseSequence,
    });
    assert.deepEqual(again, original);
  });
});

describe('kcat legacy message sets (magic 0 and 1)', () => {
  const lines: string[] = JSON.parse(
    readFileSync(repoFile('test/fixtures/record-batch/kcat-legacy-lines.json'), 'utf8'),
  );
  const expected = lines.map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 1)]);
  const file = (name: string) => readFileSync(repoFile(`test/fixtures/record-batch/${name}`));
  for (const magic of [0, 1]) {
    for (const codec of ['none', 'gzip', 'snappy', 'lz4']) {
      test(`magic ${magic} ${codec}`, async () => {
        const set = file(`kcat-magic${magic}-${codec}.bin`);
        assert.deepEqual(
          [...iterateBatches(set)].map((e) => e.magic),
          codec === 'none' ? [magic, magic, magic, magic, magic] : [magic],
        );
        const records = await decodeLegacyMessageSet(set);
        assert.deepEqual(decodeLegacyMessageSetSync(set), records);
        assert.deepEqual(
          records.map((r) => [r.key?.toString(), r.value?.toString()]),
          expected,
        );
        // As produced, v0 offsets are absolute (0..4); v1 inner offsets are relative to the
        // wrapper's offset (0 from a producer), which belongs to the last record.
        const offsets = records.map((r) => Number(r.offset));
        assert.deepEqual(offsets, magic === 1 && codec !== 'none' ? [-4, -3, -2, -1, 0] : [0, 1, 2, 3, 4]);
        for (const r of records) assert.equal(r.timestamp > 0n, magic === 1);
      });
    }
  }
  test('librdkafka’s magic-0 lz4 frame carries the KAFKA-3160 checksum that we repair', async () => {
    const set = file('kcat-magic0-lz4.bin');
    const { decompress } = await import('../../../src/protocol/compression/index.js');
    const frame = set.subarray(26, 26 + set.readInt32BE(22));
    await assert.rejects(decompress('lz4', frame), (e: unknown) => (e as { code?: number }).code === 2);
  });
});
