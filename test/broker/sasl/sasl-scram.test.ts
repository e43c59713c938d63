// SASL/SCRAM-SHA-256 and -512 with credentials managed through AlterUserScramCredentials /
// DescribeUserScramCredentials (our Admin) and kept in the metadata store: in ZooKeeper under
// /config/users/<user> in Kafka's format. Our client produces and consumes with each mechanism;
// wrong passwords, unknown users and deleted credentials fail as Kafka fails them.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ZkClient } from '../../../src/broker/metadata/zookeeper/zk-client.js';
import { Admin, Consumer, Producer } from '../../../src/client/index.js';
import { BrokerLink, KafkaResponseError } from '../../../src/net/index.js';
import { clientKey, hash, saltedPassword } from '../../../src/net/sasl/scram-crypto.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { metadataApi } from '../../../src/protocol/messages/generated/metadata.js';
import { startTestBroker, type TestBroker } from '../../../src/testkit/index.js';
import { startTestZooKeeper, type TestZooKeeper } from '../../../src/testkit/zookeeper.js';
import { scaled } from '../../support/timeouts.js';
import { metadataRequest } from './support.js';

let zk: TestZooKeeper;
let chroot: string;
let broker: TestBroker;
let admin: Admin;
const PASSWORD = 'carol-Scram-4c1e';

before(async () => {
  zk = await startTestZooKeeper();
  chroot = await zk.chroot('sasl');
  broker = await startTestBroker({
    overrides: {
      'zookeeper.connect': chroot,
      listeners: 'PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0',
      'sasl.enabled.mechanisms': 'SCRAM-SHA-256,SCRAM-SHA-512',
      'group.initial.rebalance.delay.ms': 0,
      'connection.failed.authentication.delay.ms': 10,
    },
  });
  admin = new Admin({ bootstrapServers: broker.bootstrapFor('PLAINTEXT') });
  await admin.alterUserScramCredentials([
    { type: 'upsert', user: 'carol', mechanism: 'SCRAM-SHA-256', password: PASSWORD },
    { type: 'upsert', user: 'carol', mechanism: 'SCRAM-SHA-512', password: PASSWORD, iterations: 8192 },
    { type: 'upsert', user: 'dave@example.com', mechanism: 'SCRAM-SHA-512', password: PASSWORD },
  ]);
});
after(async () => {
  await admin?.close();
  await broker?.close();
  await zk?.stop();
});

const port = () => Number(broker.bootstrapFor('SASL_PLAINTEXT').split(':').at(-1));

test('DescribeUserScramCredentials lists mechanisms and iterations, never keys', async () => {
  assert.deepEqual(await admin.describeUserScramCredentials(), [
    {
      user: 'carol',
      credentials: [
        { mechanism: 'SCRAM-SHA-256', iterations: 4096 },
        { mechanism: 'SCRAM-SHA-512', iterations: 8192 },
      ],
    },
    { user: 'dave@example.com', credentials: [{ mechanism: 'SCRAM-SHA-512', iterations: 4096 }] },
  ]);
  await assert.rejects(admin.describeUserScramCredentials(['nobody']), (e: KafkaResponseError) => {
    assert.equal(e.errorCode, ErrorCode.RESOURCE_NOT_FOUND);
    return true;
  });
});

test("ZooKeeper holds Kafka's format under /config/users/<sanitized user>", async () => {
  const c = await ZkClient.connect(chroot, { connectionTimeoutMs: scaled(20_000) });
  try {
    const { data } = await c.getData('/config/users/carol');
    const json = JSON.parse(data!.toString()) as { version: number; config: Record<string, string> };
    assert.equal(json.version, 1);
    const fields = Object.fromEntries(
      json.config['SCRAM-SHA-256']!.split(',').map((f) => [
        f.slice(0, f.indexOf('=')),
        f.slice(f.indexOf('=') + 1),
      ]),
    );
    assert.deepEqual(Object.keys(fields), ['salt', 'stored_key', 'server_key', 'iterations']);
    const salted = saltedPassword('SCRAM-SHA-256', PASSWORD, Buffer.from(fields.salt!, 'base64'), 4096);
    assert.equal(
      hash('SCRAM-SHA-256', clientKey('SCRAM-SHA-256', salted)).toString('base64'),
      fields.stored_key,
    );
    assert.ok(!data!.toString().includes(PASSWORD));
    assert.deepEqual((await c.getChildren('/config/users')).sort(), ['carol', 'dave%40example.com']);
  } finally {
    await c.close();
  }
});

for (const mechanism of ['SCRAM-SHA-256', 'SCRAM-SHA-512'] as const) {
  test(`our client produces and consumes with ${mechanism}`, async () => {
    const bootstrapServers = broker.bootstrapFor('SASL_PLAINTEXT');
    const sasl = { mechanism, username: 'carol', password: PASSWORD };
    const topic = `scram-${mechanism.toLowerCase()}`;
    const producer = new Producer({ bootstrapServers, sasl });
    for (let i = 0; i < 3; i++) await producer.send({ topic, value: `v${i}` });
    await producer.close();
    const consumer = new Consumer({
      bootstrapServers,
      sasl,
      groupId: `g-${topic}`,
      autoOffsetReset: 'earliest',
    });
    consumer.subscribe([topic]);
    const values: string[] = [];
    const deadline = Date.now() + scaled(60_000);
    try {
      while (values.length < 3) {
        assert.ok(Date.now() < deadline, `consuming timed out with ${values.length} records`);
        for (const r of await consumer.poll(500)) values.push(r.value!.toString());
      }
    } finally {
      await consumer.close();
    }
    assert.deepEqual(values, ['v0', 'v1', 'v2']);
  });
}

async function authError(
  mechanism: 'SCRAM-SHA-256' | 'SCRAM-SHA-512' | 'PLAIN',
  username: string,
  password: string,
) {
  const link = new BrokerLink(-1, '127.0.0.1', port(), {
    clientId: 'neg',
    sasl: { mechanism, username, password },
  });
  try {
    await link.request(metadataApi, metadataRequest());
  } catch (e) {
    assert.ok(e instanceof KafkaResponseError, String(e));
    return e;
  } finally {
    link.close();
  }
  return assert.fail('authentication should have failed');
}

test('a wrong password, an unknown user and a disabled mechanism fail as Kafka', async () => {
  const wrong = await authError('SCRAM-SHA-256', 'carol', 'wrong');
  assert.equal(wrong.errorCode, ErrorCode.SASL_AUTHENTICATION_FAILED);
  assert.match(wrong.message, /invalid credentials with SASL mechanism SCRAM-SHA-256/);
  const unknown = await authError('SCRAM-SHA-512', 'nobody', PASSWORD);
  assert.equal(unknown.errorCode, ErrorCode.SASL_AUTHENTICATION_FAILED);
  assert.equal(
    unknown.message.replaceAll('SHA-512', 'SHA-256'),
    wrong.message,
    'an unknown user looks like a wrong password',
  );
  const plain = await authError('PLAIN', 'carol', PASSWORD);
  assert.equal(plain.errorCode, ErrorCode.UNSUPPORTED_SASL_MECHANISM);
});

test('AlterUserScramCredentials refuses what Kafka refuses', async () => {
  const refused = async (a: Parameters<Admin['alterUserScramCredentials']>[0], code: number) =>
    assert.rejects(admin.alterUserScramCredentials(a), (e: KafkaResponseError) => {
      assert.equal(e.errorCode, code, e.message);
      return true;
    });
  await refused(
    [{ type: 'upsert', user: 'x', mechanism: 'SCRAM-SHA-256', password: 'p', iterations: 100 }],
    ErrorCode.UNACCEPTABLE_CREDENTIAL,
  );
  await refused(
    [{ type: 'upsert', user: 'x', mechanism: 'SCRAM-SHA-256', password: 'p', iterations: 20000 }],
    ErrorCode.UNACCEPTABLE_CREDENTIAL,
  );
  await refused(
    [{ type: 'upsert', user: '', mechanism: 'SCRAM-SHA-256', password: 'p' }],
    ErrorCode.UNACCEPTABLE_CREDENTIAL,
  );
  await refused(
    [{ type: 'delete', user: 'nobody', mechanism: 'SCRAM-SHA-256' }],
    ErrorCode.RESOURCE_NOT_FOUND,
  );
  await refused(
    [
      { type: 'upsert', user: 'x', mechanism: 'SCRAM-SHA-256', password: 'p' },
      { type: 'delete', user: 'x', mechanism: 'SCRAM-SHA-256' },
    ],
    ErrorCode.DUPLICATE_RESOURCE,
  );
});

test('a deleted credential no longer authenticates; the other mechanism still does', async () => {
  await admin.alterUserScramCredentials([
    { type: 'delete', user: 'dave@example.com', mechanism: 'SCRAM-SHA-512' },
  ]);
  const e = await authError('SCRAM-SHA-512', 'dave@example.com', PASSWORD);
  assert.equal(e.errorCode, ErrorCode.SASL_AUTHENTICATION_FAILED);
  assert.deepEqual(
    (await admin.describeUserScramCredentials()).map((u) => u.user),
    ['carol'],
  );
});
