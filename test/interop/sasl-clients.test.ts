// Real Kafka clients with SASL against a broker with PLAINTEXT, SASL_PLAINTEXT and SASL_SSL
// listeners enabling PLAIN (JAAS users) and SCRAM-SHA-256/512 (credentials created with our
// Admin): kcat (librdkafka), confluent-kafka-python and kafkajs round-trip records with each
// mechanism; a wrong password is refused.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Kafka, logLevel } from 'kafkajs';
import { Admin } from '../../src/client/index.js';
import { startTestBroker, type TestBroker } from '../../src/testkit/index.js';
import { PASSWORDS, plainJaas } from '../broker/sasl/support.js';
import { repoFile } from '../support/repo.js';
import { scaled } from '../support/timeouts.js';
import { makeTestCerts, type TestCerts } from '../support/tls-certs.js';
import { exec } from './support/exec.js';

const SCRIPT = repoFile('test/interop/python/sasl_roundtrip.py');
const SCRAM_PASSWORD = 'erin-Scram-0b7d';
let certs: TestCerts;
let broker: TestBroker;

before(async () => {
  certs = makeTestCerts();
  broker = await startTestBroker({
    overrides: {
      listeners: 'PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0,SASL_SSL://127.0.0.1:0',
      'sasl.enabled.mechanisms': 'PLAIN,SCRAM-SHA-256,SCRAM-SHA-512',
      'sasl.jaas.config': plainJaas(),
      'ssl.keystore.type': 'PEM',
      'ssl.keystore.location': certs.brokerPem,
      'group.initial.rebalance.delay.ms': 0,
    },
  });
  const admin = new Admin({ bootstrapServers: broker.bootstrapFor('PLAINTEXT') });
  try {
    await admin.alterUserScramCredentials([
      { type: 'upsert', user: 'erin', mechanism: 'SCRAM-SHA-256', password: SCRAM_PASSWORD },
      { type: 'upsert', user: 'erin', mechanism: 'SCRAM-SHA-512', password: SCRAM_PASSWORD },
    ]);
  } finally {
    await admin.close();
  }
});
after(async () => {
  await broker?.close();
  certs?.remove();
});

function kcatSasl(
  listener: 'SASL_PLAINTEXT' | 'SASL_SSL',
  mechanism: string,
  user: string,
  password: string,
) {
  return [
    '-b',
    broker.bootstrapFor(listener),
    '-X',
    `security.protocol=${listener.toLowerCase()}`,
    '-X',
    `sasl.mechanisms=${mechanism}`,
    '-X',
    `sasl.username=${user}`,
    '-X',
    `sasl.password=${password}`,
    ...(listener === 'SASL_SSL' ? ['-X', `ssl.ca.location=${certs.caCert}`] : []),
  ];
}

const cases = [
  ['SASL_PLAINTEXT', 'PLAIN', 'alice', PASSWORDS.alice],
  ['SASL_SSL', 'SCRAM-SHA-512', 'erin', SCRAM_PASSWORD],
  ['SASL_PLAINTEXT', 'SCRAM-SHA-256', 'erin', SCRAM_PASSWORD],
] as const;

for (const [listener, mechanism, user, password] of cases) {
  test(`kcat: ${mechanism} over ${listener}: produce, list, consume`, async () => {
    const topic = `kcat-${mechanism}-${listener}`.toLowerCase();
    const args = kcatSasl(listener, mechanism, user, password);
    const p = await exec('kcat', [...args, '-P', '-t', topic], { input: 'one\ntwo\n', timeoutMs: 30_000 });
    assert.equal(p.code, 0, p.stderr.toString());
    const l = await exec('kcat', [...args, '-L'], { timeoutMs: 30_000 });
    assert.equal(l.code, 0, l.stderr.toString());
    assert.match(
      l.stdout.toString(),
      new RegExp(`at ${broker.bootstrapFor(listener).replace(/\./g, '\\.')}`),
    );
    const c = await exec('kcat', [...args, '-C', '-t', topic, '-o', 'beginning', '-e', '-c', '2'], {
      timeoutMs: 30_000,
    });
    assert.equal(c.code, 0, c.stderr.toString());
    assert.equal(c.stdout.toString(), 'one\ntwo\n');
  });
}

test('kcat with a wrong password is refused', async () => {
  const r = await exec('kcat', [...kcatSasl('SASL_PLAINTEXT', 'PLAIN', 'alice', 'wrong'), '-L', '-m', '5'], {
    timeoutMs: 30_000,
  });
  assert.notEqual(r.code, 0);
  assert.match(r.stderr.toString(), /Authentication failed|SASL authentication error/i);
});

for (const [listener, mechanism, user, password] of cases) {
  test(`confluent-kafka-python: ${mechanism} over ${listener}`, { timeout: scaled(120_000) }, async () => {
    const topic = `py-${mechanism}-${listener}`.toLowerCase();
    const ca = listener === 'SASL_SSL' ? [certs.caCert] : [];
    const r = await exec(
      '/usr/bin/python3',
      [SCRIPT, broker.bootstrapFor(listener), topic, '50', listener, mechanism, user, password, ...ca],
      {
        timeoutMs: 100_000,
      },
    );
    assert.equal(r.code, 0, r.stderr.toString());
    assert.deepEqual(JSON.parse(r.stdout.toString()), { unflushed: 0, errors: [], ok: true });
  });
}

test('confluent-kafka-python with a wrong SCRAM password gets an authentication error', {
  timeout: scaled(120_000),
}, async () => {
  const r = await exec(
    '/usr/bin/python3',
    [
      SCRIPT,
      broker.bootstrapFor('SASL_PLAINTEXT'),
      'py-neg',
      '1',
      'SASL_PLAINTEXT',
      'SCRAM-SHA-256',
      'erin',
      'wrong',
    ],
    {
      timeoutMs: 100_000,
    },
  );
  assert.equal(r.code, 0, r.stderr.toString());
  const out = JSON.parse(r.stdout.toString()) as { errors: string[]; ok: boolean };
  assert.ok(out.errors.includes('_AUTHENTICATION'), JSON.stringify(out.errors));
});

for (const mechanism of ['plain', 'scram-sha-256'] as const) {
  test(`kafkajs: ${mechanism}: produce and consume (group)`, { timeout: scaled(120_000) }, async () => {
    const kafka = new Kafka({
      brokers: [broker.bootstrapFor('SASL_PLAINTEXT')],
      clientId: 'kafkajs-sasl',
      logLevel: logLevel.NOTHING,
      sasl:
        mechanism === 'plain'
          ? { mechanism, username: 'bob', password: PASSWORDS.bob }
          : { mechanism, username: 'erin', password: SCRAM_PASSWORD },
    });
    const topic = `js-${mechanism}`;
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic, messages: [{ value: 'x' }, { value: 'y' }] });
    await producer.disconnect();
    const consumer = kafka.consumer({ groupId: `js-${mechanism}-group` });
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    const got: string[] = [];
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('kafkajs consume timed out')), scaled(90_000));
        void consumer.run({
          eachMessage: async ({ message }) => {
            got.push(message.value!.toString());
            if (got.length === 2) {
              clearTimeout(timer);
              resolve();
            }
          },
        });
      });
    } finally {
      await consumer.disconnect();
    }
    assert.deepEqual(got, ['x', 'y']);
  });
}
