// KIP-368 re-authentication (`connections.max.reauth.ms`) and
// `connection.failed.authentication.delay.ms`: SaslAuthenticate v1+ reports the session
// lifetime; an expired session accepts only a SaslHandshake that re-authenticates (same
// mechanism, same principal) and is closed on anything else; our client keeps working past the
// lifetime; a failed authentication is answered no earlier than the delay, then closed.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Producer } from '../../../src/client/index.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { startTestBroker, type TestBroker } from '../../../src/testkit/index.js';
import { bareConnection, PASSWORDS, plainJaas } from './support.js';

const REAUTH_MS = 1500;
const FAILED_DELAY_MS = 300;
let broker: TestBroker;
const closes: string[] = [];

before(async () => {
  broker = await startTestBroker({
    logger: {
      log: (_level, msg, fields) => {
        if (msg === 'closing connection') closes.push(String(fields?.['reason']));
      },
    },
    overrides: {
      listeners: 'PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0',
      'sasl.enabled.mechanisms': 'PLAIN',
      'sasl.jaas.config': plainJaas(),
      'connections.max.reauth.ms': REAUTH_MS,
      'connection.failed.authentication.delay.ms': FAILED_DELAY_MS,
    },
  });
});
after(async () => {
  await broker?.close();
});

const port = () => Number(broker.bootstrapFor('SASL_PLAINTEXT').split(':').at(-1));
const plain = (user: keyof typeof PASSWORDS, password: string = PASSWORDS[user]) =>
  Buffer.from(`\0${user}\0${password}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('SaslAuthenticate v1 reports the lifetime; in-band re-authentication keeps the connection', async () => {
  const c = await bareConnection(port());
  try {
    assert.equal((await c.handshake(1, 'PLAIN')).errorCode, 0);
    const auth = await c.authenticate(1, plain('alice'));
    assert.equal(auth?.errorCode, 0);
    assert.equal(auth?.sessionLifetimeMs, BigInt(REAUTH_MS));
    await sleep(REAUTH_MS + 200);
    assert.equal((await c.handshake(1, 'PLAIN')).errorCode, 0);
    assert.equal((await c.authenticate(2, plain('alice')))?.errorCode, 0);
    assert.equal((await c.metadata()).brokers.length, 1);
  } finally {
    c.close();
  }
});

test('an expired session is closed on its next request', async () => {
  const c = await bareConnection(port());
  assert.equal((await c.handshake(1, 'PLAIN')).errorCode, 0);
  assert.equal((await c.authenticate(1, plain('bob')))?.errorCode, 0);
  assert.equal((await c.metadata()).brokers.length, 1);
  await sleep(REAUTH_MS + 200);
  await assert.rejects(c.metadata(), /connection closed/);
  assert.ok(
    closes.some((r) => r.includes('expired')),
    closes.join('; '),
  );
});

test('re-authenticating as someone else fails and closes', async () => {
  const c = await bareConnection(port());
  assert.equal((await c.handshake(1, 'PLAIN')).errorCode, 0);
  assert.equal((await c.authenticate(1, plain('alice')))?.errorCode, 0);
  assert.equal((await c.handshake(1, 'PLAIN')).errorCode, 0);
  const r = await c.authenticate(1, plain('bob'));
  assert.equal(r?.errorCode, ErrorCode.SASL_AUTHENTICATION_FAILED);
  assert.match(r?.errorMessage ?? '', /Cannot change principals during re-authentication/);
  await c.closed();
});

test('our client renews its connection before the session expires', async () => {
  const before = closes.filter((r) => r.includes('expired')).length;
  const producer = new Producer({
    bootstrapServers: broker.bootstrapFor('SASL_PLAINTEXT'),
    sasl: { mechanism: 'PLAIN', username: 'alice', password: PASSWORDS.alice },
  });
  try {
    for (let i = 0; i < 4; i++) {
      await producer.send({ topic: 'reauth', value: `v${i}` });
      await sleep(REAUTH_MS / 2);
    }
  } finally {
    await producer.close();
  }
  assert.equal(
    closes.filter((r) => r.includes('expired')).length,
    before,
    'the broker closed an expired session',
  );
});

test('a failed authentication is answered after connection.failed.authentication.delay.ms, then closed', async () => {
  const c = await bareConnection(port());
  assert.equal((await c.handshake(1, 'PLAIN')).errorCode, 0);
  const started = Date.now();
  const r = await c.authenticate(1, plain('alice', 'wrong'));
  assert.ok(Date.now() - started >= FAILED_DELAY_MS - 20, `answered after ${Date.now() - started} ms`);
  assert.equal(r?.errorCode, ErrorCode.SASL_AUTHENTICATION_FAILED);
  await c.closed();
});
