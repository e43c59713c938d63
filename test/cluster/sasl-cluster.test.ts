// SASL/SCRAM across a 3-broker cluster: a credential created through one broker (in ZooKeeper)
// authenticates on every broker's SASL_PLAINTEXT listener; Metadata over SASL gives SASL
// endpoints, so our client produces (acks=all, RF 3) and consumes through all three brokers
// while the brokers replicate over PLAINTEXT.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ZkClient } from '../../src/broker/metadata/zookeeper/zk-client.js';
import { Admin, Consumer, Producer } from '../../src/client/index.js';
import { BrokerLink } from '../../src/net/index.js';
import { metadataApi } from '../../src/protocol/messages/generated/metadata.js';
import { startTestCluster, type TestCluster } from '../../src/testkit/index.js';
import { scaled } from '../support/timeouts.js';

const PASSWORD = 'frank-Scram-77aa';
const sasl = { mechanism: 'SCRAM-SHA-256' as const, username: 'frank', password: PASSWORD };
let cluster: TestCluster;
let saslPorts: number[];

before(async () => {
  cluster = await startTestCluster({
    brokers: 3,
    mode: 'in-process',
    extraListeners: 'SASL_PLAINTEXT://127.0.0.1:0',
    overrides: {
      'listener.security.protocol.map': 'PLAINTEXT:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT',
      'sasl.enabled.mechanisms': 'SCRAM-SHA-256',
      'group.initial.rebalance.delay.ms': 0,
    },
  });
  const admin = new Admin({ bootstrapServers: cluster.broker(2).bootstrap! });
  try {
    await admin.alterUserScramCredentials([
      { type: 'upsert', user: 'frank', mechanism: 'SCRAM-SHA-256', password: PASSWORD },
    ]);
    await admin.createTopics([{ name: 'sasl-rf3', numPartitions: 3, replicationFactor: 3 }]);
  } finally {
    await admin.close();
  }
  const zk = await ZkClient.connect(cluster.zookeeperConnect, { connectionTimeoutMs: scaled(20_000) });
  try {
    saslPorts = [];
    for (const id of [1, 2, 3]) {
      const reg = JSON.parse((await zk.getData(`/brokers/ids/${id}`)).data!.toString()) as {
        endpoints: string[];
      };
      const ep = reg.endpoints.find((e) => e.startsWith('SASL_PLAINTEXT://'))!;
      saslPorts.push(Number(ep.split(':').at(-1)));
    }
  } finally {
    await zk.close();
  }
});
after(async () => {
  await cluster?.close();
});

test('every broker authenticates the credential and answers with SASL endpoints', async () => {
  for (const p of saslPorts) {
    const link = new BrokerLink(-1, '127.0.0.1', p, { clientId: 'sasl-cluster', sasl });
    try {
      const md = await link.request(metadataApi, {
        topics: null,
        allowAutoTopicCreation: false,
        includeTopicAuthorizedOperations: false,
        includeClusterAuthorizedOperations: false,
      });
      assert.deepEqual(md.brokers.map((b) => b.port).sort(), [...saslPorts].sort());
    } finally {
      link.close();
    }
  }
});

test('our client produces (acks=all) and consumes through every broker over SASL', async () => {
  const bootstrapServers = `127.0.0.1:${saslPorts[0]}`;
  const producer = new Producer({ bootstrapServers, sasl, acks: -1 });
  try {
    for (let i = 0; i < 30; i++) await producer.send({ topic: 'sasl-rf3', partition: i % 3, value: `v${i}` });
  } finally {
    await producer.close();
  }
  const consumer = new Consumer({
    bootstrapServers,
    sasl,
    groupId: 'sasl-cluster',
    autoOffsetReset: 'earliest',
  });
  consumer.subscribe(['sasl-rf3']);
  const values = new Set<string>();
  const deadline = Date.now() + scaled(90_000);
  try {
    while (values.size < 30) {
      assert.ok(Date.now() < deadline, `consuming timed out with ${values.size} records`);
      for (const r of await consumer.poll(500)) values.add(r.value!.toString());
    }
  } finally {
    await consumer.close();
  }
  assert.equal(values.size, 30);
});
