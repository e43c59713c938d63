// kafkajs 2.2.4 (non-flexible versions only; ApiVersions v2, Metadata v6, admin routed to the
// ControllerId): admin operations and producers, checked against what the log holds.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type Admin, CompressionTypes, Kafka, logLevel } from 'kafkajs';
import { startTestBroker, type TestBroker } from '../../src/testkit/index.js';
import { RawClient } from '../broker/support/raw-client.js';
import { fetchAll } from '../broker/support/wire.js';

let broker: TestBroker;
let kafka: Kafka;
let admin: Admin;
let raw: RawClient;

before(async () => {
  broker = await startTestBroker();
  kafka = new Kafka({ brokers: [broker.bootstrap], clientId: 'kafkajs-interop', logLevel: logLevel.NOTHING });
  admin = kafka.admin();
  await admin.connect();
  raw = await RawClient.connect(broker.port);
});
after(async () => {
  raw.close();
  await admin.disconnect();
  await broker.close();
});

test('admin: create (with configs, validate-only), list, metadata, partitions, delete', async () => {
  assert.equal(
    await admin.createTopics({
      topics: [{ topic: 'js-validate', numPartitions: 2 }],
      validateOnly: true,
      waitForLeaders: false,
    }),
    true,
  );
  assert.ok(!(await admin.listTopics()).includes('js-validate'), 'validate-only created nothing');
  const created = await admin.createTopics({
    topics: [
      { topic: 'js-a', numPartitions: 3, configEntries: [{ name: 'retention.ms', value: '3600000' }] },
    ],
  });
  assert.equal(created, true);
  assert.equal(await admin.createTopics({ topics: [{ topic: 'js-a' }] }), false, 'already exists');
  await assert.rejects(
    admin.createTopics({
      topics: [{ topic: 'js-bad', configEntries: [{ name: 'retention.ms', value: 'soon' }] }],
    }),
    (e: Error & { errors?: { type: string }[] }) =>
      /INVALID_CONFIG/.test(JSON.stringify(e.errors ?? e.message)) || /Invalid/.test(e.message),
  );
  await assert.rejects(admin.createTopics({ topics: [{ topic: 'bad name!' }] }));
  assert.ok((await admin.listTopics()).includes('js-a'));
  const md = await admin.fetchTopicMetadata({ topics: ['js-a'] });
  assert.equal(md.topics[0]!.partitions.length, 3);
  await admin.createPartitions({ topicPartitions: [{ topic: 'js-a', count: 5 }] });
  assert.equal((await admin.fetchTopicMetadata({ topics: ['js-a'] })).topics[0]!.partitions.length, 5);
  await assert.rejects(admin.createPartitions({ topicPartitions: [{ topic: 'js-a', count: 2 }] }));
  await admin.deleteTopics({ topics: ['js-a'] });
  assert.ok(!(await admin.listTopics()).includes('js-a'));
});

test('admin: describe and alter topic and broker configs', async () => {
  await admin.createTopics({
    topics: [{ topic: 'js-cfg', configEntries: [{ name: 'cleanup.policy', value: 'compact' }] }],
  });
  const d = await admin.describeConfigs({ resources: [{ type: 2, name: 'js-cfg' }], includeSynonyms: true });
  const entries = new Map(d.resources[0]!.configEntries.map((e) => [e.configName, e]));
  assert.equal(entries.get('cleanup.policy')!.configValue, 'compact');
  assert.equal(entries.get('cleanup.policy')!.isDefault, false);
  assert.equal(entries.get('retention.ms')!.configValue, '604800000');
  assert.equal(entries.get('retention.ms')!.isDefault, true);
  await admin.alterConfigs({
    validateOnly: false,
    resources: [{ type: 2, name: 'js-cfg', configEntries: [{ name: 'retention.ms', value: '1000' }] }],
  });
  const after1 = await admin.describeConfigs({
    resources: [{ type: 2, name: 'js-cfg', configNames: ['retention.ms', 'cleanup.policy'] }],
    includeSynonyms: false,
  });
  const m = new Map(after1.resources[0]!.configEntries.map((e) => [e.configName, e.configValue]));
  // AlterConfigs replaces the whole set: cleanup.policy returned to its default.
  assert.deepEqual(Object.fromEntries(m), { 'retention.ms': '1000', 'cleanup.policy': 'delete' });
  await assert.rejects(
    admin.alterConfigs({
      validateOnly: false,
      resources: [{ type: 2, name: 'js-cfg', configEntries: [{ name: 'no.such.config', value: '1' }] }],
    }),
  );
  const broker0 = await admin.describeConfigs({
    resources: [{ type: 4, name: String(broker.nodeId) }],
    includeSynonyms: false,
  });
  const bm = new Map(broker0.resources[0]!.configEntries.map((e) => [e.configName, e.configValue]));
  assert.equal(bm.get('num.partitions'), '1');
  assert.equal(bm.get('message.max.bytes'), '1048588');
  await admin.alterConfigs({
    validateOnly: false,
    resources: [
      {
        type: 4,
        name: String(broker.nodeId),
        configEntries: [{ name: 'log.retention.bytes', value: '123456789' }],
      },
    ],
  });
  const t2 = await admin.describeConfigs({
    resources: [{ type: 2, name: 'js-cfg', configNames: ['retention.bytes'] }],
    includeSynonyms: false,
  });
  assert.equal(t2.resources[0]!.configEntries[0]!.configValue, '123456789');
});

test('producer: keys, headers, gzip, acks=all and acks=1, then offsets admin', async () => {
  await admin.createTopics({ topics: [{ topic: 'js-produce', numPartitions: 2 }] });
  const producer = kafka.producer({ allowAutoTopicCreation: false });
  await producer.connect();
  const messages = Array.from({ length: 200 }, (_, i) => ({
    key: `k${i}`,
    value: `v${i}`,
    partition: i % 2,
    headers: { n: String(i) },
  }));
  const res = await producer.send({
    topic: 'js-produce',
    acks: -1,
    compression: CompressionTypes.GZIP,
    messages,
  });
  assert.deepEqual(
    res.map((r) => r.errorCode),
    [0, 0],
  );
  await producer.send({
    topic: 'js-produce',
    acks: 1,
    messages: [{ key: 'last', value: 'one', partition: 0 }],
  });
  await producer.disconnect();
  const p0 = await fetchAll(raw, 'js-produce', 0);
  assert.equal(p0.length, 101);
  assert.equal(p0[0]!.key!.toString(), 'k0');
  assert.equal(p0[0]!.headers[0]!.value!.toString(), '0');
  assert.equal(p0.at(-1)!.value!.toString(), 'one');
  const offsets = await admin.fetchTopicOffsets('js-produce');
  assert.deepEqual(offsets.map((o) => [o.partition, o.low, o.high]).sort(), [
    [0, '0', '101'],
    [1, '0', '100'],
  ]);
  const byTime = await admin.fetchTopicOffsetsByTimestamp('js-produce', Date.now() + 3_600_000);
  assert.ok(byTime.every((o) => o.offset === '-1' || Number(o.offset) >= 100));
  await admin.deleteTopicRecords({ topic: 'js-produce', partitions: [{ partition: 0, offset: '50' }] });
  const after2 = await admin.fetchTopicOffsets('js-produce');
  assert.equal(after2.find((o) => o.partition === 0)!.low, '50');
});

test('idempotent producer gets a producer id and writes sequenced batches', async () => {
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  await producer.send({ topic: 'js-idem', acks: -1, messages: [{ value: 'a' }, { value: 'b' }] });
  await producer.send({ topic: 'js-idem', acks: -1, messages: [{ value: 'c' }] });
  await producer.disconnect();
  const recs = await fetchAll(raw, 'js-idem', 0);
  assert.deepEqual(
    recs.map((r) => r.value!.toString()),
    ['a', 'b', 'c'],
  );
});

test('admin: describeCluster names this broker as controller', async () => {
  const c = await admin.describeCluster();
  assert.equal(c.controller, broker.nodeId);
  assert.deepEqual(
    c.brokers.map((b) => [b.nodeId, b.host, b.port]),
    [[broker.nodeId, broker.host, broker.port]],
  );
  assert.equal(c.clusterId, broker.clusterId);
});
