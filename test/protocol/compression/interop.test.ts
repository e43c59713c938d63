// Codec interoperability with the other Node Kafka clients, in-process: @platformatic/kafka's
// lz4 (frame) and snappy (raw) codecs, and kafkajs's built-in gzip codec (kafkajs 2.2.4 ships
// no lz4/snappy; those are plugins). librdkafka interop is covered by the kcat fixtures and the
// kcat consume test in test/protocol/record-batch.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { describe, test } from 'node:test';
import { compressionsAlgorithms } from '@platformatic/kafka';
import { compress, compressSync, decompress } from '../../../src/protocol/compression/index.js';

const require = createRequire(import.meta.url);
const kafkajsGzip: {
  compress(e: { buffer: Buffer }): Promise<Buffer>;
  decompress(b: Buffer): Promise<Buffer>;
} = require('kafkajs/src/protocol/message/compression/gzip.js');

const DATA = Buffer.from(Array.from({ length: 3000 }, (_, i) => `msg ${i % 50} `).join(''));

describe('@platformatic/kafka 1.35.0', () => {
  for (const codec of ['lz4', 'snappy'] as const) {
    test(`${codec}: theirs → ours and ours → theirs`, async () => {
      const theirs = compressionsAlgorithms[codec].compressSync(DATA) as Buffer;
      assert.deepEqual(await decompress(codec, theirs), DATA);
      assert.deepEqual(
        Buffer.from(compressionsAlgorithms[codec].decompressSync(compressSync(codec, DATA)) as Buffer),
        DATA,
      );
    });
  }
});

test('kafkajs 2.2.4 gzip: theirs → ours and ours → theirs', async () => {
  const codec = kafkajsGzip;
  assert.deepEqual(await decompress('gzip', await codec.compress({ buffer: DATA })), DATA);
  assert.deepEqual(await codec.decompress(await compress('gzip', DATA)), DATA);
});
