// Requests from kafka-python 2.0.2's version probe, as captured by tools/capture-golden: it
// writes ApiVersions v0 and, without waiting for the answer, Metadata v0 on the same socket.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ApiVersionsRequest, MetadataRequest } from '../../../src/protocol/messages/index.js';
import { decodeFrame, fixture, load, manifest } from './load.js';

const CLIENT_ID = 'kafka-python-2.0.2';

test('ApiVersions v0 (correlation 1) and Metadata v0 for all topics (correlation 2)', () => {
  const av = load<ApiVersionsRequest>('kafka-python-api-versions-v0.bin', 18, 0);
  assert.equal(av.header.clientId, CLIENT_ID);
  assert.equal(av.header.correlationId, 1);
  const md = load<MetadataRequest>('kafka-python-metadata-v0.bin', 3, 0);
  assert.equal(md.header.clientId, CLIENT_ID);
  assert.equal(md.header.correlationId, 2);
  // v0 has no null array: an empty list means "all topics".
  assert.deepEqual(md.body.topics, []);
});

test('both requests arrived pipelined in a single socket read', () => {
  const m = manifest();
  assert.equal(m.kafkaPython.pipelinedInOneRead, true);
  const frames = m.frames.filter((f) => f.client === 'kafka-python');
  assert.equal(frames.length, 2);
  assert.equal(frames[0]!.connection, frames[1]!.connection);
  assert.deepEqual(
    frames.map((f) => [f.firstRead, f.lastRead]),
    [
      [0, 0],
      [0, 0],
    ],
  );
  const read = fixture('kafka-python-pipelined-read.bin');
  const first = fixture('kafka-python-api-versions-v0.bin');
  const second = fixture('kafka-python-metadata-v0.bin');
  assert.deepEqual(read, Buffer.concat([first, second]));
  // Split the read the way a broker must: by size prefix, then decode each frame in order.
  const size1 = 4 + read.readInt32BE(0);
  const a = decodeFrame<ApiVersionsRequest>(read.subarray(0, size1), 18, 0);
  const b = decodeFrame<MetadataRequest>(read.subarray(size1), 3, 0);
  assert.deepEqual([a.header.correlationId, b.header.correlationId], [1, 2]);
});
