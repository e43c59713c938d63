// Topic and config administration over the wire: CreateTopics validation (names, counts,
// replication, configs, duplicates, validate-only, v5+ details), DeleteTopics by name and id,
// CreatePartitions, Describe/Alter/IncrementalAlterConfigs, DescribeCluster, DescribeLogDirs,
// InitProducerId.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { alterConfigsApi } from '../../src/protocol/messages/generated/alter-configs.js';
import { createPartitionsApi } from '../../src/protocol/messages/generated/create-partitions.js';
import {
  type CreateTopicsRequest,
  createTopicsApi,
} from '../../src/protocol/messages/generated/create-topics.js';
import { deleteTopicsApi } from '../../src/protocol/messages/generated/delete-topics.js';
import { describeClusterApi } from '../../src/protocol/messages/generated/describe-cluster.js';
import { describeConfigsApi } from '../../src/protocol/messages/generated/describe-configs.js';
import { describeLogDirsApi } from '../../src/protocol/messages/generated/describe-log-dirs.js';
import { incrementalAlterConfigsApi } from '../../src/protocol/messages/generated/incremental-alter-configs.js';
import { initProducerIdApi } from '../../src/protocol/messages/generated/init-producer-id.js';
import { startTestBroker, type TestBroker } from '../../src/testkit/index.js';
import { RawClient } from './support/raw-client.js';

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

type Topic = CreateTopicsRequest['topics'][number];
const topic = (name: string, extra: Partial<Topic> = {}): Topic => ({
  name,
  numPartitions: 1,
  replicationFactor: 1,
  assignments: [],
  configs: [],
  ...extra,
});
const create = async (topics: Topic[], validateOnly = false, version = 7) =>
  (await c.request(createTopicsApi, version, { topics, timeoutMs: 5000, validateOnly })).topics;

test('CreateTopics validation: names, counts, replication factor, configs, duplicates', async () => {
  const r = await create([
    topic('ok-1', { numPartitions: 3 }),
    topic('a'.repeat(250)),
    topic('bad name'),
    topic('..'),
    topic('zero', { numPartitions: 0 }),
    topic('rf3', { replicationFactor: 3 }),
    topic('cfg', { configs: [{ name: 'cleanup.policy', value: 'shred' }] }),
    topic('unknown-cfg', { configs: [{ name: 'no.such', value: '1' }] }),
    topic('dup'),
    topic('dup'),
    topic('assigned', {
      numPartitions: -1,
      replicationFactor: -1,
      assignments: [
        { partitionIndex: 0, brokerIds: [1] },
        { partitionIndex: 1, brokerIds: [1] },
      ],
    }),
    topic('bad-assign', {
      numPartitions: -1,
      replicationFactor: -1,
      assignments: [{ partitionIndex: 0, brokerIds: [42] }],
    }),
  ]);
  assert.deepEqual(
    r.map((t) => [t.name.slice(0, 12), t.errorCode]),
    [
      ['ok-1', 0],
      ['aaaaaaaaaaaa', 17],
      ['bad name', 17],
      ['..', 17],
      ['zero', 37],
      ['rf3', 38],
      ['cfg', 40],
      ['unknown-cfg', 40],
      ['dup', 42],
      ['assigned', 0],
      ['bad-assign', 39],
    ],
  );
  assert.match(r.find((t) => t.name === 'cfg')!.errorMessage!, /cleanup.policy/);
  const ok = r[0]!;
  assert.equal(ok.numPartitions, 3);
  assert.equal(ok.replicationFactor, 1);
  assert.notEqual(ok.topicId, 'AAAAAAAAAAAAAAAAAAAAAA');
  assert.ok(ok.configs!.some((x) => x.name === 'retention.ms' && x.value === '604800000'));
  assert.equal(r.find((t) => t.name === 'assigned')!.numPartitions, 2);
  assert.equal((await create([topic('ok-1')]))[0]!.errorCode, 36, 'TOPIC_ALREADY_EXISTS');
  assert.equal((await create([topic('ok_1')]))[0]!.errorCode, 0, "'-' and '_' do not collide");
});

test('CreateTopics validate-only creates nothing; defaults with -1; v0 works', async () => {
  const v = await create([topic('vo', { numPartitions: -1, replicationFactor: -1 })], true);
  assert.equal(v[0]!.errorCode, 0);
  assert.equal(v[0]!.numPartitions, 1);
  assert.equal((await create([topic('vo')]))[0]!.errorCode, 0, 'name still free');
  assert.equal((await create([topic('v0-topic')], false, 0))[0]!.errorCode, 0);
  assert.equal((await create([topic('dot.ted')]))[0]!.errorCode, 0);
  assert.equal((await create([topic('dot_ted')]))[0]!.errorCode, 17, "'.' and '_' collide");
});

test('CreatePartitions grows, rejects shrinking and bad assignments; DeleteTopics by name and id', async () => {
  await create([topic('grow', { numPartitions: 2 })]);
  const cp = async (
    name: string,
    count: number,
    assignments: { brokerIds: number[] }[] | null = null,
    validateOnly = false,
  ) =>
    (
      await c.request(createPartitionsApi, 3, {
        topics: [{ name, count, assignments }],
        timeoutMs: 1000,
        validateOnly,
      })
    ).results[0]!.errorCode;
  assert.equal(await cp('grow', 4, null, true), 0);
  assert.equal(await cp('grow', 4), 0);
  assert.equal(await cp('grow', 3), 37);
  assert.equal(await cp('grow', 4), 37);
  assert.equal(await cp('grow', 6, [{ brokerIds: [1] }]), 39);
  assert.equal(await cp('missing', 6), 3);
  assert.equal(broker.services.replicas.get('grow', 3) !== undefined, true);
  const id = broker.services.image.topic('grow')!.topicId;
  const byId = await c.request(deleteTopicsApi, 6, {
    topics: [{ name: null, topicId: id }],
    topicNames: [],
    timeoutMs: 1000,
  });
  assert.deepEqual(
    byId.responses.map((r) => [r.name, r.errorCode]),
    [['grow', 0]],
  );
  const byName = await c.request(deleteTopicsApi, 1, {
    topics: [],
    topicNames: ['vo', 'nope'],
    timeoutMs: 1000,
  });
  assert.deepEqual(
    byName.responses.map((r) => [r.name, r.errorCode]),
    [
      ['vo', 0],
      ['nope', 3],
    ],
  );
  const unknownId = await c.request(deleteTopicsApi, 6, {
    topics: [{ name: null, topicId: id }],
    topicNames: [],
    timeoutMs: 1000,
  });
  assert.equal(unknownId.responses[0]!.errorCode, 100);
  assert.equal(broker.services.replicas.get('grow', 0), undefined);
});

test('configs: describe sources/synonyms/types, alter (replace), incremental ops, broker dynamic configs', async () => {
  await create([topic('conf', { configs: [{ name: 'retention.ms', value: '1000' }] })]);
  const describe = async (v: number, type: number, name: string, keys: string[] | null) =>
    (
      await c.request(describeConfigsApi, v, {
        resources: [{ resourceType: type, resourceName: name, configurationKeys: keys }],
        includeSynonyms: true,
        includeDocumentation: true,
      })
    ).results[0]!;
  const d = await describe(4, 2, 'conf', ['retention.ms', 'segment.bytes']);
  assert.deepEqual(
    d.configs.map((e) => [e.name, e.value, e.configSource, e.configType]),
    [
      ['retention.ms', '1000', 1, 5],
      ['segment.bytes', '1073741824', 5, 3],
    ],
  );
  assert.equal(d.configs[0]!.synonyms[0]!.source, 1);
  assert.ok(d.configs[0]!.documentation);
  assert.equal((await describe(0, 2, 'conf', ['retention.ms'])).configs[0]!.isDefault, false);
  assert.equal((await describe(1, 2, 'missing', null)).errorCode, 3);
  const incr = async (
    type: number,
    name: string,
    configs: { name: string; configOperation: number; value: string | null }[],
  ) =>
    (
      await c.request(incrementalAlterConfigsApi, 1, {
        resources: [{ resourceType: type, resourceName: name, configs }],
        validateOnly: false,
      })
    ).responses[0]!;
  assert.equal(
    (await incr(2, 'conf', [{ name: 'cleanup.policy', configOperation: 2, value: 'compact' }])).errorCode,
    0,
  );
  assert.equal((await describe(4, 2, 'conf', ['cleanup.policy'])).configs[0]!.value, 'delete,compact');
  assert.equal(
    (await incr(2, 'conf', [{ name: 'cleanup.policy', configOperation: 3, value: 'delete' }])).errorCode,
    0,
  );
  assert.equal(
    (await incr(2, 'conf', [{ name: 'retention.ms', configOperation: 1, value: null }])).errorCode,
    0,
  );
  const after = await describe(4, 2, 'conf', ['cleanup.policy', 'retention.ms']);
  assert.deepEqual(
    after.configs.map((e) => [e.value, e.configSource]),
    [
      ['compact', 1],
      ['604800000', 5],
    ],
  );
  assert.equal(
    (await incr(2, 'conf', [{ name: 'retention.ms', configOperation: 2, value: '5' }])).errorCode,
    40,
    'append to a non-list',
  );
  assert.equal(
    (await incr(2, 'conf', [{ name: 'retention.ms', configOperation: 9, value: '5' }])).errorCode,
    42,
  );
  assert.equal(
    (await incr(2, 'conf', [{ name: 'min.insync.replicas', configOperation: 0, value: '0' }])).errorCode,
    40,
  );
  const alter = async (
    type: number,
    name: string,
    configs: { name: string; value: string | null }[],
    validateOnly = false,
  ) =>
    (
      await c.request(alterConfigsApi, 2, {
        resources: [{ resourceType: type, resourceName: name, configs }],
        validateOnly,
      })
    ).responses[0]!;
  assert.equal((await alter(2, 'conf', [{ name: 'segment.bytes', value: '1048576' }], true)).errorCode, 0);
  assert.equal(
    (await describe(4, 2, 'conf', ['segment.bytes'])).configs[0]!.configSource,
    5,
    'validate-only changed nothing',
  );
  assert.equal((await alter(2, 'conf', [{ name: 'segment.bytes', value: '1048576' }])).errorCode, 0);
  assert.equal(
    broker.services.logs.getLog('conf', 0)!.config.segmentBytes,
    1048576,
    'the log got the new config',
  );
  assert.equal((await alter(4, '1', [{ name: 'num.partitions', value: '9' }])).errorCode, 40, 'not dynamic');
  assert.equal(
    (await alter(4, '7', [{ name: 'message.max.bytes', value: '9' }])).errorCode,
    42,
    'other broker',
  );
  assert.equal((await alter(4, '', [{ name: 'log.retention.ms', value: '5000' }])).errorCode, 0);
  const t = await describe(4, 2, 'conf', ['retention.ms']);
  assert.deepEqual([t.configs[0]!.value, t.configs[0]!.configSource], ['5000', 3]);
  const b = await describe(4, 4, '1', ['log.retention.ms', 'num.partitions']);
  assert.deepEqual(
    b.configs.map((e) => [e.name, e.value, e.configSource, e.readOnly]),
    [
      ['log.retention.ms', '5000', 3, false],
      ['num.partitions', '1', 5, true],
    ],
  );
  const defaults = await describe(4, 4, '', null);
  assert.deepEqual(
    defaults.configs.map((e) => [e.name, e.value]),
    [['log.retention.ms', '5000']],
  );
});

test('DescribeCluster, DescribeLogDirs and InitProducerId', async () => {
  await create([topic('sized')]);
  const dc = await c.request(describeClusterApi, 1, {
    includeClusterAuthorizedOperations: false,
    endpointType: 1,
  });
  assert.deepEqual(
    [dc.errorCode, dc.clusterId, dc.controllerId, dc.brokers.length],
    [0, broker.clusterId, broker.nodeId, 1],
  );
  assert.equal(
    (await c.request(describeClusterApi, 1, { includeClusterAuthorizedOperations: false, endpointType: 2 }))
      .errorCode,
    115,
  );
  const dirs = await c.request(describeLogDirsApi, 4, { topics: [{ topic: 'sized', partitions: [0] }] });
  assert.equal(dirs.results.length, 1);
  assert.deepEqual(
    dirs.results[0]!.topics.map((t) => [t.name, t.partitions.map((p) => p.partitionIndex)]),
    [['sized', [0]]],
  );
  assert.ok(dirs.results[0]!.totalBytes > 0n);
  const ids = new Set<bigint>();
  for (let i = 0; i < 5; i++) {
    const r = await c.request(initProducerIdApi, i % 2 === 0 ? 0 : 4, {
      transactionalId: null,
      transactionTimeoutMs: 1000,
      producerId: -1n,
      producerEpoch: -1,
    });
    assert.equal(r.errorCode, 0);
    assert.equal(r.producerEpoch, 0);
    ids.add(r.producerId);
  }
  assert.equal(ids.size, 5);
});
