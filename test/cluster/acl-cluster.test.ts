// ACLs across a 2-broker cluster over ZooKeeper (in-process), clients on SASL_PLAINTEXT PLAIN,
// the brokers talking over PLAINTEXT whose User:ANONYMOUS is a super user: an ACL created
// through broker 1 is enforced by broker 2 within a bounded time (the /kafka-acl-changes
// notification), a deletion likewise, and a restarted broker enforces the ACLs it reads back
// from ZooKeeper before answering anything.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ZkClient } from '../../src/broker/metadata/zookeeper/zk-client.js';
import { AclOp, PatternCode, Permission, ResType } from '../../src/broker/security/acl-model.js';
import { Admin } from '../../src/client/index.js';
import { BrokerLink } from '../../src/net/index.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { createAclsApi } from '../../src/protocol/messages/generated/create-acls.js';
import { deleteAclsApi } from '../../src/protocol/messages/generated/delete-acls.js';
import { metadataApi } from '../../src/protocol/messages/generated/metadata.js';
import { startTestCluster, type TestCluster } from '../../src/testkit/index.js';
import { PASSWORDS, plainJaas } from '../broker/sasl/support.js';
import { scaled } from '../support/timeouts.js';

let cluster: TestCluster;
const links: BrokerLink[] = [];

async function saslPort(id: number): Promise<number> {
  const zk = await ZkClient.connect(cluster.zookeeperConnect, { connectionTimeoutMs: scaled(20_000) });
  try {
    const reg = JSON.parse((await zk.getData(`/brokers/ids/${id}`)).data!.toString()) as {
      endpoints: string[];
    };
    return Number(
      reg.endpoints
        .find((e) => e.startsWith('SASL_PLAINTEXT://'))!
        .split(':')
        .at(-1),
    );
  } finally {
    await zk.close();
  }
}

async function link(id: number, user: keyof typeof PASSWORDS): Promise<BrokerLink> {
  const l = new BrokerLink(-1, '127.0.0.1', await saslPort(id), {
    clientId: `acl-cluster-${user}`,
    sasl: { mechanism: 'PLAIN', username: user, password: PASSWORDS[user] },
  });
  links.push(l);
  return l;
}

/** The Metadata error code alice gets for the topic from this link. */
async function aliceSees(l: BrokerLink, topic: string): Promise<number> {
  const md = await l.request(metadataApi, {
    topics: [{ name: topic, topicId: 'AAAAAAAAAAAAAAAAAAAAAA' }],
    allowAutoTopicCreation: false,
    includeTopicAuthorizedOperations: false,
    includeClusterAuthorizedOperations: false,
  });
  return md.topics[0]!.errorCode;
}

async function eventuallyCode(l: BrokerLink, topic: string, code: number, what: string): Promise<void> {
  const deadline = Date.now() + scaled(20_000);
  for (;;) {
    const got = await aliceSees(l, topic);
    if (got === code) return;
    assert.ok(Date.now() < deadline, `${what}: still ${got}, wanted ${code}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const aliceDescribes = (name: string) => ({
  resourceType: ResType.TOPIC,
  resourceName: name,
  resourcePatternType: PatternCode.LITERAL,
  principal: 'User:alice',
  host: '*',
  operation: AclOp.DESCRIBE,
  permissionType: Permission.ALLOW,
});

before(async () => {
  cluster = await startTestCluster({
    brokers: 2,
    mode: 'in-process',
    extraListeners: 'SASL_PLAINTEXT://127.0.0.1:0',
    overrides: {
      'listener.security.protocol.map': 'PLAINTEXT:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT',
      'sasl.enabled.mechanisms': 'PLAIN',
      'sasl.jaas.config': plainJaas(),
      'authorizer.class.name': 'kafka.security.authorizer.AclAuthorizer',
      // The brokers' own PLAINTEXT links are anonymous.
      'super.users': 'User:admin;User:ANONYMOUS',
    },
  });
  const admin = new Admin({ bootstrapServers: cluster.broker(1).bootstrap! });
  try {
    await admin.createTopics(
      ['c-one', 'c-two'].map((name) => ({ name, numPartitions: 2, replicationFactor: 2 })),
    );
  } finally {
    await admin.close();
  }
});

after(async () => {
  for (const l of links) l.close();
  await cluster?.close();
});

test('an ACL created or deleted through broker 1 is enforced by broker 2', async () => {
  const adminOn1 = await link(1, 'admin');
  const aliceOn2 = await link(2, 'alice');
  assert.equal(await aliceSees(aliceOn2, 'c-one'), ErrorCode.TOPIC_AUTHORIZATION_FAILED);
  const created = await adminOn1.request(createAclsApi, { creations: [aliceDescribes('c-one')] });
  assert.equal(created.results[0]!.errorCode, ErrorCode.NONE);
  await eventuallyCode(aliceOn2, 'c-one', ErrorCode.NONE, 'the creation on broker 2');
  const deleted = await adminOn1.request(deleteAclsApi, {
    filters: [
      {
        resourceTypeFilter: ResType.TOPIC,
        resourceNameFilter: 'c-one',
        patternTypeFilter: PatternCode.LITERAL,
        principalFilter: 'User:alice',
        hostFilter: null,
        operation: AclOp.ANY,
        permissionType: Permission.ANY,
      },
    ],
  });
  assert.equal(deleted.filterResults[0]!.matchingAcls.length, 1);
  await eventuallyCode(aliceOn2, 'c-one', ErrorCode.TOPIC_AUTHORIZATION_FAILED, 'the deletion on broker 2');
});

test('a restarted broker reloads the ACLs from ZooKeeper', async () => {
  const adminOn1 = await link(1, 'admin');
  const created = await adminOn1.request(createAclsApi, { creations: [aliceDescribes('c-two')] });
  assert.equal(created.results[0]!.errorCode, ErrorCode.NONE);
  await cluster.stop(2);
  await cluster.restart(2);
  // Its first answer already knows the ACL (loaded before the listeners open).
  assert.equal(await aliceSees(await link(2, 'alice'), 'c-two'), ErrorCode.NONE);
  assert.equal(await aliceSees(await link(2, 'alice'), 'c-one'), ErrorCode.TOPIC_AUTHORIZATION_FAILED);
});
