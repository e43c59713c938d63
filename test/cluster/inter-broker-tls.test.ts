// A 3-broker cluster whose brokers and controller talk over an SSL listener
// (`inter.broker.listener.name=INTERNAL`, mutual TLS with per-listener `listener.name.internal.ssl.*`
// PKCS12 stores) while clients use PLAINTEXT: every broker registers both endpoints in ZooKeeper
// (Kafka's JSON), Metadata through PLAINTEXT gives PLAINTEXT ports only, replication works
// (acks=all, full ISR, a follower's log holds the records), and so do transactions whose markers
// go to leaders on other brokers.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ZkClient } from '../../src/broker/metadata/zookeeper/zk-client.js';
import { Admin, Consumer, Producer } from '../../src/client/index.js';
import { BrokerLink } from '../../src/net/index.js';
import { metadataApi } from '../../src/protocol/messages/generated/metadata.js';
import { startTestCluster, type TestCluster } from '../../src/testkit/index.js';
import { scaled } from '../support/timeouts.js';
import { makeTestCerts, STORE_PASSWORD, type TestCerts } from '../support/tls-certs.js';
import { leaderOf, waitForFullIsr } from './support.js';

let certs: TestCerts;
let cluster: TestCluster;

before(async () => {
  certs = makeTestCerts();
  cluster = await startTestCluster({
    brokers: 3,
    mode: 'in-process',
    extraListeners: 'INTERNAL://127.0.0.1:0',
    overrides: {
      'listener.security.protocol.map': 'PLAINTEXT:PLAINTEXT,INTERNAL:SSL',
      'inter.broker.listener.name': 'INTERNAL',
      'listener.name.internal.ssl.keystore.location': certs.brokerP12,
      'listener.name.internal.ssl.keystore.type': 'PKCS12',
      'listener.name.internal.ssl.keystore.password': STORE_PASSWORD,
      'listener.name.internal.ssl.truststore.location': certs.caCert,
      'listener.name.internal.ssl.truststore.type': 'PEM',
      'listener.name.internal.ssl.client.auth': 'required',
      'group.initial.rebalance.delay.ms': 0,
    },
  });
});
after(async () => {
  await cluster?.close();
  certs?.remove();
});

test('every broker registers both endpoints in /brokers/ids/<id>, as Kafka writes them', async () => {
  const zk = await ZkClient.connect(cluster.zookeeperConnect, { sessionTimeoutMs: 10_000 });
  try {
    for (const id of cluster.nodeIds) {
      const reg = JSON.parse((await zk.getData(`/brokers/ids/${id}`)).data!.toString());
      assert.deepEqual(reg.listener_security_protocol_map, { PLAINTEXT: 'PLAINTEXT', INTERNAL: 'SSL' });
      assert.equal(reg.endpoints.length, 2);
      assert.equal(reg.endpoints[0], `PLAINTEXT://127.0.0.1:${cluster.broker(id).port}`);
      assert.match(reg.endpoints[1], /^INTERNAL:\/\/127\.0\.0\.1:\d+$/);
      assert.equal(reg.port, cluster.broker(id).port, 'host/port are the PLAINTEXT endpoint');
    }
  } finally {
    await zk.close();
  }
});

test('replication over the SSL inter-broker listener; clients on PLAINTEXT', {
  timeout: scaled(180_000),
}, async () => {
  const bootstrapServers = cluster.bootstrap();
  const admin = new Admin({ bootstrapServers });
  try {
    await admin.createTopics([{ name: 'replicated-tls', numPartitions: 2, replicationFactor: 3 }]);
  } finally {
    await admin.close();
  }
  await waitForFullIsr(cluster, ['replicated-tls']);
  const producer = new Producer({ bootstrapServers, acks: 'all' });
  for (let i = 0; i < 50; i++)
    await producer.send({ topic: 'replicated-tls', partition: i % 2, value: `v${i}` });
  await producer.close();
  // acks=all answered: every ISR member has the records; the ISR stays full.
  const views = await waitForFullIsr(cluster, ['replicated-tls']);
  for (const v of views.values()) assert.deepEqual(v.brokers, [1, 2, 3]);
  // Clients are given the PLAINTEXT endpoints only, never the inter-broker ones.
  const link = new BrokerLink(-1, '127.0.0.1', cluster.broker(1).port!, { clientId: 'ports' });
  try {
    const md = await link.request(metadataApi, {
      topics: [],
      allowAutoTopicCreation: false,
      includeTopicAuthorizedOperations: false,
      includeClusterAuthorizedOperations: false,
    });
    assert.deepEqual(
      md.brokers.map((b) => b.port).sort(),
      cluster.nodeIds.map((id) => cluster.broker(id).port).sort(),
    );
  } finally {
    link.close();
  }
  const consumer = new Consumer({ bootstrapServers, groupId: 'tls-cluster', autoOffsetReset: 'earliest' });
  consumer.subscribe(['replicated-tls']);
  const got = new Set<string>();
  const deadline = Date.now() + scaled(90_000);
  try {
    while (got.size < 50) {
      assert.ok(Date.now() < deadline, `consuming timed out with ${got.size} records`);
      for (const r of await consumer.poll(500)) got.add(r.value!.toString());
    }
  } finally {
    await consumer.close();
  }
  assert.equal(got.size, 50);
});

test('a transaction over partitions led by every broker commits and aborts through the SSL inter-broker listener', {
  timeout: scaled(180_000),
}, async () => {
  const bootstrapServers = cluster.bootstrap();
  const admin = new Admin({ bootstrapServers });
  try {
    // Three partitions, RF 3: leaders on the three brokers, so the transaction coordinator sends
    // markers to the other two over INTERNAL.
    await admin.createTopics([{ name: 'txn-tls', numPartitions: 3, replicationFactor: 3 }]);
  } finally {
    await admin.close();
  }
  const views = await waitForFullIsr(cluster, ['txn-tls']);
  const leaders = new Set([0, 1, 2].map((p) => leaderOf(views.get(1)!, 'txn-tls', p)));
  assert.ok(leaders.size > 1, `partitions led by ${[...leaders]}`);
  const producer = new Producer({ bootstrapServers, transactionalId: 'tls-txn', acks: 'all' });
  try {
    await producer.initTransactions();
    producer.beginTransaction();
    for (let i = 0; i < 30; i++)
      await producer.send({ topic: 'txn-tls', partition: i % 3, value: `kept-${i}` });
    await producer.commitTransaction();
    producer.beginTransaction();
    for (let i = 0; i < 30; i++)
      await producer.send({ topic: 'txn-tls', partition: i % 3, value: `dropped-${i}` });
    await producer.abortTransaction();
    producer.beginTransaction();
    await producer.send({ topic: 'txn-tls', partition: 0, value: 'last' });
    await producer.commitTransaction();
  } finally {
    await producer.close();
  }
  const consumer = new Consumer({
    bootstrapServers,
    groupId: 'tls-txn-reader',
    autoOffsetReset: 'earliest',
    isolationLevel: 'read_committed',
  });
  consumer.subscribe(['txn-tls']);
  const got: string[] = [];
  const deadline = Date.now() + scaled(90_000);
  try {
    // Each partition's records show once its marker is written (its LSO moves past them).
    while (!got.includes('last') || got.filter((v) => v.startsWith('kept')).length < 30) {
      assert.ok(Date.now() < deadline, `consuming timed out with ${got.length} records`);
      for (const r of await consumer.poll(500)) got.push(r.value!.toString());
    }
  } finally {
    await consumer.close();
  }
  assert.deepEqual(
    got.filter((v) => v.startsWith('dropped')),
    [],
    'aborted records are not read',
  );
  assert.equal(got.filter((v) => v.startsWith('kept')).length, 30);
});
