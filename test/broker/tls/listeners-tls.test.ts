// A broker with a PLAINTEXT and an SSL listener (PEM keystore file): each listener's Metadata,
// DescribeCluster and FindCoordinator give that listener's endpoints, our client produces and
// consumes (with a group) over TLS, and a connection that speaks the wrong protocol — plaintext
// bytes on the TLS port, a TLS hello on the plaintext port — is closed alone.

import assert from 'node:assert/strict';
import { connect as netConnect, type Socket } from 'node:net';
import { after, before, test } from 'node:test';
import { connect as tlsConnect } from 'node:tls';
import { Consumer, Producer } from '../../../src/client/index.js';
import { BrokerLink } from '../../../src/net/index.js';
import { describeClusterApi } from '../../../src/protocol/messages/generated/describe-cluster.js';
import { findCoordinatorApi } from '../../../src/protocol/messages/generated/find-coordinator.js';
import { metadataApi } from '../../../src/protocol/messages/generated/metadata.js';
import { startTestBroker, type TestBroker } from '../../../src/testkit/index.js';
import { scaled } from '../../support/timeouts.js';
import { makeTestCerts, type TestCerts } from '../../support/tls-certs.js';

let certs: TestCerts;
let broker: TestBroker;
let ca: string;

before(async () => {
  certs = makeTestCerts();
  ca = certs.read(certs.caCert);
  broker = await startTestBroker({
    overrides: {
      listeners: 'PLAINTEXT://127.0.0.1:0,SSL://127.0.0.1:0',
      'ssl.keystore.type': 'PEM',
      'ssl.keystore.location': certs.brokerPem,
      'group.initial.rebalance.delay.ms': 0,
    },
  });
});
after(async () => {
  await broker?.close();
  certs?.remove();
});

const port = (bootstrap: string) => Number(bootstrap.split(':').at(-1));

function link(listener: 'PLAINTEXT' | 'SSL'): BrokerLink {
  const tls = listener === 'SSL' ? { tls: { ca } } : {};
  return new BrokerLink(-1, '127.0.0.1', port(broker.bootstrapFor(listener)), {
    clientId: 'tls-test',
    ...tls,
  });
}

test('registers both listeners; the first one is what `bootstrap` names', () => {
  assert.deepEqual(
    broker.endpoints.map((e) => [e.listener, e.securityProtocol]),
    [
      ['PLAINTEXT', 'PLAINTEXT'],
      ['SSL', 'SSL'],
    ],
  );
  assert.equal(broker.bootstrap, broker.bootstrapFor('PLAINTEXT'));
  assert.notEqual(broker.bootstrapFor('SSL'), broker.bootstrapFor('PLAINTEXT'));
});

for (const listener of ['PLAINTEXT', 'SSL'] as const) {
  test(`Metadata, DescribeCluster and FindCoordinator through ${listener} give ${listener} endpoints`, async () => {
    const l = link(listener);
    try {
      const expected = port(broker.bootstrapFor(listener));
      const md = await l.request(metadataApi, {
        topics: null,
        allowAutoTopicCreation: false,
        includeTopicAuthorizedOperations: false,
        includeClusterAuthorizedOperations: false,
      });
      assert.deepEqual(
        md.brokers.map((b) => [b.nodeId, b.host, b.port]),
        [[broker.nodeId, '127.0.0.1', expected]],
      );
      const dc = await l.request(describeClusterApi, {
        includeClusterAuthorizedOperations: false,
        endpointType: 1,
      });
      assert.deepEqual(
        dc.brokers.map((b) => b.port),
        [expected],
      );
      const deadline = Date.now() + scaled(30_000);
      for (;;) {
        const fc = await l.request(findCoordinatorApi, {
          key: `g-${listener}`,
          keyType: 0,
          coordinatorKeys: [`g-${listener}`],
        });
        const c = fc.coordinators[0] ?? fc;
        if (c.errorCode === 0) {
          assert.equal(c.port, expected);
          break;
        }
        assert.ok(Date.now() < deadline, `FindCoordinator timed out: error ${c.errorCode}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    } finally {
      l.close();
    }
  });
}

test('our client produces and consumes (group) over TLS', async () => {
  const bootstrapServers = broker.bootstrapFor('SSL');
  const producer = new Producer({ bootstrapServers, ssl: { ca } });
  for (let i = 0; i < 10; i++) await producer.send({ topic: 'tls-ours', key: `k${i}`, value: `v${i}` });
  await producer.close();
  const consumer = new Consumer({
    bootstrapServers,
    ssl: { ca },
    groupId: 'tls-group',
    autoOffsetReset: 'earliest',
  });
  consumer.subscribe(['tls-ours']);
  const values: string[] = [];
  const deadline = Date.now() + scaled(60_000);
  try {
    while (values.length < 10) {
      assert.ok(Date.now() < deadline, `consuming over TLS timed out with ${values.length} records`);
      for (const r of await consumer.poll(500)) values.push(r.value!.toString());
    }
  } finally {
    await consumer.close();
  }
  assert.deepEqual(
    values,
    Array.from({ length: 10 }, (_, i) => `v${i}`),
  );
});

test('a client that does not trust the broker certificate cannot connect', async () => {
  const l = new BrokerLink(-1, '127.0.0.1', port(broker.bootstrapFor('SSL')), {
    clientId: 'untrusting',
    tls: {},
    connectionTimeoutMs: scaled(10_000),
  });
  try {
    await assert.rejects(
      l.request(metadataApi, {
        topics: [],
        allowAutoTopicCreation: false,
        includeTopicAuthorizedOperations: false,
        includeClusterAuthorizedOperations: false,
      }),
      /self[- ]signed|unable to verify|unable to get local issuer/i,
    );
  } finally {
    l.close();
  }
});

function closed(socket: Socket): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error('timed out waiting for the broker to close the connection')),
      scaled(20_000),
    );
    socket.on('error', () => {});
    socket.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

async function stillServes(): Promise<void> {
  for (const listener of ['PLAINTEXT', 'SSL'] as const) {
    const l = link(listener);
    try {
      const md = await l.request(metadataApi, {
        topics: [],
        allowAutoTopicCreation: false,
        includeTopicAuthorizedOperations: false,
        includeClusterAuthorizedOperations: false,
      });
      assert.equal(md.brokers.length, 1);
    } finally {
      l.close();
    }
  }
}

test('plaintext Kafka bytes on the TLS port close that connection only', async () => {
  const bystander = link('SSL');
  await bystander.request(metadataApi, {
    topics: [],
    allowAutoTopicCreation: false,
    includeTopicAuthorizedOperations: false,
    includeClusterAuthorizedOperations: false,
  });
  const s = netConnect(port(broker.bootstrapFor('SSL')), '127.0.0.1');
  const done = closed(s);
  // An ApiVersions v0 request, as a plaintext client would send it.
  s.write(Buffer.from('0000000e001200000000000100047465737400', 'hex').subarray(0, 18));
  await done;
  await bystander.request(metadataApi, {
    topics: [],
    allowAutoTopicCreation: false,
    includeTopicAuthorizedOperations: false,
    includeClusterAuthorizedOperations: false,
  });
  bystander.close();
  await stillServes();
});

test('a TLS hello on the plaintext port closes that connection only', async () => {
  const s = tlsConnect({ host: '127.0.0.1', port: port(broker.bootstrap), ca, servername: 'localhost' });
  await closed(s);
  await stillServes();
});
