// Our producer against our broker, read back by independent clients (kcat/librdkafka and
// kafkajs): partitions match the Java client's murmur2 (and librdkafka's crc32 when chosen),
// every codec, headers, null keys/values, timestamps, ordering, acks 0/1/all, errors.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Kafka, logLevel } from 'kafkajs';
import { Admin, Producer } from '../../../src/client/index.js';
import { crc32Partition, murmur2Partition } from '../../../src/protocol/partitioners.js';
import { createTopics, kcatRead, kcatWrite, type TestBroker, testBroker } from './helpers.js';

let tb: TestBroker;
let bootstrap: string;
before(async () => {
  tb = await testBroker();
  bootstrap = tb.broker.bootstrap;
  await createTopics(bootstrap, [
    { name: 'keys10', numPartitions: 10 },
    { name: 'crc10', numPartitions: 10 },
    { name: 'sticky4', numPartitions: 4 },
  ]);
});
after(async () => {
  await tb.stop();
});

test('keyed records land on the Java client partitions (murmur2) and kcat reads them back', async () => {
  const producer = new Producer({ bootstrapServers: bootstrap, clientId: 'it-keys' });
  const keys = [
    '21',
    'foobar',
    'a-little-bit-long-string',
    'a-little-bit-longer-string',
    'abc',
    ...Array.from({ length: 50 }, (_, i) => `key-${i}`),
  ];
  const mds = await Promise.all(
    keys.map((k) => producer.send({ topic: 'keys10', key: k, value: `v-${k}`, headers: { h: k } })),
  );
  await producer.close();
  // CLIENTS.md §5.1 vectors: foobar → 6, abc → 7, 21 → 0 of 10 partitions.
  assert.equal(mds[1]!.partition, 6);
  assert.equal(mds[4]!.partition, 7);
  assert.equal(mds[0]!.partition, 0);
  for (const [i, k] of keys.entries()) assert.equal(mds[i]!.partition, murmur2Partition(k, 10));
  const read = await kcatRead(bootstrap, 'keys10');
  assert.equal(read.length, keys.length);
  for (const r of read) {
    assert.equal(r.partition, murmur2Partition(r.key, 10));
    assert.equal(r.value, `v-${r.key}`);
    assert.equal(r.headers, `h=${r.key}`);
    const md = mds[keys.indexOf(r.key)]!;
    assert.equal(BigInt(r.offset), md.offset);
  }
});

test('partitioner crc32 matches librdkafka (kcat -P) placement', async () => {
  const producer = new Producer({ bootstrapServers: bootstrap, partitioner: 'crc32' });
  const keys = ['foobar', 'abc', '21', 'key-1'];
  const mds = await Promise.all(keys.map((k) => producer.send({ topic: 'crc10', key: k, value: k })));
  await producer.close();
  assert.deepEqual(
    mds.map((m) => m.partition),
    [9, 8, 2, 8],
  );
  for (const [i, k] of keys.entries()) assert.equal(mds[i]!.partition, crc32Partition(k, 10));
  // librdkafka itself (kcat -P, default consistent_random partitioner) puts them on the same ones.
  const admin = new Admin({ bootstrapServers: bootstrap });
  await admin.createTopics([{ name: 'crc10-kcat', numPartitions: 10, replicationFactor: 1 }]);
  await admin.close();
  await kcatWrite(bootstrap, 'crc10-kcat', keys.map((k) => `${k}:${k}`).join('\n'));
  const read = await kcatRead(bootstrap, 'crc10-kcat');
  for (const r of read) assert.equal(r.partition, mds[keys.indexOf(r.key)]!.partition, `key ${r.key}`);
  assert.equal(read.length, keys.length);
});

test('null keys stick to a partition until batch.size bytes, then move', async () => {
  const producer = new Producer({ bootstrapServers: bootstrap, batchSize: 2048, lingerMs: 50 });
  const ps = [];
  for (let i = 0; i < 200; i++) ps.push(producer.send({ topic: 'sticky4', value: Buffer.alloc(100, i) }));
  const mds = await Promise.all(ps);
  await producer.close();
  let switches = 0;
  for (let i = 1; i < mds.length; i++) if (mds[i]!.partition !== mds[i - 1]!.partition) switches++;
  // ~20 KB total, switch every ~2 KB: about 10 runs, never one partition per record.
  assert.ok(switches >= 5 && switches <= 20, `switches: ${switches}`);
  assert.ok(new Set(mds.map((m) => m.partition)).size >= 2);
});

for (const codec of ['gzip', 'snappy', 'lz4', 'zstd'] as const) {
  test(`compression ${codec}: kcat decodes every record in order`, async () => {
    const producer = new Producer({ bootstrapServers: bootstrap, compressionType: codec, lingerMs: 20 });
    const ps = [];
    for (let i = 0; i < 300; i++)
      ps.push(
        producer.send({
          topic: `codec-${codec}`,
          key: i % 7 === 0 ? null : `k${i}`,
          value: `value-${i}-${'z'.repeat(i % 50)}`,
        }),
      );
    await Promise.all(ps);
    await producer.close();
    const read = await kcatRead(bootstrap, `codec-${codec}`);
    assert.equal(read.length, 300);
    for (const [i, r] of read.entries()) assert.equal(r.value, `value-${i}-${'z'.repeat(i % 50)}`);
  });
}

test('kafkajs reads our records: keys, null values, headers, timestamps', async () => {
  const producer = new Producer({ bootstrapServers: bootstrap, compressionType: 'gzip' });
  const ts = 1_700_000_000_123;
  await producer.send({
    topic: 'kjs',
    key: 'a',
    value: 'one',
    timestamp: ts,
    headers: [
      ['x', 'y'],
      ['x', Buffer.from([0, 1])],
    ],
  });
  await producer.send({ topic: 'kjs', key: 'b', value: null });
  producer.sendAndForget({ topic: 'kjs', key: null, value: 'three' });
  await producer.flush();
  await producer.close();
  const kafka = new Kafka({ brokers: [bootstrap], clientId: 'it-kjs', logLevel: logLevel.NOTHING });
  const consumer = kafka.consumer({ groupId: 'it-kjs-group' });
  await consumer.connect();
  await consumer.subscribe({ topic: 'kjs', fromBeginning: true });
  const got: { key: string | null; value: string | null; ts: string; headers: unknown }[] = [];
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('kafkajs read timed out')), 30000);
    consumer
      .run({
        eachMessage: async ({ message }) => {
          got.push({
            key: message.key?.toString() ?? null,
            value: message.value?.toString() ?? null,
            ts: message.timestamp,
            headers: message.headers,
          });
          if (got.length === 3) {
            clearTimeout(timer);
            resolve();
          }
        },
      })
      .catch(reject);
  });
  await consumer.disconnect();
  assert.deepEqual(
    got.map((g) => [g.key, g.value]),
    [
      ['a', 'one'],
      ['b', null],
      [null, 'three'],
    ],
  );
  assert.equal(got[0]!.ts, String(ts));
  const h = got[0]!.headers as Record<string, Buffer[]>;
  assert.equal(h['x']![0]!.toString(), 'y');
  assert.deepEqual([...h['x']![1]!], [0, 1]);
});

test('acks 0, 1 and all all deliver; acks=0 reports offset -1', async () => {
  for (const acks of [0, 1, 'all'] as const) {
    const producer = new Producer({ bootstrapServers: bootstrap, acks });
    const md = await producer.send({ topic: 'acks', value: `acks-${acks}` });
    await producer.close();
    if (acks === 0) assert.equal(md.offset, -1n);
    else assert.ok(md.offset >= 0n);
  }
  const read = await kcatRead(bootstrap, 'acks');
  assert.deepEqual(
    read.map((r) => r.value),
    ['acks-0', 'acks-1', 'acks-all'],
  );
});

test('an explicit partition out of range and an oversized record fail with typed errors', async () => {
  const producer = new Producer({ bootstrapServers: bootstrap, maxRequestSize: 10_000 });
  await assert.rejects(
    producer.send({ topic: 'keys10', partition: 10, value: 'x' }),
    /partition 10 does not exist/,
  );
  await assert.rejects(producer.send({ topic: 'keys10', value: Buffer.alloc(20_000) }), {
    code: 'MESSAGE_TOO_LARGE',
  });
  await producer.close();
  await assert.rejects(producer.send({ topic: 'keys10', value: 'late' }), { code: 'CLIENT_CLOSED' });
});

test('per-partition order is kept with 5 requests in flight and many small batches', async () => {
  const producer = new Producer({ bootstrapServers: bootstrap, batchSize: 512, lingerMs: 0 });
  const n = 5000;
  const ps = [];
  for (let i = 0; i < n; i++) ps.push(producer.send({ topic: 'order', key: `k${i % 3}`, value: String(i) }));
  const mds = await Promise.all(ps);
  await producer.close();
  const lastByPartition = new Map<number, bigint>();
  for (const md of mds) {
    const prev = lastByPartition.get(md.partition);
    assert.ok(prev === undefined || md.offset > prev, 'offsets increase in send order within a partition');
    lastByPartition.set(md.partition, md.offset);
  }
  const read = await kcatRead(bootstrap, 'order');
  assert.equal(read.length, n);
  const perKey = new Map<string, number>();
  for (const r of read) {
    const v = Number(r.value);
    assert.ok((perKey.get(r.key) ?? -1) < v, 'values in order per key');
    perKey.set(r.key, v);
  }
});
