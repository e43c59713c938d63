// The ACL matrix against a broker with SASL/PLAIN users and `authorizer.class.name` set: each
// API as an allowed principal, a denied one, and for a resource it may not describe, with the
// exact Kafka error codes. Raw requests over BrokerLink (SASL PLAIN) so every code is seen as
// sent. Also: the ACL APIs themselves (CLUSTER ALTER/DESCRIBE, SECURITY_DISABLED without an
// authorizer), hostile ACL requests (UNKNOWN codes close that connection, bad creations are
// INVALID_REQUEST) with the broker still serving, and the refusal of an unknown authorizer class.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startBroker } from '../../../src/broker/broker.js';
import { AclOp, PatternCode, Permission, ResType } from '../../../src/broker/security/acl-model.js';
import { BrokerLink } from '../../../src/net/index.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { createAclsApi } from '../../../src/protocol/messages/generated/create-acls.js';
import { createTopicsApi } from '../../../src/protocol/messages/generated/create-topics.js';
import { deleteAclsApi } from '../../../src/protocol/messages/generated/delete-acls.js';
import { deleteTopicsApi } from '../../../src/protocol/messages/generated/delete-topics.js';
import { describeAclsApi } from '../../../src/protocol/messages/generated/describe-acls.js';
import { describeConfigsApi } from '../../../src/protocol/messages/generated/describe-configs.js';
import { fetchApi } from '../../../src/protocol/messages/generated/fetch.js';
import { findCoordinatorApi } from '../../../src/protocol/messages/generated/find-coordinator.js';
import { initProducerIdApi } from '../../../src/protocol/messages/generated/init-producer-id.js';
import { joinGroupApi } from '../../../src/protocol/messages/generated/join-group.js';
import { listOffsetsApi } from '../../../src/protocol/messages/generated/list-offsets.js';
import { metadataApi } from '../../../src/protocol/messages/generated/metadata.js';
import { offsetCommitApi } from '../../../src/protocol/messages/generated/offset-commit.js';
import { produceApi } from '../../../src/protocol/messages/generated/produce.js';
import { encodeRecordBatchSync } from '../../../src/protocol/record-batch/encode.js';
import { startTestBroker, type TestBroker } from '../../../src/testkit/index.js';
import { PASSWORDS, plainJaas } from '../sasl/support.js';
import { fetchRequest } from '../support/wire.js';

let broker: TestBroker;
let open: TestBroker;
const links: BrokerLink[] = [];

const SASL = 'SASL_PLAINTEXT';
function link(user: keyof typeof PASSWORDS, on: TestBroker = broker): BrokerLink {
  const [host, port] = on.bootstrapFor(SASL).split(':');
  const l = new BrokerLink(-1, host!, Number(port), {
    clientId: `matrix-${user}`,
    sasl: { mechanism: 'PLAIN', username: user, password: PASSWORDS[user] },
  });
  links.push(l);
  return l;
}

const overrides = {
  listeners: 'PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0',
  'inter.broker.listener.name': 'PLAINTEXT',
  'sasl.enabled.mechanisms': 'PLAIN',
  'sasl.jaas.config': plainJaas(),
  'group.initial.rebalance.delay.ms': 0,
  'auto.create.topics.enable': true,
};

before(async () => {
  broker = await startTestBroker({
    overrides: {
      ...overrides,
      'authorizer.class.name': 'kafka.security.authorizer.AclAuthorizer',
      // The inter-broker listener is plaintext: its anonymous peer is the broker itself.
      'super.users': 'User:admin;User:ANONYMOUS',
    },
  });
  open = await startTestBroker({ overrides });
  const admin = link('admin');
  const created = await admin.request(createTopicsApi, {
    topics: ['allowed', 'hidden'].map((name) => ({
      name,
      numPartitions: 1,
      replicationFactor: 1,
      assignments: [],
      configs: [],
    })),
    timeoutMs: 30_000,
    validateOnly: false,
  });
  assert.deepEqual(
    created.topics.map((t) => t.errorCode),
    [0, 0],
  );
  const allowAlice = (
    resourceType: number,
    resourceName: string,
    operation: number,
    patternType: number = PatternCode.LITERAL,
  ) => ({
    resourceType,
    resourceName,
    resourcePatternType: patternType,
    principal: 'User:alice',
    host: '*',
    operation,
    permissionType: Permission.ALLOW,
  });
  const r = await admin.request(createAclsApi, {
    creations: [
      allowAlice(ResType.TOPIC, 'allowed', AclOp.READ),
      allowAlice(ResType.TOPIC, 'allowed', AclOp.WRITE),
      allowAlice(ResType.GROUP, 'g-', AclOp.READ, PatternCode.PREFIXED),
    ],
  });
  assert.deepEqual(
    r.results.map((x) => x.errorCode),
    [0, 0, 0],
  );
});

after(async () => {
  for (const l of links) l.close();
  await broker?.close();
  await open?.close();
});

const records = () => encodeRecordBatchSync([{ value: Buffer.from('v') }]);
const produce = (topic: string, transactionalId: string | null = null, transactional = false) => ({
  transactionalId,
  acks: 1,
  timeoutMs: 10_000,
  topicData: [
    {
      name: topic,
      partitionData: [
        {
          index: 0,
          records: transactional
            ? encodeRecordBatchSync([{ value: Buffer.from('v') }], {
                producerId: 7n,
                producerEpoch: 0,
                baseSequence: 0,
                transactional: true,
              })
            : records(),
        },
      ],
    },
  ],
});
const metadata = (topics: string[] | null, allowAutoTopicCreation = false) => ({
  topics: topics === null ? null : topics.map((name) => ({ name, topicId: 'AAAAAAAAAAAAAAAAAAAAAA' })),
  allowAutoTopicCreation,
  includeTopicAuthorizedOperations: true,
  includeClusterAuthorizedOperations: true,
});
const fetch = (topic: string) =>
  fetchRequest(topic, { partition: 0, offset: 0n }, { minBytes: 1, maxBytes: 1 << 20 });

test('Produce: WRITE on the topic, else TOPIC_AUTHORIZATION_FAILED; transactional records need the id', async () => {
  const alice = link('alice');
  const ok = await alice.request(produceApi, produce('allowed'), { maxVersion: 9 });
  assert.equal(ok.responses[0]!.partitionResponses[0]!.errorCode, ErrorCode.NONE);
  const denied = await alice.request(produceApi, produce('hidden'), { maxVersion: 9 });
  assert.equal(denied.responses[0]!.partitionResponses[0]!.errorCode, ErrorCode.TOPIC_AUTHORIZATION_FAILED);
  assert.equal(denied.responses[0]!.partitionResponses[0]!.errorMessage, null, 'Kafka sends no message');
  const unknown = await alice.request(produceApi, produce('no-such-topic'), { maxVersion: 9 });
  assert.equal(unknown.responses[0]!.partitionResponses[0]!.errorCode, ErrorCode.TOPIC_AUTHORIZATION_FAILED);
  const txn = await alice.request(produceApi, produce('allowed', 'tx-1', true), { maxVersion: 9 });
  assert.equal(
    txn.responses[0]!.partitionResponses[0]!.errorCode,
    ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED,
  );
});

test('Fetch and ListOffsets: READ / DESCRIBE on the topic', async () => {
  const alice = link('alice');
  const ok = await alice.request(fetchApi, fetch('allowed'), { maxVersion: 12 });
  assert.equal(ok.responses[0]!.partitions[0]!.errorCode, ErrorCode.NONE);
  const denied = await alice.request(fetchApi, fetch('hidden'), { maxVersion: 12 });
  assert.equal(denied.responses[0]!.partitions[0]!.errorCode, ErrorCode.TOPIC_AUTHORIZATION_FAILED);
  const offsets = await alice.request(listOffsetsApi, {
    replicaId: -1,
    isolationLevel: 0,
    timeoutMs: 1000,
    topics: ['allowed', 'hidden'].map((name) => ({
      name,
      partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -1n, maxNumOffsets: 1 }],
    })),
  });
  assert.deepEqual(
    offsets.topics.map((t) => t.partitions[0]!.errorCode),
    [ErrorCode.NONE, ErrorCode.TOPIC_AUTHORIZATION_FAILED],
  );
});

test('Metadata hides undescribable topics, refuses named ones, and needs CREATE to auto-create', async () => {
  const alice = link('alice');
  const all = await alice.request(metadataApi, metadata(null), { maxVersion: 10 });
  assert.deepEqual(
    all.topics.map((t) => t.name),
    ['allowed'],
  );
  assert.equal(
    all.topics[0]!.topicAuthorizedOperations,
    (1 << AclOp.READ) | (1 << AclOp.WRITE) | (1 << AclOp.DESCRIBE),
  );
  assert.equal(all.clusterAuthorizedOperations, 0, 'no DESCRIBE on the cluster');
  const named = await alice.request(metadataApi, metadata(['hidden', 'nowhere', 'allowed'], true), {
    maxVersion: 10,
  });
  assert.deepEqual(
    named.topics.map((t) => [t.name, t.errorCode]),
    [
      ['hidden', ErrorCode.TOPIC_AUTHORIZATION_FAILED],
      ['nowhere', ErrorCode.TOPIC_AUTHORIZATION_FAILED],
      ['allowed', ErrorCode.NONE],
    ],
  );
  const admin = await link('admin').request(metadataApi, metadata(null), { maxVersion: 10 });
  assert.deepEqual(admin.topics.map((t) => t.name).sort(), ['allowed', 'hidden']);
  assert.ok(admin.clusterAuthorizedOperations > 0);
});

test('admin APIs: CreateTopics, DeleteTopics, DescribeConfigs', async () => {
  const alice = link('alice');
  const created = await alice.request(createTopicsApi, {
    topics: [{ name: 'alice-new', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }],
    timeoutMs: 10_000,
    validateOnly: false,
  });
  assert.equal(created.topics[0]!.errorCode, ErrorCode.TOPIC_AUTHORIZATION_FAILED);
  assert.equal(created.topics[0]!.errorMessage, 'Authorization failed.');
  assert.equal(created.topics[0]!.topicConfigErrorCode, ErrorCode.TOPIC_AUTHORIZATION_FAILED);
  // CREATE without DESCRIBE_CONFIGS: created, but the configs and sizes are not shown (Kafka).
  const grant = await link('admin').request(createAclsApi, {
    creations: [
      ['alice-c-', AclOp.CREATE],
      ['alice-cd-', AclOp.CREATE],
      ['alice-cd-', AclOp.ALTER_CONFIGS],
    ].map(([name, operation]) => ({
      resourceType: ResType.TOPIC,
      resourceName: name as string,
      resourcePatternType: PatternCode.PREFIXED,
      principal: 'User:alice',
      host: '*',
      operation: operation as number,
      permissionType: Permission.ALLOW,
    })),
  });
  assert.deepEqual(
    grant.results.map((r) => r.errorCode),
    [0, 0, 0],
  );
  const mixed = await alice.request(createTopicsApi, {
    topics: ['alice-c-1', 'alice-cd-1'].map((name) => ({
      name,
      numPartitions: 2,
      replicationFactor: 1,
      assignments: [],
      configs: [],
    })),
    timeoutMs: 10_000,
    validateOnly: false,
  });
  const [hiddenConfigs, shownConfigs] = mixed.topics;
  assert.deepEqual(
    [hiddenConfigs!.errorCode, hiddenConfigs!.topicConfigErrorCode, hiddenConfigs!.numPartitions],
    [ErrorCode.NONE, ErrorCode.TOPIC_AUTHORIZATION_FAILED, -1],
  );
  assert.equal(hiddenConfigs!.replicationFactor, -1);
  assert.deepEqual(hiddenConfigs!.configs, []);
  assert.deepEqual(
    [shownConfigs!.errorCode, shownConfigs!.topicConfigErrorCode, shownConfigs!.numPartitions],
    [ErrorCode.NONE, ErrorCode.NONE, 2],
  );
  assert.ok((shownConfigs!.configs ?? []).length > 0);
  // A failed creation (it exists now) answers topicConfigErrorCode NONE again, as Kafka resets it.
  const again = await alice.request(createTopicsApi, {
    topics: [{ name: 'alice-c-1', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }],
    timeoutMs: 10_000,
    validateOnly: false,
  });
  assert.equal(again.topics[0]!.errorCode, ErrorCode.TOPIC_ALREADY_EXISTS);
  assert.equal(again.topics[0]!.topicConfigErrorCode, ErrorCode.NONE);
  const deleted = await alice.request(
    deleteTopicsApi,
    { topics: [], topicNames: ['hidden'], timeoutMs: 10_000 },
    { maxVersion: 5 },
  );
  assert.equal(deleted.responses[0]!.errorCode, ErrorCode.TOPIC_AUTHORIZATION_FAILED);
  assert.equal(deleted.responses[0]!.errorMessage, null, 'Kafka sends no message');
  const configs = await alice.request(describeConfigsApi, {
    resources: [
      { resourceType: 4, resourceName: '', configurationKeys: null },
      { resourceType: 2, resourceName: 'allowed', configurationKeys: null },
    ],
    includeSynonyms: false,
    includeDocumentation: false,
  });
  assert.deepEqual(
    configs.results.map((r) => r.errorCode),
    [ErrorCode.CLUSTER_AUTHORIZATION_FAILED, ErrorCode.TOPIC_AUTHORIZATION_FAILED],
  );
});

test('groups: FindCoordinator, JoinGroup, OffsetCommit', async () => {
  const alice = link('alice');
  const bob = link('bob');
  const find = (l: BrokerLink, key: string, keyType = 0) =>
    l.request(findCoordinatorApi, { key, keyType, coordinatorKeys: [key] }, { maxVersion: 3 });
  assert.equal((await find(alice, 'g-1')).errorCode, ErrorCode.NONE);
  assert.equal((await find(bob, 'g-1')).errorCode, ErrorCode.GROUP_AUTHORIZATION_FAILED);
  assert.equal((await find(alice, 'tx-1', 1)).errorCode, ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
  const join = await bob.request(joinGroupApi, {
    groupId: 'g-1',
    sessionTimeoutMs: 10_000,
    rebalanceTimeoutMs: 10_000,
    memberId: '',
    groupInstanceId: null,
    protocolType: 'consumer',
    protocols: [{ name: 'range', metadata: Buffer.alloc(0) }],
    reason: null,
  });
  assert.equal(join.errorCode, ErrorCode.GROUP_AUTHORIZATION_FAILED);
  const commit = (l: BrokerLink, groupId: string) =>
    l.request(offsetCommitApi, {
      groupId,
      generationIdOrMemberEpoch: -1,
      memberId: '',
      groupInstanceId: null,
      retentionTimeMs: -1n,
      topics: ['allowed', 'hidden'].map((name) => ({
        name,
        partitions: [
          {
            partitionIndex: 0,
            committedOffset: 0n,
            committedLeaderEpoch: -1,
            commitTimestamp: -1n,
            committedMetadata: '',
          },
        ],
      })),
    });
  const ok = await commit(alice, 'g-1');
  assert.deepEqual(ok.topics.map((t) => [t.name, t.partitions[0]!.errorCode]).sort(), [
    ['allowed', ErrorCode.NONE],
    ['hidden', ErrorCode.TOPIC_AUTHORIZATION_FAILED],
  ]);
  const refused = await commit(bob, 'g-1');
  assert.ok(refused.topics.every((t) => t.partitions[0]!.errorCode === ErrorCode.GROUP_AUTHORIZATION_FAILED));
});

test('InitProducerId: idempotence needs WRITE on some topic (or IDEMPOTENT_WRITE), transactions the id', async () => {
  const body = (transactionalId: string | null) => ({
    transactionalId,
    transactionTimeoutMs: 60_000,
    producerId: -1n,
    producerEpoch: -1,
  });
  assert.equal((await link('alice').request(initProducerIdApi, body(null))).errorCode, ErrorCode.NONE);
  assert.equal(
    (await link('bob').request(initProducerIdApi, body(null))).errorCode,
    ErrorCode.CLUSTER_AUTHORIZATION_FAILED,
  );
  assert.equal(
    (await link('alice').request(initProducerIdApi, body('tx-1'))).errorCode,
    ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED,
  );
});

const anyFilter = {
  resourceTypeFilter: ResType.ANY,
  resourceNameFilter: null,
  patternTypeFilter: PatternCode.ANY,
  principalFilter: null,
  hostFilter: null,
  operation: AclOp.ANY,
  permissionType: Permission.ANY,
};

test('ACL APIs: CLUSTER ALTER / DESCRIBE, SECURITY_DISABLED without an authorizer, create-describe-delete', async () => {
  const alice = link('alice');
  assert.equal(
    (await alice.request(describeAclsApi, anyFilter)).errorCode,
    ErrorCode.CLUSTER_AUTHORIZATION_FAILED,
  );
  const create = {
    creations: [
      {
        resourceType: ResType.TOPIC,
        resourceName: 'x',
        resourcePatternType: PatternCode.LITERAL,
        principal: 'User:bob',
        host: '*',
        operation: AclOp.READ,
        permissionType: Permission.ALLOW,
      },
    ],
  };
  assert.equal(
    (await alice.request(createAclsApi, create)).results[0]!.errorCode,
    ErrorCode.CLUSTER_AUTHORIZATION_FAILED,
  );
  const off = link('alice', open);
  const disabled = await off.request(describeAclsApi, anyFilter);
  assert.equal(disabled.errorCode, ErrorCode.SECURITY_DISABLED);
  assert.equal((await off.request(createAclsApi, create)).results[0]!.errorCode, ErrorCode.SECURITY_DISABLED);
  assert.equal(
    (await off.request(deleteAclsApi, { filters: [anyFilter] })).filterResults[0]!.errorCode,
    ErrorCode.SECURITY_DISABLED,
  );
  const admin = link('admin');
  assert.equal((await admin.request(createAclsApi, create)).results[0]!.errorCode, ErrorCode.NONE);
  const described = await admin.request(describeAclsApi, { ...anyFilter, principalFilter: 'User:bob' });
  assert.deepEqual(
    described.resources.map((r) => [r.resourceName, r.acls.length]),
    [['x', 1]],
  );
  const deleted = await admin.request(deleteAclsApi, {
    filters: [{ ...anyFilter, principalFilter: 'User:bob' }],
  });
  assert.equal(deleted.filterResults[0]!.matchingAcls.length, 1);
  assert.equal(
    (await admin.request(describeAclsApi, { ...anyFilter, principalFilter: 'User:bob' })).resources.length,
    0,
  );
});

test('hostile ACL requests: UNKNOWN codes close that connection, invalid creations are INVALID_REQUEST', async () => {
  const admin = link('admin');
  await assert.rejects(admin.request(describeAclsApi, { ...anyFilter, resourceTypeFilter: 99 }));
  const bad = (over: Record<string, unknown>) => ({
    resourceType: ResType.TOPIC,
    resourceName: 'x',
    resourcePatternType: PatternCode.LITERAL,
    principal: 'User:bob',
    host: '*',
    operation: AclOp.READ,
    permissionType: Permission.ALLOW,
    ...over,
  });
  const r = await link('admin').request(createAclsApi, {
    creations: [
      bad({ resourcePatternType: PatternCode.MATCH }),
      bad({ resourceType: ResType.ANY }),
      bad({ operation: AclOp.ANY }),
      bad({ resourceName: '' }),
      bad({ resourceType: ResType.CLUSTER, resourceName: 'other' }),
      bad({ principal: 'nobody' }),
    ],
  });
  assert.deepEqual(
    r.results.map((x) => x.errorCode),
    Array(6).fill(ErrorCode.INVALID_REQUEST),
  );
  await assert.rejects(
    link('admin').request(deleteAclsApi, { filters: [{ ...anyFilter, operation: 0 }] }),
    'UNKNOWN operation closes the connection',
  );
  // The broker keeps serving.
  const md = await link('admin').request(metadataApi, metadata(null), { maxVersion: 10 });
  assert.ok(md.topics.length >= 2);
});

test('an authorizer class Samsa does not have stops the broker from starting', async () => {
  await assert.rejects(
    startBroker({
      overrides: {
        'authorizer.class.name': 'com.example.CustomAuthorizer',
        'log.dirs': '/nonexistent/never-used',
      },
    }),
    /authorizer.class.name=com.example.CustomAuthorizer is not supported/,
  );
});
