// Admin client round trips against our broker: topics, partitions, configs, offsets, delete
// records, cluster, and consumer-group offsets (alter/list/reset/delete) of an empty group.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Admin, Producer } from '../../../src/client/index.js';
import { type TestBroker, testBroker } from './helpers.js';

let tb: TestBroker;
let admin: Admin;
before(async () => {
  tb = await testBroker();
  admin = new Admin({ bootstrapServers: tb.broker.bootstrap, clientId: 'it-admin' });
});
after(async () => {
  await admin.close();
  await tb.stop();
});

test('create (with configs), list, describe, add partitions, delete topics', async () => {
  const created = await admin.createTopics([
    {
      name: 'adm-a',
      numPartitions: 3,
      replicationFactor: 1,
      configs: { 'retention.ms': '3600000', 'cleanup.policy': 'delete' },
    },
    { name: 'adm-b' },
  ]);
  assert.equal(created[0]!.numPartitions, 3);
  assert.ok(created[1]!.numPartitions >= 1, 'broker default num.partitions');
  await assert.rejects(admin.createTopics([{ name: 'adm-a', numPartitions: 1 }]), {
    code: 'TOPIC_ALREADY_EXISTS',
  });
  await assert.rejects(admin.createTopics([{ name: 'bad name!', numPartitions: 1 }]), {
    code: 'INVALID_TOPIC_EXCEPTION',
  });
  const names = await admin.listTopics();
  assert.ok(names.includes('adm-a') && names.includes('adm-b'));
  const [d] = await admin.describeTopics(['adm-a']);
  assert.equal(d!.partitions.length, 3);
  for (const p of d!.partitions) {
    assert.equal(p.leader, tb.broker.nodeId);
    assert.deepEqual(p.replicas, [tb.broker.nodeId]);
    assert.deepEqual(p.isr, [tb.broker.nodeId]);
  }
  await admin.createPartitions([{ topic: 'adm-a', count: 5 }]);
  const [d2] = await admin.describeTopics(['adm-a']);
  assert.equal(d2!.partitions.length, 5);
  await assert.rejects(admin.createPartitions([{ topic: 'adm-a', count: 2 }]), {
    code: 'INVALID_PARTITIONS',
  });
  await admin.deleteTopics(['adm-b']);
  assert.ok(!(await admin.listTopics()).includes('adm-b'));
  await assert.rejects(admin.describeTopics(['adm-b']), { code: 'UNKNOWN_TOPIC_OR_PARTITION' });
});

test('describe and incrementally alter topic configs', async () => {
  await admin.createTopics([
    { name: 'adm-cfg', numPartitions: 1, replicationFactor: 1, configs: { 'retention.ms': '1000000' } },
  ]);
  const [c] = await admin.describeConfigs([{ type: 'topic', name: 'adm-cfg' }]);
  const retention = c!.entries.find((e) => e.name === 'retention.ms')!;
  assert.equal(retention.value, '1000000');
  assert.equal(retention.source, 'DYNAMIC_TOPIC_CONFIG');
  const segment = c!.entries.find((e) => e.name === 'segment.bytes');
  assert.ok(segment?.isDefault);
  await admin.incrementalAlterConfigs([
    {
      type: 'topic',
      name: 'adm-cfg',
      ops: [
        { key: 'retention.ms', op: 'delete' },
        { key: 'max.message.bytes', op: 'set', value: '200000' },
      ],
    },
  ]);
  const [c2] = await admin.describeConfigs([
    { type: 'topic', name: 'adm-cfg', keys: ['retention.ms', 'max.message.bytes'] },
  ]);
  assert.equal(c2!.entries.find((e) => e.name === 'max.message.bytes')!.value, '200000');
  assert.notEqual(c2!.entries.find((e) => e.name === 'retention.ms')!.source, 'DYNAMIC_TOPIC_CONFIG');
  await assert.rejects(
    admin.incrementalAlterConfigs([
      { type: 'topic', name: 'adm-cfg', ops: [{ key: 'no.such.config', op: 'set', value: '1' }] },
    ]),
    { code: 'INVALID_CONFIG' },
  );
});

test('list offsets (earliest, latest, by timestamp), delete records, cluster', async () => {
  await admin.createTopics([{ name: 'adm-off', numPartitions: 1, replicationFactor: 1 }]);
  const producer = new Producer({ bootstrapServers: tb.broker.bootstrap, lingerMs: 0 });
  const base = 1_700_000_000_000;
  for (let i = 0; i < 10; i++)
    await producer.send({ topic: 'adm-off', value: `r${i}`, timestamp: base + i * 1000 });
  await producer.close();
  const q = (spec: 'earliest' | 'latest' | { timestamp: number }) =>
    admin.listOffsets([{ topic: 'adm-off', partition: 0, spec }]);
  assert.equal((await q('earliest'))[0]!.offset, 0n);
  assert.equal((await q('latest'))[0]!.offset, 10n);
  assert.equal((await q({ timestamp: base + 4500 }))[0]!.offset, 5n);
  assert.equal((await q({ timestamp: base + 99_000 }))[0]!.offset, -1n);
  const [lw] = await admin.deleteRecords([{ topic: 'adm-off', partition: 0, offset: 4n }]);
  assert.equal(lw!.lowWatermark, 4n);
  assert.equal((await q('earliest'))[0]!.offset, 4n);
  const cluster = await admin.describeCluster();
  assert.equal(cluster.clusterId, tb.broker.clusterId);
  assert.equal(cluster.controller, tb.broker.nodeId);
  assert.deepEqual(
    cluster.brokers.map((b) => [b.nodeId, b.port]),
    [[tb.broker.nodeId, tb.broker.port]],
  );
});

test('consumer-group offsets: alter, list, reset, delete; groups list/describe/delete', async () => {
  await admin.createTopics([{ name: 'adm-grp', numPartitions: 2, replicationFactor: 1 }]);
  const producer = new Producer({ bootstrapServers: tb.broker.bootstrap });
  for (let i = 0; i < 6; i++) await producer.send({ topic: 'adm-grp', partition: i % 2, value: String(i) });
  await producer.close();
  const g = 'adm-group';
  await admin.alterConsumerGroupOffsets(g, [
    { topic: 'adm-grp', partition: 0, offset: 2n, metadata: 'm' },
    { topic: 'adm-grp', partition: 1, offset: 1n },
  ]);
  const listed = await admin.listConsumerGroupOffsets(g);
  assert.deepEqual(listed.map((o) => [o.partition, o.offset]).sort(), [
    [0, 2n],
    [1, 1n],
  ]);
  assert.equal(listed.find((o) => o.partition === 0)!.metadata, 'm');
  const reset = await admin.resetConsumerGroupOffsets(
    g,
    [
      { topic: 'adm-grp', partition: 0 },
      { topic: 'adm-grp', partition: 1 },
    ],
    'latest',
  );
  assert.deepEqual(
    reset.map((o) => o.offset),
    [3n, 3n],
  );
  assert.deepEqual(
    (await admin.listConsumerGroupOffsets(g, [{ topic: 'adm-grp', partition: 1 }])).map((o) => o.offset),
    [3n],
  );
  await admin.resetConsumerGroupOffsets(g, [{ topic: 'adm-grp', partition: 0 }], 'earliest');
  assert.equal((await admin.listConsumerGroupOffsets(g)).find((o) => o.partition === 0)!.offset, 0n);
  const groups = await admin.listGroups();
  assert.ok(groups.some((x) => x.groupId === g));
  const [desc] = await admin.describeGroups([g]);
  assert.equal(desc!.state, 'Empty');
  assert.deepEqual(desc!.members, []);
  await admin.deleteConsumerGroupOffsets(g, [{ topic: 'adm-grp', partition: 1 }]);
  assert.deepEqual(
    (await admin.listConsumerGroupOffsets(g)).map((o) => o.partition),
    [0],
  );
  await admin.deleteGroups([g]);
  assert.deepEqual(await admin.listConsumerGroupOffsets(g), []);
  await assert.rejects(admin.deleteGroups([g]), { code: 'GROUP_ID_NOT_FOUND' });
});
