// Fetch v0-3 against a real broker, as Kafka 3.9 answers it: the stored v2 batches written by a
// modern client (our Producer) are down-converted to magic 0 (v0-1) or magic 1 (v2-3) with
// their compression, read back by the legacy decoder; markers dropped (aborted records stay:
// these versions read uncommitted); message.downconversion.enable; zstd topics before v10.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Producer } from '../../src/client/producer/producer.js';
import { fetchApi } from '../../src/protocol/messages/generated/fetch.js';
import {
  decodeLegacyMessageSet,
  encodeRecordBatch,
  encodeRecordBatchSync,
  iterateBatches,
} from '../../src/protocol/record-batch/index.js';
import { startTestBroker, type TestBroker } from '../../src/testkit/index.js';
import { produceLegacy } from './support/legacy.js';
import { RawClient } from './support/raw-client.js';
import { createTopic, fetchAll, fetchOnce, fetchRequest, produce } from './support/wire.js';

let broker: TestBroker;
let c: RawClient;

before(async () => {
  broker = await startTestBroker();
  c = await RawClient.connect(broker.port);
});
after(async () => {
  c.close();
  await broker.close();
});

const CODECS = ['none', 'gzip', 'snappy', 'lz4'] as const;

/** Every record a Fetch of `version` returns from `from` (legacy decoding), following offsets. */
async function fetchLegacy(version: number, topic: string, from = 0n, partitionMaxBytes = 1 << 20) {
  const out: { offset: bigint; timestamp: bigint; key: string | null; value: string | null }[] = [];
  let offset = from;
  for (let i = 0; i < 1000; i++) {
    const p = await fetchOnce(c, topic, 0, offset, { version, partitionMaxBytes });
    assert.equal(p.errorCode, 0, `v${version} fetch error ${p.errorCode}`);
    const records = p.records ?? Buffer.alloc(0);
    const magic = version <= 1 ? 0 : 1;
    for (const e of iterateBatches(records))
      assert.equal(e.magic, magic, `v${version} answers magic ${magic}`);
    const decoded = (await decodeLegacyMessageSet(records)).filter((r) => r.offset >= offset);
    for (const r of decoded) {
      out.push({
        offset: r.offset,
        timestamp: r.timestamp,
        key: r.key?.toString() ?? null,
        value: r.value?.toString() ?? null,
      });
    }
    if (decoded.length === 0 || out.at(-1)!.offset + 1n >= p.highWatermark) return out;
    offset = out.at(-1)!.offset + 1n;
  }
  throw new Error('fetch did not progress');
}

describe('batches of a modern producer read by old fetchers', () => {
  for (const codec of CODECS) {
    test(`our Producer, ${codec}: Fetch v0-v3 see every record with its offset`, async () => {
      const topic = `down-${codec}`;
      assert.equal(await createTopic(c, topic), 0);
      const p = new Producer({
        bootstrapServers: broker.bootstrap,
        compressionType: codec,
        lingerMs: 5,
      });
      try {
        const sends: Promise<unknown>[] = [];
        for (let i = 0; i < 500; i++) {
          sends.push(
            p.send({
              topic,
              partition: 0,
              key: i % 10 === 0 ? null : `key-${i}`,
              value: i % 50 === 7 ? null : `value-${i} ${'x'.repeat(i % 40)}`,
              headers: { h: 'v' },
            }),
          );
        }
        await Promise.all(sends);
      } finally {
        await p.close();
      }
      const modern = await fetchAll(c, topic, 0);
      assert.equal(modern.length, 500);
      for (const version of [0, 1, 2, 3]) {
        const old = await fetchLegacy(version, topic);
        assert.deepEqual(
          old.map((r) => [r.offset, r.key, r.value]),
          modern.map((r) => [r.offset, r.key?.toString() ?? null, r.value?.toString() ?? null]),
          `v${version}`,
        );
        assert.deepEqual(
          old.map((r) => r.timestamp),
          modern.map((r) => (version <= 1 ? -1n : r.timestamp)),
          `v${version} timestamps`,
        );
      }
      // The codec survives the conversion.
      const raw = (await fetchOnce(c, topic, 0, 0n, { version: 2 })).records!;
      for (const e of iterateBatches(raw))
        assert.equal(raw.readInt8(e.position + 17) & 7, CODECS.indexOf(codec));
    });
  }

  test('transactions: markers are dropped, aborted records are delivered (no isolation before v4)', async () => {
    const topic = 'down-txn';
    assert.equal(await createTopic(c, topic), 0);
    const txn = new Producer({ bootstrapServers: broker.bootstrap, transactionalId: 'down-txn' });
    try {
      await txn.initTransactions();
      txn.beginTransaction();
      await txn.send({ topic, partition: 0, value: 'aborted' });
      await txn.abortTransaction();
      txn.beginTransaction();
      await txn.send({ topic, partition: 0, value: 'committed' });
      await txn.commitTransaction();
    } finally {
      await txn.close();
    }
    for (const version of [0, 2, 3]) {
      const old = await fetchLegacy(version, topic);
      assert.deepEqual(
        old.map((r) => [Number(r.offset), r.value]),
        [
          [0, 'aborted'],
          [2, 'committed'],
        ],
        `v${version}: offsets 1 and 3 are the markers`,
      );
    }
    const rc = await fetchOnce(c, topic, 0, 0n, { version: 11, isolationLevel: 1 });
    assert.equal(rc.abortedTransactions?.length, 1, 'read_committed (v4+) is told what to drop');
  });

  test('from the middle of a batch: uncompressed records below the offset are dropped, a wrapper is whole', async () => {
    const topic = 'down-middle';
    assert.equal(await createTopic(c, topic), 0);
    const rec = (i: number) => ({ value: Buffer.from(`m${i}`), timestamp: Date.now() });
    assert.equal((await produce(c, topic, 0, encodeRecordBatchSync([0, 1, 2, 3].map(rec)))).errorCode, 0);
    const gz = encodeRecordBatchSync([4, 5, 6].map(rec), { compression: 'gzip' });
    assert.equal((await produce(c, topic, 0, gz)).errorCode, 0);
    const plain = await decodeLegacyMessageSet((await fetchOnce(c, topic, 0, 2n, { version: 3 })).records!);
    assert.deepEqual(
      plain.map((r) => Number(r.offset)),
      [2, 3, 4, 5, 6],
    );
    const wrapped = await decodeLegacyMessageSet((await fetchOnce(c, topic, 0, 5n, { version: 1 })).records!);
    assert.deepEqual(
      wrapped.map((r) => Number(r.offset)),
      [4, 5, 6],
    );
  });

  test('the answers keep the old layouts (v0: no throttle time)', async () => {
    const topic = 'down-layout';
    assert.equal(await createTopic(c, topic), 0);
    const sizes: number[] = [];
    for (const version of [0, 1]) {
      c.sendRequest(
        fetchApi,
        version,
        fetchRequest(topic, { partition: 0, offset: 0n }, { maxBytes: 1 << 20 }),
      );
      sizes.push((await c.nextFrame())!.length);
    }
    // correlation 4 + topics 4 + name 2+n + partitions 4 + index 4 + error 2 + HW 8 + records 4
    const v0 = 4 + 4 + 2 + topic.length + 4 + 4 + 2 + 8 + 4;
    assert.deepEqual(sizes, [v0, v0 + 4]);
  });

  test('a long poll of an old fetcher is answered with converted records once they arrive', async () => {
    const topic = 'down-poll';
    assert.equal(await createTopic(c, topic), 0);
    const poll = fetchOnce(c, topic, 0, 0n, { version: 2, maxWaitMs: 10_000, minBytes: 1 });
    const other = await RawClient.connect(broker.port);
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(
      (await produce(other, topic, 0, encodeRecordBatchSync([{ value: Buffer.from('late') }]))).errorCode,
      0,
    );
    other.close();
    const p = await poll;
    assert.deepEqual(
      (await decodeLegacyMessageSet(p.records!)).map((r) => r.value!.toString()),
      ['late'],
    );
  });
});

describe('what Kafka refuses to old fetchers', () => {
  test('message.downconversion.enable=false: Fetch v0-3 get UNSUPPORTED_VERSION, v4+ are served', async () => {
    const topic = 'down-off';
    assert.equal(await createTopic(c, topic, 1, { 'message.downconversion.enable': 'false' }), 0);
    assert.equal(
      (await produce(c, topic, 0, encodeRecordBatchSync([{ value: Buffer.from('v') }]))).errorCode,
      0,
    );
    for (const version of [0, 1, 2, 3]) {
      const p = await fetchOnce(c, topic, 0, 0n, { version });
      assert.equal(p.errorCode, 35, `v${version}`);
      assert.equal(p.records?.length ?? 0, 0);
    }
    const v4 = await fetchOnce(c, topic, 0, 0n, { version: 4 });
    assert.equal(v4.errorCode, 0);
    assert.ok((v4.records?.length ?? 0) > 0);
  });

  test('compression.type=zstd: UNSUPPORTED_COMPRESSION_TYPE before Fetch v10', async () => {
    const topic = 'down-zstd-topic';
    assert.equal(await createTopic(c, topic, 1, { 'compression.type': 'zstd' }), 0);
    const z = await encodeRecordBatch([{ value: Buffer.from('z') }], { compression: 'zstd' });
    assert.equal((await produce(c, topic, 0, z)).errorCode, 0);
    for (const version of [0, 3, 4, 9])
      assert.equal((await fetchOnce(c, topic, 0, 0n, { version })).errorCode, 76);
    assert.equal((await fetchOnce(c, topic, 0, 0n, { version: 10 })).errorCode, 0);
  });

  test('a zstd batch of a producer-compression topic cannot be down-converted', async () => {
    const topic = 'down-zstd-batch';
    assert.equal(await createTopic(c, topic), 0);
    assert.equal((await produceLegacy(c, 2, topic, Buffer.alloc(0))).errorCode, 0);
    const z = await encodeRecordBatch([{ value: Buffer.from('z') }], { compression: 'zstd' });
    assert.equal((await produce(c, topic, 0, z)).errorCode, 0);
    assert.equal((await fetchOnce(c, topic, 0, 0n, { version: 3 })).errorCode, 76);
    assert.equal(
      (await fetchOnce(c, topic, 0, 0n, { version: 4 })).errorCode,
      0,
      'v4-9 only refuse zstd *topics*',
    );
  });
});
