// Hand-encoded frames (worked out from the schemas and CLIENTS.md §1, not from our writer) and
// real client frames captured by tools/capture-golden: the generator is checked against the
// spec and real clients, not only against itself.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  API_BY_KEY,
  apiVersionsApi,
  consumerGroupHeartbeatApi,
  decodeRequestHeader,
  decodeResponse,
  encodeRequest,
  encodeResponse,
  fetchApi,
  metadataApi,
  produceApi,
} from '../../../src/protocol/messages/index.js';
import { Reader } from '../../../src/protocol/primitives/reader.js';
import { Writer } from '../../../src/protocol/primitives/writer.js';
import { repoFile } from '../../support/repo.js';

const h = (s: string) => Buffer.from(s.replace(/\s+/g, ''), 'hex');
const cat = (chunks: Buffer[]) => Buffer.concat(chunks);

const API_VERSIONS_RESPONSE_V3 = {
  errorCode: 0,
  apiKeys: [
    { apiKey: 0, minVersion: 0, maxVersion: 11 },
    { apiKey: 18, minVersion: 0, maxVersion: 4 },
  ],
  throttleTimeMs: 0,
  supportedFeatures: [{ name: 'f', minVersion: 1, maxVersion: 2 }],
  finalizedFeaturesEpoch: 7n,
  finalizedFeatures: [],
  zkMigrationReady: true,
};

test('ApiVersions v0 request and response', () => {
  const req = encodeRequest(apiVersionsApi, 0, 1, 'c', { clientSoftwareName: '', clientSoftwareVersion: '' });
  assert.ok(cat(req).equals(h('0000000b 0012 0000 00000001 0001 63')));
  const body = { ...API_VERSIONS_RESPONSE_V3, apiKeys: [{ apiKey: 18, minVersion: 0, maxVersion: 3 }] };
  const res = cat(encodeResponse(apiVersionsApi, 0, 5, body));
  const want = h('00000010 00000005 0000 00000001 0012 0000 0003');
  assert.ok(res.equals(want), res.toString('hex'));
  const back = decodeResponse(apiVersionsApi, 0, res.subarray(4));
  assert.equal(back.correlationId, 5);
  assert.deepEqual(back.body.apiKeys, body.apiKeys);
  assert.equal(back.body.finalizedFeaturesEpoch, -1n, 'absent field reads as its schema default');
});

test('ApiVersions v3 request (librdkafka bytes) and response with tagged fields', () => {
  const req = cat(
    encodeRequest(apiVersionsApi, 3, 1, 'rdkafka', {
      clientSoftwareName: 'librdkafka',
      clientSoftwareVersion: '2.0.2',
    }),
  );
  assert.ok(req.equals(readFileSync(repoFile('test/fixtures/golden/librdkafka-api-versions-v3.bin'))));
  // Response header v0 even though v3 is flexible; tags 0 (array), 1 (int64) and 3 (bool) set,
  // emitted in ascending order; FinalizedFeatures (tag 2) is at its default and omitted.
  const want = h(`
    00000005
    0000
    03  0000 0000 000b 00  0012 0000 0004 00
    00000000
    03
      00 08  02 02 66 0001 0002 00
      01 08  0000000000000007
      03 01  01`);
  const res = cat(encodeResponse(apiVersionsApi, 3, 5, API_VERSIONS_RESPONSE_V3));
  assert.ok(res.subarray(4).equals(want), res.toString('hex'));
  assert.equal(res.readInt32BE(0), want.length);
  assert.deepEqual(decodeResponse(apiVersionsApi, 3, res.subarray(4)).body, API_VERSIONS_RESPONSE_V3);
  // Unknown tags are skipped: insert tag 9 (3 bytes) between tags 1 and 3.
  const withUnknown = h(`
    00000005 0000 03 0000 0000 000b 00 0012 0000 0004 00 00000000
    04 00 08 02 02 66 0001 0002 00  01 08 0000000000000007  09 03 aabbcc  03 01 01`);
  assert.deepEqual(decodeResponse(apiVersionsApi, 3, withUnknown).body, API_VERSIONS_RESPONSE_V3);
});

const METADATA_REQUEST = {
  topics: [],
  allowAutoTopicCreation: true,
  includeClusterAuthorizedOperations: false,
  includeTopicAuthorizedOperations: false,
};

test('Metadata v0 request with topics=[] and v12 with topics=null', () => {
  const v0 = cat(encodeRequest(metadataApi, 0, 1, 'c', METADATA_REQUEST));
  assert.equal(v0.toString('hex'), '0000000f' + '0003000000000001000163' + '00000000');
  const v12 = cat(encodeRequest(metadataApi, 12, 1, 'c', { ...METADATA_REQUEST, topics: null }));
  // Header v2: ClientId stays a classic int16 string, then an empty tag section.
  assert.equal(v12.toString('hex'), '00000010' + '0003000c00000001000163' + '00' + '00010000');
  const { header, reader } = decodeRequestHeader(v12.subarray(4));
  assert.deepEqual(header, { requestApiKey: 3, requestApiVersion: 12, correlationId: 1, clientId: 'c' });
  assert.deepEqual(metadataApi.readRequest(reader, 12), { ...METADATA_REQUEST, topics: null });
});

test('Produce v3 request with records', () => {
  const body = {
    transactionalId: null,
    acks: -1,
    timeoutMs: 30000,
    topicData: [{ name: 't', partitionData: [{ index: 0, records: h('010203') }] }],
  };
  const w = new Writer();
  produceApi.writeRequest(w, 3, body);
  assert.equal(
    w.toBuffer().toString('hex'),
    'ffff' + 'ffff' + '00007530' + '00000001' + '000174' + '00000001' + '00000000' + '00000003010203',
  );
  const back = produceApi.readRequest(new Reader(w.toBuffer()), 3);
  assert.deepEqual(back, body);
});

test('Fetch v12 response: tagged struct CurrentLeader inside a partition', () => {
  const body = {
    throttleTimeMs: 0,
    errorCode: 0,
    sessionId: 0,
    responses: [
      {
        topic: 't',
        topicId: 'AAAAAAAAAAAAAAAAAAAAAA',
        partitions: [
          {
            partitionIndex: 0,
            errorCode: 6,
            highWatermark: 10n,
            lastStableOffset: -1n,
            logStartOffset: 0n,
            divergingEpoch: { epoch: -1, endOffset: -1n },
            currentLeader: { leaderId: 2, leaderEpoch: 5 },
            snapshotId: { endOffset: -1n, epoch: -1 },
            abortedTransactions: null,
            preferredReadReplica: -1,
            records: null,
          },
        ],
      },
    ],
    nodeEndpoints: [],
  };
  const want = h(`
    00000000 0000 00000000
    02 02 74
      02 00000000 0006 000000000000000a ffffffffffffffff 0000000000000000 00 ffffffff 00
         01 01 09 00000002 00000005 00
      00
    00`);
  const w = new Writer();
  fetchApi.writeResponse(w, 12, body);
  assert.ok(w.toBuffer().equals(want), w.toBuffer().toString('hex'));
  assert.deepEqual(fetchApi.readResponse(new Reader(want), 12), body);
});

test('nullable struct: ConsumerGroupHeartbeat response Assignment (-1 = null, 1 = present)', () => {
  const base = {
    throttleTimeMs: 0,
    errorCode: 0,
    errorMessage: null,
    memberId: 'm',
    memberEpoch: 1,
    heartbeatIntervalMs: 3000,
  };
  const uuid = Buffer.alloc(16, 0x11);
  const present = {
    ...base,
    assignment: { topicPartitions: [{ topicId: uuid.toString('base64url'), partitions: [7] }] },
  };
  const head = '00000000 0000 00 026d 00000001 00000bb8';
  for (const [value, tail] of [
    [{ ...base, assignment: null }, 'ff 00'],
    [present, `01 02 ${uuid.toString('hex')} 02 00000007 00 00 00`],
  ] as const) {
    const w = new Writer();
    consumerGroupHeartbeatApi.writeResponse(w, 0, value);
    assert.ok(w.toBuffer().equals(h(head + tail)), w.toBuffer().toString('hex'));
    assert.deepEqual(consumerGroupHeartbeatApi.readResponse(new Reader(h(head + tail)), 0), value);
  }
});

interface GoldenFrame {
  file: string;
  apiKey: number;
  apiVersion: number;
  correlationId: number;
  clientId: string | null;
}

test('real client request frames decode and re-encode byte for byte', () => {
  const dir = repoFile('test/fixtures/golden/');
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as {
    frames: GoldenFrame[];
  };
  assert.ok(manifest.frames.length >= 10);
  for (const f of manifest.frames) {
    const frame = readFileSync(join(dir, f.file));
    assert.equal(frame.readInt32BE(0), frame.length - 4, f.file);
    const { header, reader } = decodeRequestHeader(frame.subarray(4));
    assert.deepEqual(header, {
      requestApiKey: f.apiKey,
      requestApiVersion: f.apiVersion,
      correlationId: f.correlationId,
      clientId: f.clientId,
    });
    const api = API_BY_KEY[f.apiKey]!;
    const body = api.readRequest(reader, f.apiVersion);
    assert.equal(reader.remaining, 0, `${f.file}: body fully consumed`);
    const again = cat(encodeRequest(api, f.apiVersion, f.correlationId, f.clientId, body));
    assert.ok(again.equals(frame), `${f.file}: re-encoded frame differs`);
  }
});
