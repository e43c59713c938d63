// Brokers that authenticate to each other: the inter-broker listener is SASL_PLAINTEXT with PLAIN,
// each broker presenting the `username`/`password` of the listener's JAAS line. Replication,
// controller requests and the ISR all travel over it, so a topic with min.insync.replicas=3
// takes acks=all writes only while every follower fetches through an authenticated connection.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Admin, Consumer, Producer } from '../../src/client/index.js';
import { startTestCluster, type TestCluster } from '../../src/testkit/index.js';
import { scaled } from '../support/timeouts.js';

const BROKER_PASSWORD = 'broker-Inter-51ff';
const JAAS =
  'org.apache.kafka.common.security.plain.PlainLoginModule required ' +
  `username="broker" password="${BROKER_PASSWORD}" user_broker="${BROKER_PASSWORD}";`;
let cluster: TestCluster;

before(async () => {
  cluster = await startTestCluster({
    brokers: 3,
    mode: 'in-process',
    extraListeners: 'INTERNAL://127.0.0.1:0',
    overrides: {
      'listener.security.protocol.map': 'PLAINTEXT:PLAINTEXT,INTERNAL:SASL_PLAINTEXT',
      'inter.broker.listener.name': 'INTERNAL',
      'sasl.mechanism.inter.broker.protocol': 'PLAIN',
      'listener.name.internal.sasl.enabled.mechanisms': 'PLAIN',
      'listener.name.internal.plain.sasl.jaas.config': JAAS,
      'group.initial.rebalance.delay.ms': 0,
    },
  });
});
after(async () => {
  await cluster?.close();
});

test('replication over a SASL inter-broker listener: acks=all with min ISR 3, every replica in sync', async () => {
  const bootstrapServers = cluster.bootstrap();
  const admin = new Admin({ bootstrapServers });
  try {
    await admin.createTopics([
      {
        name: 'sasl-inter',
        numPartitions: 3,
        replicationFactor: 3,
        configs: { 'min.insync.replicas': '3' },
      },
    ]);
    const producer = new Producer({ bootstrapServers, acks: -1 });
    try {
      for (let i = 0; i < 30; i++)
        await producer.send({ topic: 'sasl-inter', partition: i % 3, value: `v${i}` });
    } finally {
      await producer.close();
    }
    const [topic] = await admin.describeTopics(['sasl-inter']);
    for (const p of topic!.partitions)
      assert.deepEqual([...p.isr].sort(), [1, 2, 3], `partition ${p.partition}`);
  } finally {
    await admin.close();
  }
  const consumer = new Consumer({ bootstrapServers, groupId: 'sasl-inter', autoOffsetReset: 'earliest' });
  consumer.subscribe(['sasl-inter']);
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
