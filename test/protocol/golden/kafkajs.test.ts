// Requests from kafkajs 2.2.4, as captured by tools/capture-golden.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type {
  ApiVersionsRequest,
  MetadataRequest,
  ProduceRequest,
} from '../../../src/protocol/messages/index.js';
import { assertValidBatch, compressionOf, decodeRecords } from '../../../src/protocol/record-batch/index.js';
import { load } from './load.js';

const CLIENT_ID = 'golden-kafkajs';
const TOPIC = 'golden-kafkajs';

test('ApiVersions v2: empty body, correlation ids start at 0', () => {
  const { header, body } = load<ApiVersionsRequest>('kafkajs-api-versions-v2.bin', 18, 2);
  assert.equal(header.clientId, CLIENT_ID);
  assert.equal(header.correlationId, 0);
  // v0-2 bodies are empty; the v3 fields read as their defaults.
  assert.deepEqual(body, { clientSoftwareName: '', clientSoftwareVersion: '' });
});

test('Metadata v6: the topic, auto-create allowed', () => {
  const { header, body } = load<MetadataRequest>('kafkajs-metadata-v6.bin', 3, 6);
  assert.equal(header.clientId, CLIENT_ID);
  assert.equal(header.correlationId, 1);
  assert.deepEqual(
    body.topics?.map((t) => t.name),
    [TOPIC],
  );
  assert.equal(body.allowAutoTopicCreation, true);
});

test('Produce v7: keyed record with headers, null key, null value (tombstone)', async () => {
  const { header, body } = load<ProduceRequest>('kafkajs-produce-v7.bin', 0, 7);
  assert.equal(header.clientId, CLIENT_ID);
  assert.equal(body.transactionalId, null);
  assert.equal(body.acks, -1);
  assert.equal(body.timeoutMs, 30000);
  assert.equal(body.topicData[0]!.name, TOPIC);
  const partition = body.topicData[0]!.partitionData[0]!;
  assert.equal(partition.index, 0);
  assert.ok(partition.records !== null);
  const batch = assertValidBatch(partition.records, 0);
  assert.equal(compressionOf(batch.attributes), 0);
  assert.equal(batch.recordCount, 3);
  const records = await decodeRecords(partition.records);
  assert.deepEqual(
    records.map((r) => ({ offset: r.offset, key: r.key, value: r.value, headers: r.headers })),
    [
      {
        offset: 0n,
        key: Buffer.from('k1'),
        value: Buffer.from('v1'),
        headers: [
          { key: 'h1', value: Buffer.from('x') },
          { key: 'h2', value: Buffer.from([0, 1, 2]) },
        ],
      },
      { offset: 1n, key: null, value: Buffer.from('v2'), headers: [] },
      { offset: 2n, key: Buffer.from('k3'), value: null, headers: [] },
    ],
  );
});
