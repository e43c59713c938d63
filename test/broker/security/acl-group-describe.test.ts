// Group describes under ACLs (SASL/PLAIN users, `authorizer.class.name` set), as Kafka 4 answers
// them: DESCRIBE on the group or GROUP_AUTHORIZATION_FAILED; a consumer group whose members'
// current or target assignments name a topic the principal may not DESCRIBE is answered
// TOPIC_AUTHORIZATION_FAILED without its members (the topic names stay hidden); ListGroups shows
// only the groups the principal may describe, with their type.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { AclOp } from '../../../src/broker/security/acl-model.js';
import { Admin } from '../../../src/client/admin/admin.js';
import { BrokerLink } from '../../../src/net/index.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { consumerGroupDescribeApi } from '../../../src/protocol/messages/generated/consumer-group-describe.js';
import { consumerGroupHeartbeatApi } from '../../../src/protocol/messages/generated/consumer-group-heartbeat.js';
import { describeGroupsApi } from '../../../src/protocol/messages/generated/describe-groups.js';
import { findCoordinatorApi } from '../../../src/protocol/messages/generated/find-coordinator.js';
import { listGroupsApi } from '../../../src/protocol/messages/generated/list-groups.js';
import { startTestBroker, type TestBroker } from '../../../src/testkit/index.js';
import { PASSWORDS, plainJaas } from '../sasl/support.js';

let broker: TestBroker;
const links: BrokerLink[] = [];

function link(user: keyof typeof PASSWORDS): BrokerLink {
  const [host, port] = broker.bootstrapFor('SASL_PLAINTEXT').split(':');
  const l = new BrokerLink(-1, host!, Number(port), {
    clientId: `describe-${user}`,
    sasl: { mechanism: 'PLAIN', username: user, password: PASSWORDS[user] },
  });
  links.push(l);
  return l;
}

before(async () => {
  broker = await startTestBroker({
    overrides: {
      listeners: 'PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0',
      'inter.broker.listener.name': 'PLAINTEXT',
      'sasl.enabled.mechanisms': 'PLAIN',
      'sasl.jaas.config': plainJaas(),
      'authorizer.class.name': 'kafka.security.authorizer.AclAuthorizer',
      'super.users': 'User:admin;User:ANONYMOUS',
      'group.consumer.session.timeout.ms': 600_000,
    },
  });
  // Topics and ACLs through our admin client, as the super user.
  const setup = new Admin({
    bootstrapServers: broker.bootstrapFor('SASL_PLAINTEXT'),
    sasl: { mechanism: 'PLAIN', username: 'admin', password: PASSWORDS.admin },
  });
  try {
    await setup.createTopics(
      ['allowed', 'hidden'].map((name) => ({ name, numPartitions: 2, replicationFactor: 1 })),
    );
    const aliceDescribes = (
      resourceType: 'TOPIC' | 'GROUP',
      name: string,
      patternType: 'LITERAL' | 'PREFIXED',
    ) => ({
      pattern: { resourceType, name, patternType },
      entry: {
        principal: 'User:alice',
        host: '*',
        operation: 'DESCRIBE' as const,
        permissionType: 'ALLOW' as const,
      },
    });
    await setup.createAcls([
      aliceDescribes('TOPIC', 'allowed', 'LITERAL'),
      aliceDescribes('GROUP', 'g-', 'PREFIXED'),
    ]);
  } finally {
    await setup.close();
  }
  const admin = link('admin');
  await admin.request(findCoordinatorApi, { key: '', keyType: 0, coordinatorKeys: ['g-open'] });
  // The admin (a super user) makes the consumer groups.
  for (const [group, topics] of [
    ['g-open', ['allowed']],
    ['g-secret', ['hidden']],
    ['g-both', ['allowed', 'hidden']],
    ['other', ['allowed']],
  ] as const) {
    const r = await admin.request(consumerGroupHeartbeatApi, {
      groupId: group,
      memberId: `${group}-member`,
      memberEpoch: 0,
      instanceId: null,
      rackId: null,
      rebalanceTimeoutMs: 30_000,
      subscribedTopicNames: [...topics],
      subscribedTopicRegex: null,
      serverAssignor: null,
      topicPartitions: [],
    });
    assert.equal(r.errorCode, 0, group);
  }
});

after(async () => {
  for (const l of links) l.close();
  await broker?.close();
});

test('ConsumerGroupDescribe: a group naming a topic the principal may not describe is TOPIC_AUTHORIZATION_FAILED, without members', async () => {
  const ids = ['g-open', 'g-secret', 'g-both', 'other', 'g-none'];
  const alice = await link('alice').request(consumerGroupDescribeApi, {
    groupIds: ids,
    includeAuthorizedOperations: true,
  });
  const hidden = 'The group has described topic(s) that the client is not authorized to describe.';
  assert.deepEqual(
    alice.groups.map((g) => [g.groupId, g.errorCode, g.errorMessage, g.members.length]),
    [
      ['g-open', 0, null, 1],
      ['g-secret', ErrorCode.TOPIC_AUTHORIZATION_FAILED, hidden, 0],
      ['g-both', ErrorCode.TOPIC_AUTHORIZATION_FAILED, hidden, 0],
      ['other', ErrorCode.GROUP_AUTHORIZATION_FAILED, null, 0],
      ['g-none', ErrorCode.GROUP_ID_NOT_FOUND, 'Group g-none not found.', 0],
    ],
  );
  const open = alice.groups[0]!;
  assert.deepEqual(
    open.members[0]!.assignment.topicPartitions.map((t) => [t.topicName, t.partitions]),
    [['allowed', [0, 1]]],
  );
  assert.equal(open.authorizedOperations, 1 << AclOp.DESCRIBE, 'alice may only describe it');
  assert.ok(alice.groups.slice(1).every((g) => g.authorizedOperations === -2147483648));
  // The admin sees everything.
  const admin = await link('admin').request(consumerGroupDescribeApi, {
    groupIds: ids.slice(0, 4),
    includeAuthorizedOperations: false,
  });
  assert.deepEqual(
    admin.groups.map((g) => [g.groupId, g.errorCode, g.members[0]?.assignment.topicPartitions.length]),
    [
      ['g-open', 0, 1],
      ['g-secret', 0, 1],
      ['g-both', 0, 2],
      ['other', 0, 1],
    ],
  );
});

test('DescribeGroups v6 and ListGroups for a principal with some group ACLs', async () => {
  const alice = link('alice');
  const d = await alice.request(describeGroupsApi, {
    groups: ['g-open', 'other'],
    includeAuthorizedOperations: false,
  });
  assert.deepEqual(
    d.groups.map((g) => [g.groupId, g.errorCode, g.errorMessage]),
    [
      ['g-open', ErrorCode.GROUP_ID_NOT_FOUND, 'Group g-open is not a classic group.'],
      ['other', ErrorCode.GROUP_AUTHORIZATION_FAILED, null],
    ],
  );
  const listed = await alice.request(listGroupsApi, { statesFilter: [], typesFilter: ['consumer'] });
  assert.deepEqual(listed.groups.map((g) => `${g.groupId}:${g.groupType}`).sort(), [
    'g-both:consumer',
    'g-open:consumer',
    'g-secret:consumer',
  ]);
});
