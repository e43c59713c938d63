// SASL/PLAIN on SASL_PLAINTEXT and SASL_SSL listeners (users from the JAAS line): our client
// produces and consumes with a group; wrong password, unknown user and a disabled mechanism fail
// as Kafka fails them; a non-SASL request before authentication closes that connection only;
// the principal is User:<name>; no password reaches the broker's log.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Logger } from '../../../src/broker/logger.js';
import { Consumer, Producer } from '../../../src/client/index.js';
import { BrokerLink, KafkaResponseError } from '../../../src/net/index.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { metadataApi } from '../../../src/protocol/messages/generated/metadata.js';
import { startTestBroker, type TestBroker } from '../../../src/testkit/index.js';
import { scaled } from '../../support/timeouts.js';
import { makeTestCerts, type TestCerts } from '../../support/tls-certs.js';
import { bareConnection, metadataRequest, PASSWORDS, plainJaas } from './support.js';

let certs: TestCerts;
let broker: TestBroker;
let ca: string;
const logged: string[] = [];
const logger: Logger = {
  log: (level, msg, fields) => logged.push(`${level} ${msg} ${JSON.stringify(fields ?? {})}`),
};

before(async () => {
  certs = makeTestCerts();
  ca = certs.read(certs.caCert);
  broker = await startTestBroker({
    logger,
    overrides: {
      listeners: 'PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0,SASL_SSL://127.0.0.1:0',
      'sasl.enabled.mechanisms': 'PLAIN',
      'listener.name.sasl_plaintext.plain.sasl.jaas.config': plainJaas(),
      'sasl.jaas.config': plainJaas(),
      'ssl.keystore.type': 'PEM',
      'ssl.keystore.location': certs.brokerPem,
      'group.initial.rebalance.delay.ms': 0,
      'connection.failed.authentication.delay.ms': 10,
    },
  });
});
after(async () => {
  await broker?.close();
  certs?.remove();
});

const port = (listener: string) => Number(broker.bootstrapFor(listener).split(':').at(-1));

for (const listener of ['SASL_PLAINTEXT', 'SASL_SSL'] as const) {
  test(`our client produces and consumes with PLAIN over ${listener}`, async () => {
    const bootstrapServers = broker.bootstrapFor(listener);
    const ssl = listener === 'SASL_SSL' ? { ssl: { ca } } : {};
    const sasl = { mechanism: 'PLAIN' as const, username: 'alice', password: PASSWORDS.alice };
    const topic = `plain-${listener.toLowerCase()}`;
    const producer = new Producer({ bootstrapServers, ...ssl, sasl });
    for (let i = 0; i < 5; i++) await producer.send({ topic, value: `v${i}` });
    await producer.close();
    const consumer = new Consumer({
      bootstrapServers,
      ...ssl,
      sasl,
      groupId: `g-${topic}`,
      autoOffsetReset: 'earliest',
    });
    consumer.subscribe([topic]);
    const values: string[] = [];
    const deadline = Date.now() + scaled(60_000);
    try {
      while (values.length < 5) {
        assert.ok(Date.now() < deadline, `consuming timed out with ${values.length} records`);
        for (const r of await consumer.poll(500)) values.push(r.value!.toString());
      }
    } finally {
      await consumer.close();
    }
    assert.deepEqual(values, ['v0', 'v1', 'v2', 'v3', 'v4']);
  });
}

async function refusal(sasl: { mechanism: 'PLAIN' | 'SCRAM-SHA-256'; username: string; password: string }) {
  const link = new BrokerLink(-1, '127.0.0.1', port('SASL_PLAINTEXT'), { clientId: 'neg', sasl });
  try {
    await link.request(metadataApi, metadataRequest());
    assert.fail('authentication should have failed');
  } catch (e) {
    assert.ok(e instanceof KafkaResponseError, String(e));
    return e;
  } finally {
    link.close();
  }
}

test('a wrong password and an unknown user fail with SASL_AUTHENTICATION_FAILED', async () => {
  const wrong = await refusal({ mechanism: 'PLAIN', username: 'alice', password: 'not-her-password' });
  assert.equal(wrong.errorCode, ErrorCode.SASL_AUTHENTICATION_FAILED);
  assert.match(wrong.message, /Invalid username or password/);
  assert.doesNotMatch(wrong.message, /not-her-password/);
  const unknown = await refusal({ mechanism: 'PLAIN', username: 'mallory', password: 'x' });
  assert.equal(unknown.errorCode, ErrorCode.SASL_AUTHENTICATION_FAILED);
});

test('a mechanism the listener does not enable fails with UNSUPPORTED_SASL_MECHANISM', async () => {
  const e = await refusal({ mechanism: 'SCRAM-SHA-256', username: 'alice', password: PASSWORDS.alice });
  assert.equal(e.errorCode, ErrorCode.UNSUPPORTED_SASL_MECHANISM);
  assert.match(e.message, /PLAIN/);
});

test('every non-SASL request before authentication closes the connection; others keep being served', async () => {
  for (const key of [0, 1, 3, 10, 19, 32, 60]) {
    const c = await bareConnection(port('SASL_PLAINTEXT'));
    const closed = await c.sendRaw(c.header(key, 0));
    assert.ok(closed, `API key ${key} before authentication was answered instead of closing`);
  }
  const ok = new BrokerLink(-1, '127.0.0.1', port('SASL_PLAINTEXT'), {
    clientId: 'bystander',
    sasl: { mechanism: 'PLAIN', username: 'bob', password: PASSWORDS.bob },
  });
  try {
    const md = await ok.request(metadataApi, metadataRequest());
    assert.equal(md.brokers.length, 1);
  } finally {
    ok.close();
  }
});

test('a frame above sasl.server.max.receive.size before authentication closes the connection', async () => {
  const c = await bareConnection(port('SASL_PLAINTEXT'));
  const size = Buffer.alloc(4);
  size.writeInt32BE(1024 * 1024);
  assert.ok(await c.sendRaw(Buffer.concat([size, Buffer.alloc(64)])), 'a 1 MiB frame was accepted');
});

test('SaslHandshake v0 then a raw PLAIN token authenticates; the principal is User:<name>', async () => {
  const c = await bareConnection(port('SASL_PLAINTEXT'));
  try {
    const hs = await c.handshake(0, 'PLAIN');
    assert.equal(hs.errorCode, 0);
    assert.deepEqual(hs.mechanisms, ['PLAIN']);
    const answer = await c.rawToken(Buffer.from(`\0bob\0${PASSWORDS.bob}`));
    assert.equal(answer.length, 0);
    const md = await c.metadata();
    assert.equal(md.brokers.length, 1);
  } finally {
    c.close();
  }
  await new Promise((r) => setTimeout(r, 50));
  assert.ok(logged.some((l) => l.includes('SASL authentication succeeded') && l.includes('User:bob')));
});

test('the broker log never contains a password', () => {
  assert.ok(
    logged.some((l) => l.includes('Failed authentication')),
    'failures are logged',
  );
  const text = logged.join('\n');
  for (const pw of [...Object.values(PASSWORDS), 'not-her-password'])
    assert.ok(!text.includes(pw), 'a password was logged');
});
