// ApiVersions and Metadata across versions: advertised ranges come from the registry, topic
// selection rules per version, auto-creation, topic ids, self-consistent brokers/controller.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { apiVersionsApi } from '../../src/protocol/messages/generated/api-versions.js';
import { type MetadataRequest, metadataApi } from '../../src/protocol/messages/generated/metadata.js';
import { startTestBroker, type TestBroker } from '../../src/testkit/index.js';
import { RawClient } from './support/raw-client.js';
import { createTopic } from './support/wire.js';

const ZERO = 'AAAAAAAAAAAAAAAAAAAAAA';
let broker: TestBroker;
let c: RawClient;

before(async () => {
  broker = await startTestBroker({ overrides: { 'num.partitions': 3 } });
  c = await RawClient.connect(broker.port);
  assert.equal(await createTopic(c, 'md-a', 2), 0);
});
after(async () => {
  c.close();
  await broker.close();
});

const req = (topics: MetadataRequest['topics'], allowAutoTopicCreation = true): MetadataRequest => ({
  topics,
  allowAutoTopicCreation,
  includeClusterAuthorizedOperations: false,
  includeTopicAuthorizedOperations: false,
});
const named = (...names: string[]) => names.map((name) => ({ topicId: ZERO, name }));

test('ApiVersions v0-v4 advertise the registry, with the CLIENTS.md §3.7 versions in range', async () => {
  for (const v of [0, 1, 2, 3, 4]) {
    const r = await c.request(apiVersionsApi, v, {
      clientSoftwareName: 'samsa-test',
      clientSoftwareVersion: '1',
    });
    assert.equal(r.errorCode, 0);
    const m = new Map(r.apiKeys.map((k) => [k.apiKey, [k.minVersion, k.maxVersion] as const]));
    const has = (key: number, version: number) => {
      const range = m.get(key);
      assert.ok(range && range[0] <= version && version <= range[1], `key ${key} advertises v${version}`);
    };
    has(0, 0);
    has(0, 3);
    has(0, 7);
    has(1, 4);
    has(1, 10);
    has(1, 13);
    has(2, 1);
    has(3, 4);
    has(3, 12);
    has(18, 0);
    has(18, 3);
    has(22, 0);
    assert.deepEqual(m.get(18), [0, 4]);
  }
  const bad = await c.request(apiVersionsApi, 3, {
    clientSoftwareName: '-bad name',
    clientSoftwareVersion: '1',
  });
  assert.equal(bad.errorCode, 42);
});

test('Metadata: brokers and controller are consistent; v0 empty list = all, v1 empty = none', async () => {
  for (const v of [0, 1, 4, 7, 9, 10, 12]) {
    const r = await c.request(metadataApi, v, req(v === 0 ? [] : null));
    assert.deepEqual(
      r.brokers.map((b) => [b.nodeId, b.host, b.port]),
      [[broker.nodeId, broker.host, broker.port]],
    );
    if (v >= 1) assert.equal(r.controllerId, broker.nodeId);
    if (v >= 2) assert.equal(r.clusterId, broker.clusterId);
    const a = r.topics.find((t) => t.name === 'md-a');
    assert.ok(a, `v${v} lists md-a`);
    assert.equal(a.partitions.length, 2);
    assert.deepEqual(
      a.partitions.map((p) => [p.partitionIndex, p.leaderId, p.replicaNodes, p.isrNodes]),
      [
        [0, 1, [1], [1]],
        [1, 1, [1], [1]],
      ],
    );
    if (v >= 10) assert.notEqual(a.topicId, ZERO);
    if (v >= 7) assert.equal(a.partitions[0]!.leaderEpoch, 0);
  }
  const none = await c.request(metadataApi, 1, req([]));
  assert.equal(none.topics.length, 0);
});

test('Metadata: auto-creation honours the request flag (v4+), invalid names and topic ids', async () => {
  const noCreate = await c.request(metadataApi, 9, req(named('md-auto'), false));
  assert.equal(noCreate.topics[0]!.errorCode, 3);
  const created = await c.request(metadataApi, 9, req(named('md-auto')));
  assert.equal(created.topics[0]!.errorCode, 0);
  assert.equal(created.topics[0]!.partitions.length, 3, 'num.partitions');
  const v1 = await c.request(metadataApi, 1, req(named('md-auto-v1')));
  assert.equal(v1.topics[0]!.errorCode, 0, 'before v4 auto-creation is implied');
  const invalid = await c.request(metadataApi, 9, req(named('bad/name')));
  assert.equal(invalid.topics[0]!.errorCode, 17);
  const withId = await c.request(metadataApi, 12, req(named('md-a')));
  const id = withId.topics[0]!.topicId;
  const byId = await c.request(metadataApi, 12, req([{ topicId: id, name: null }]));
  assert.equal(byId.topics[0]!.name, 'md-a');
  const unknownId = await c.request(
    metadataApi,
    12,
    req([{ topicId: 'AAAAAAAAAAAAAAAAAAAAAQ', name: null }]),
  );
  assert.equal(unknownId.topics[0]!.errorCode, 100);
});

test('Metadata: concurrent auto-creations of one topic all get the topic, with one id', async () => {
  // Two clients' first Metadata requests for a new topic often arrive together (librdkafka
  // producers started at once); the second used to be answered TOPIC_ALREADY_EXISTS.
  const clients = await Promise.all([0, 1, 2].map(() => RawClient.connect(broker.port)));
  try {
    for (let round = 0; round < 5; round++) {
      const name = `md-race-${round}`;
      const answers = await Promise.all(clients.map((cl) => cl.request(metadataApi, 12, req(named(name)))));
      const got = answers.map((r) => `${r.topics[0]!.errorCode}/${r.topics[0]!.partitions.length}`);
      assert.deepEqual(got, ['0/3', '0/3', '0/3'], name);
      const ids = new Set(answers.map((r) => r.topics[0]!.topicId));
      assert.equal(ids.size, 1, `${name}: one topic id`);
      const again = await c.request(metadataApi, 12, req(named(name), false));
      assert.equal(again.topics[0]!.topicId, [...ids][0]);
    }
  } finally {
    for (const cl of clients) cl.close();
  }
});

test('Metadata v8+: authorized operations only when asked', async () => {
  const no = await c.request(metadataApi, 8, req(named('md-a')));
  assert.equal(no.topics[0]!.topicAuthorizedOperations, -2147483648);
  const yes = await c.request(metadataApi, 8, {
    ...req(named('md-a')),
    includeTopicAuthorizedOperations: true,
    includeClusterAuthorizedOperations: true,
  });
  assert.ok(yes.topics[0]!.topicAuthorizedOperations > 0);
  assert.ok(yes.clusterAuthorizedOperations > 0);
});
