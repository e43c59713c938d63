// Requests from kcat 1.7.1 / librdkafka 2.0.2, as captured by tools/capture-golden.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type {
  ApiVersionsRequest,
  MetadataRequest,
  ProduceRequest,
} from '../../../src/protocol/messages/index.js';
import { assertValidBatch, compressionOf, decodeRecords } from '../../../src/protocol/record-batch/index.js';
import { load } from './load.js';

const TOPIC = 'golden-librdkafka';
const CODECS = [
  ['none', 0],
  ['gzip', 1],
  ['snappy', 2],
  ['lz4', 3],
  ['zstd', 4],
] as const;
// What the capture tool fed to kcat (`-K :`, two `-H` headers).
const value = (i: number): string =>
  `value-${i} ${'the quick brown fox jumps over the lazy dog '.repeat(8).trim()}`;

test('ApiVersions v3: flexible request with client software name/version', () => {
  const { header, body } = load<ApiVersionsRequest>('librdkafka-api-versions-v3.bin', 18, 3);
  assert.equal(header.clientId, 'rdkafka');
  assert.equal(header.correlationId, 1);
  assert.deepEqual(body, { clientSoftwareName: 'librdkafka', clientSoftwareVersion: '2.0.2' });
});

test('Metadata v4: the produced topic, auto-create allowed', () => {
  const { header, body } = load<MetadataRequest>('librdkafka-metadata-v4.bin', 3, 4);
  assert.equal(header.clientId, 'rdkafka');
  assert.deepEqual(
    body.topics?.map((t) => t.name),
    [TOPIC],
  );
  assert.equal(body.allowAutoTopicCreation, true);
});

for (const [codec, id] of CODECS) {
  test(`Produce v7 (${codec}): acks=all, one v2 batch whose records are what kcat sent`, async () => {
    const { header, body } = load<ProduceRequest>(`librdkafka-produce-v7-${codec}.bin`, 0, 7);
    assert.equal(header.clientId, 'rdkafka');
    assert.equal(body.transactionalId, null);
    assert.equal(body.acks, -1);
    assert.equal(body.timeoutMs, 30000);
    assert.equal(body.topicData.length, 1);
    assert.equal(body.topicData[0]!.name, TOPIC);
    const [partition] = body.topicData[0]!.partitionData;
    assert.equal(partition!.index, 0);
    const records = partition!.records;
    assert.ok(records !== null);
    const batch = assertValidBatch(records, 0);
    assert.equal(compressionOf(batch.attributes), id);
    assert.equal(batch.recordCount, 3);
    assert.equal(batch.producerId, -1n); // not idempotent
    assert.equal(batch.baseOffset, 0n);
    const decoded = await decodeRecords(records);
    assert.deepEqual(
      decoded.map((r) => ({
        offset: r.offset,
        key: r.key?.toString(),
        value: r.value?.toString(),
        headers: r.headers.map((h) => [h.key, h.value?.toString()]),
      })),
      [1, 2, 3].map((i) => ({
        offset: BigInt(i - 1),
        key: `key-${i}`,
        value: value(i),
        headers: [
          ['source', 'kcat'],
          ['trace', 'golden'],
        ],
      })),
    );
  });
}
