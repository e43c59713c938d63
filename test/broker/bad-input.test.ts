// Hostile and malformed input from raw sockets against a real broker: each case gets the
// right error code or a closed connection, the broker keeps serving, and nothing invalid
// reaches the log.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { encodeRequest } from '../../src/protocol/messages/frame.js';
import { apiVersionsApi } from '../../src/protocol/messages/generated/api-versions.js';
import { produceApi } from '../../src/protocol/messages/generated/produce.js';
import {
  encodeLegacyMessageSetSync,
  encodeRecordBatch,
  encodeRecordBatchSync,
} from '../../src/protocol/record-batch/index.js';
import { startTestBroker, type TestBroker } from '../../src/testkit/index.js';
import { RawClient } from './support/raw-client.js';
import { createTopic, fetchAll, produce } from './support/wire.js';

let broker: TestBroker;
let control: RawClient;

before(async () => {
  broker = await startTestBroker({ overrides: { 'message.max.bytes': 10_000 } });
  control = await RawClient.connect(broker.port);
  assert.equal(await createTopic(control, 'victim'), 0);
  assert.equal(
    await createTopic(control, 'strict-time', 1, { 'message.timestamp.before.max.ms': '60000' }),
    0,
  );
});
after(async () => {
  control.close();
  await broker.close();
});

const good = (): Buffer => encodeRecordBatchSync([{ key: Buffer.from('k'), value: Buffer.from('v') }]);

async function stillServing(): Promise<void> {
  const r = await control.request(apiVersionsApi, 3, {
    clientSoftwareName: 'test',
    clientSoftwareVersion: '1.0',
  });
  assert.equal(r.errorCode, 0);
}

async function expectClosed(bytes: Buffer | Buffer[]): Promise<void> {
  const c = await RawClient.connect(broker.port);
  c.send(bytes);
  assert.equal(await c.nextFrame(3000), null, 'no response');
  assert.equal(await c.waitClosed(3000), true, 'connection closed');
  await stillServing();
}

function sized(body: Buffer, size = body.length): Buffer {
  const b = Buffer.alloc(4 + body.length);
  b.writeInt32BE(size, 0);
  body.copy(b, 4);
  return b;
}

test('garbage bytes (an HTTP request) close the connection', () =>
  expectClosed(Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n\r\n')));
test('size prefix 2^31-1 closes the connection', () => expectClosed(sized(Buffer.alloc(0), 0x7fffffff)));
test('negative size prefix closes the connection', () => expectClosed(sized(Buffer.alloc(0), -5)));
test('truncated header closes the connection', () => expectClosed(sized(Buffer.from([0, 18, 0]))));
test('unknown API key closes the connection', () => {
  const h = Buffer.alloc(10);
  h.writeInt16BE(9999, 0);
  h.writeInt16BE(0, 2);
  h.writeInt32BE(1, 4);
  h.writeInt16BE(-1, 8);
  return expectClosed(sized(h));
});
test('unsupported Metadata version closes the connection', () => {
  const h = Buffer.alloc(10);
  h.writeInt16BE(3, 0);
  h.writeInt16BE(99, 2);
  h.writeInt32BE(1, 4);
  h.writeInt16BE(-1, 8);
  return expectClosed(sized(h));
});
test('a Produce body cut short closes the connection', () => {
  const frame = Buffer.concat(
    encodeRequest(produceApi, 9, 1, 'x', {
      transactionalId: null,
      acks: 1,
      timeoutMs: 1000,
      topicData: [{ name: 'victim', partitionData: [{ index: 0, records: good() }] }],
    }),
  );
  const cut = frame.subarray(4, frame.length - 30);
  return expectClosed(sized(cut));
});

test('ApiVersions with an unknown version gets the KIP-511 v0 answer', async () => {
  const c = await RawClient.connect(broker.port);
  const h = Buffer.alloc(13);
  h.writeInt16BE(18, 0);
  h.writeInt16BE(77, 2);
  h.writeInt32BE(42, 4);
  h.writeInt16BE(-1, 8); // null client id
  h.writeInt8(0, 10); // empty header tags
  h.writeInt16BE(0, 11); // whatever body
  c.send(sized(h));
  const f = (await c.nextFrame())!;
  assert.equal(f.readInt32BE(0), 42, 'correlation id, header v0');
  assert.equal(f.readInt16BE(4), 35, 'UNSUPPORTED_VERSION');
  assert.equal(f.readInt32BE(6), 1, 'one api key, classic array');
  assert.deepEqual([f.readInt16BE(10), f.readInt16BE(12), f.readInt16BE(14)], [18, 0, 4]);
  assert.equal(f.length, 16, 'v0 body only');
  c.close();
});

test('batch errors get the right codes and never reach the log', async () => {
  const c = await RawClient.connect(broker.port);
  const crc = good();
  crc[crc.length - 1]! ^= 0xff;
  assert.equal((await produce(c, 'victim', 0, crc)).errorCode, 2, 'CRC mismatch → CORRUPT_MESSAGE');
  const lie = encodeRecordBatchSync([{ value: Buffer.from('a') }, { value: Buffer.from('b') }]);
  lie.writeInt32BE(5, 57); // RecordsCount says 5 (CRC then also fails, either way rejected)
  assert.ok(
    [2, 87].includes((await produce(c, 'victim', 0, lie)).errorCode),
    'lying count → CORRUPT_MESSAGE/INVALID_RECORD',
  );
  const big = encodeRecordBatchSync([{ value: Buffer.alloc(20_000, 1) }]);
  const tooLarge = await produce(c, 'victim', 0, big);
  assert.equal(tooLarge.errorCode, 10, 'above message.max.bytes → MESSAGE_TOO_LARGE');
  assert.match(tooLarge.errorMessage ?? '', /max.message.bytes/);
  const two = Buffer.concat([good(), good()]);
  assert.equal((await produce(c, 'victim', 0, two)).errorCode, 87, 'two batches → INVALID_RECORD');
  assert.equal((await produce(c, 'victim', 0, good(), 5)).errorCode, 21, 'acks=5 → INVALID_REQUIRED_ACKS');
  const legacyBadCrc = encodeLegacyMessageSetSync(
    [{ offset: 0n, timestamp: BigInt(Date.now()), key: null, value: Buffer.from('v') }],
    {
      magic: 1,
    },
  );
  legacyBadCrc[legacyBadCrc.length - 1]! ^= 1;
  assert.equal(
    (await produce(c, 'victim', 0, legacyBadCrc, 1, 2)).errorCode,
    2,
    'Produce v2, legacy message with a bad CRC → CORRUPT_MESSAGE',
  );
  const zstd = await encodeRecordBatch([{ value: Buffer.from('z') }], { compression: 'zstd' });
  assert.equal(
    (await produce(c, 'victim', 0, zstd, 1, 5)).errorCode,
    76,
    'zstd before v7 → UNSUPPORTED_COMPRESSION_TYPE',
  );
  const old = encodeRecordBatchSync([{ value: Buffer.from('old') }], { timestamp: Date.now() - 3_600_000 });
  assert.equal(
    (await produce(c, 'strict-time', 0, old)).errorCode,
    32,
    'timestamp too old → INVALID_TIMESTAMP',
  );
  assert.equal((await produce(c, 'victim', 7, good())).errorCode, 3, 'unknown partition');
  assert.equal(
    (await produce(c, 'no-such-topic', 0, good())).errorCode,
    3,
    'unknown topic (no auto-create on produce)',
  );
  assert.equal((await fetchAll(c, 'victim', 0)).length, 0, 'nothing invalid reached the log');
  assert.equal(
    (await produce(c, 'victim', 0, good())).baseOffset,
    0n,
    'a good batch after all that is offset 0',
  );
  c.close();
});

test('acks=0: no response on success, connection closed on error', async () => {
  const c = await RawClient.connect(broker.port);
  c.sendRequest(produceApi, 9, {
    transactionalId: null,
    acks: 0,
    timeoutMs: 1000,
    topicData: [{ name: 'victim', partitionData: [{ index: 0, records: good() }] }],
  });
  const v = c.sendRequest(apiVersionsApi, 0, { clientSoftwareName: '', clientSoftwareVersion: '' });
  const f = (await c.nextFrame())!;
  assert.equal(f.readInt32BE(0), v, 'the next answer is the ApiVersions one');
  const bad = good();
  bad[bad.length - 1]! ^= 1;
  c.sendRequest(produceApi, 9, {
    transactionalId: null,
    acks: 0,
    timeoutMs: 1000,
    topicData: [{ name: 'victim', partitionData: [{ index: 0, records: bad }] }],
  });
  assert.equal(await c.waitClosed(), true);
  await stillServing();
});
