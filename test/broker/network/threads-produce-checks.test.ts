// Produce's batch checks in the network threads (`num.network.threads` > 1, `produce-precheck.ts`):
// real clients' batches are checked there, appended without a second check on the event loop and
// read back; hostile batches get exactly the single-thread broker's per-partition error codes
// (the same requests against both brokers) and the broker goes on serving.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Kafka, logLevel } from 'kafkajs';
import { Producer } from '../../../src/client/index.js';
import { encodeRequest } from '../../../src/protocol/messages/frame.js';
import { produceApi } from '../../../src/protocol/messages/generated/produce.js';
import {
  CRC_OFFSET,
  computeBatchCrc,
  encodeRecordBatchSync,
  RECORDS_OFFSET,
} from '../../../src/protocol/record-batch/index.js';
import { batchesCheckedByNetworkThreads } from '../../../src/storage/log-validator.js';
import { startTestBroker, type TestBroker } from '../../../src/testkit/index.js';
import { confluentRoundTrip, kcatRoundTrip } from '../../interop/support/client-roundtrips.js';
import { scaled } from '../../support/timeouts.js';
import { RawClient } from '../support/raw-client.js';
import { createTopic, fetchAll } from '../support/wire.js';

let threaded: TestBroker;
let single: TestBroker;
before(async () => {
  threaded = await startTestBroker({ overrides: { 'num.network.threads': 2, 'num.partitions': 2 } });
  single = await startTestBroker({ overrides: { 'num.network.threads': 1, 'num.partitions': 2 } });
});
after(async () => {
  await threaded?.close();
  await single?.close();
});

const good = (value: string): Buffer =>
  encodeRecordBatchSync([{ key: Buffer.from('k'), value: Buffer.from(value) }]);

const withCrc = (b: Buffer): Buffer => {
  b.writeUInt32BE(computeBatchCrc(b, 0), CRC_OFFSET);
  return b;
};

/** Each hostile records field, made fresh per request (the log stamps batches in place). */
const HOSTILE: Record<string, () => Buffer> = {
  'corrupted CRC': () => {
    const b = good('crc');
    b[b.length - 1]! ^= 0xff;
    return b;
  },
  'truncated batch': () => good('truncated').subarray(0, 50),
  'two batches in one partition': () => Buffer.concat([good('one'), good('two')]),
  'a control batch from a client': () =>
    encodeRecordBatchSync([{ key: Buffer.alloc(4), value: Buffer.alloc(6) }], {
      isControl: true,
      transactional: true,
      producerId: 1,
      producerEpoch: 0,
    }),
  'bad record framing (valid CRC)': () => {
    const b = good('framing');
    b[RECORDS_OFFSET] = 0x7e; // the record's length varint: 63, beyond the batch
    return withCrc(b);
  },
  'a record count that lies (valid CRC)': () => {
    const b = encodeRecordBatchSync([{ value: Buffer.from('a') }, { value: Buffer.from('b') }]);
    b.writeInt32BE(1, 57);
    b.writeInt32BE(0, 23); // LastOffsetDelta 0: one record said, two there
    return withCrc(b);
  },
};
const VERSIONS = [3, 7, 9, 12];

/** Partition 0 gets the hostile batch, partition 1 a good one, in one request: both codes. */
async function codes(broker: TestBroker, topic: string): Promise<Record<string, number[]>> {
  const c = await RawClient.connect(broker.port);
  assert.equal(await createTopic(c, topic, 2), 0);
  const out: Record<string, number[]> = {};
  for (const version of VERSIONS) {
    for (const [name, make] of Object.entries(HOSTILE)) {
      const r = await c.request(produceApi, version, {
        transactionalId: null,
        acks: 1,
        timeoutMs: 5000,
        topicData: [
          {
            name: topic,
            partitionData: [
              { index: 0, records: make() },
              { index: 1, records: good(`${name} v${version}`) },
            ],
          },
        ],
      });
      out[`v${version} ${name}`] = r.responses[0]!.partitionResponses.map((p) => p.errorCode);
    }
  }
  c.close();
  return out;
}

test('hostile batches: the same per-partition codes as the single-thread broker; the broker goes on', async () => {
  const before = batchesCheckedByNetworkThreads();
  const threadedCodes = await codes(threaded, 'hostile');
  const skipped = batchesCheckedByNetworkThreads() - before;
  const singleCodes = await codes(single, 'hostile');
  assert.deepEqual(threadedCodes, singleCodes);
  for (const [name, [bad, ok]] of Object.entries(threadedCodes)) {
    assert.notEqual(bad, 0, `${name}: refused`);
    assert.equal(ok, 0, `${name}: the good partition of the same request appended`);
  }
  const requests = VERSIONS.length * Object.keys(HOSTILE).length;
  assert.equal(skipped, requests, 'every good batch was checked in the network thread, no bad one');
  for (const broker of [threaded, single]) {
    const c = await RawClient.connect(broker.port);
    assert.equal((await fetchAll(c, 'hostile', 0)).length, 0, 'nothing hostile reached the log');
    assert.equal((await fetchAll(c, 'hostile', 1)).length, requests);
    c.close();
  }
});

test('a Produce whose records field is cut closes that connection on both brokers', async () => {
  for (const broker of [threaded, single]) {
    const frame = Buffer.concat(
      encodeRequest(produceApi, 9, 1, 'x', {
        transactionalId: null,
        acks: 1,
        timeoutMs: 1000,
        topicData: [{ name: 'hostile', partitionData: [{ index: 0, records: good('cut') }] }],
      }),
    );
    const cut = frame.subarray(0, frame.length - 30);
    cut.writeInt32BE(cut.length - 4, 0);
    const c = await RawClient.connect(broker.port);
    c.send(cut);
    assert.equal(await c.nextFrame(3000), null, 'no response');
    assert.equal(await c.waitClosed(3000), true, 'connection closed');
    const after = await RawClient.connect(broker.port);
    assert.equal(await createTopic(after, 'after-cut'), 0, 'still serving');
    after.close();
  }
});

test('kcat, kafkajs, confluent-kafka and our client: checked in the thread, appended, read back', {
  timeout: scaled(240_000),
}, async () => {
  let mark = batchesCheckedByNetworkThreads();
  const checkedSince = (): number => {
    const n = batchesCheckedByNetworkThreads() - mark;
    mark += n;
    return n;
  };

  await kcatRoundTrip(
    threaded.bootstrap,
    'pc-kcat',
    Array.from({ length: 300 }, (_, i) => `kcat-${i}`),
  );
  assert.ok(checkedSince() > 0, 'kcat: batches checked in the network thread');

  const kafka = new Kafka({ brokers: [threaded.bootstrap], clientId: 'pc-kjs', logLevel: logLevel.NOTHING });
  const kp = kafka.producer();
  await kp.connect();
  for (let i = 0; i < 5; i++)
    await kp.send({
      topic: 'pc-kjs',
      messages: Array.from({ length: 20 }, (_, j) => ({ value: `kjs-${i}-${j}` })),
    });
  await kp.disconnect();
  const raw = await RawClient.connect(threaded.port);
  const kjsRecords = [...(await fetchAll(raw, 'pc-kjs', 0)), ...(await fetchAll(raw, 'pc-kjs', 1))];
  raw.close();
  assert.equal(kjsRecords.length, 100);
  assert.ok(checkedSince() >= 5, 'kafkajs: every send checked in the network thread');

  await confluentRoundTrip(threaded.bootstrap, 'pc-py', 2000, 'lz4');
  assert.ok(checkedSince() > 0, 'confluent-kafka (lz4): batches checked in the network thread');

  const back = await RawClient.connect(threaded.port);
  assert.equal(await createTopic(back, 'pc-ours', 1), 0);
  const producer = new Producer({ bootstrapServers: threaded.bootstrap, acks: 'all' });
  for (let i = 0; i < 50; i++) await producer.send({ topic: 'pc-ours', value: `ours-${i}` });
  await producer.close();
  assert.ok(checkedSince() >= 50, 'our client: every send checked in the network thread');
  const ours = await fetchAll(back, 'pc-ours', 0);
  back.close();
  assert.deepEqual(
    ours.map((r) => String(r.value)),
    Array.from({ length: 50 }, (_, i) => `ours-${i}`),
  );
});
