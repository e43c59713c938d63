// Real Kafka clients over TLS against a broker with PLAINTEXT and SSL listeners (the SSL one
// requiring a client certificate, `listener.name.ssl.ssl.client.auth=required`): kcat
// (librdkafka) with `-X security.protocol=ssl`, confluent-kafka-python, kafkajs with its `ssl`
// option. Each finds the SSL endpoints in Metadata and round-trips records.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Kafka, logLevel } from 'kafkajs';
import { startTestBroker, type TestBroker } from '../../src/testkit/index.js';
import { repoFile } from '../support/repo.js';
import { scaled } from '../support/timeouts.js';
import { makeTestCerts, type TestCerts } from '../support/tls-certs.js';
import { exec } from './support/exec.js';

const SCRIPT = repoFile('test/interop/python/ssl_roundtrip.py');
let certs: TestCerts;
let broker: TestBroker;
let ssl: string;

before(async () => {
  certs = makeTestCerts();
  broker = await startTestBroker({
    overrides: {
      listeners: 'PLAINTEXT://127.0.0.1:0,SSL://127.0.0.1:0',
      'ssl.keystore.type': 'PEM',
      'ssl.keystore.certificate.chain': certs.read(certs.brokerCert),
      'ssl.keystore.key': certs.read(certs.brokerKey),
      'ssl.truststore.type': 'PEM',
      'ssl.truststore.location': certs.caCert,
      'listener.name.ssl.ssl.client.auth': 'required',
      'group.initial.rebalance.delay.ms': 0,
    },
  });
  ssl = broker.bootstrapFor('SSL');
});
after(async () => {
  await broker?.close();
  certs?.remove();
});

const kcatSsl = () => [
  '-X',
  'security.protocol=ssl',
  '-X',
  `ssl.ca.location=${certs.caCert}`,
  '-X',
  `ssl.certificate.location=${certs.clientCert}`,
  '-X',
  `ssl.key.location=${certs.clientKey}`,
];

test('kcat: -L lists the SSL endpoint, produce and consume over TLS', async () => {
  const p = await exec('kcat', ['-b', ssl, ...kcatSsl(), '-P', '-t', 'kcat-tls'], {
    input: 'one\ntwo\nthree\n',
    timeoutMs: 30_000,
  });
  assert.equal(p.code, 0, p.stderr);
  const l = await exec('kcat', ['-b', ssl, ...kcatSsl(), '-L'], { timeoutMs: 30_000 });
  assert.equal(l.code, 0, l.stderr);
  assert.match(
    l.stdout.toString(),
    new RegExp(`broker ${broker.nodeId} at ${ssl.replace(/\./g, '\\.')} \\(controller\\)`),
  );
  const c = await exec(
    'kcat',
    ['-b', ssl, ...kcatSsl(), '-C', '-t', 'kcat-tls', '-o', 'beginning', '-e', '-c', '3'],
    {
      timeoutMs: 30_000,
    },
  );
  assert.equal(c.code, 0, c.stderr);
  assert.equal(c.stdout.toString(), 'one\ntwo\nthree\n');
});

test('kcat without a client certificate is refused', async () => {
  const r = await exec(
    'kcat',
    ['-b', ssl, '-X', 'security.protocol=ssl', '-X', `ssl.ca.location=${certs.caCert}`, '-L', '-m', '5'],
    {
      timeoutMs: 30_000,
    },
  );
  assert.notEqual(r.code, 0);
});

test('confluent-kafka-python: produce + assign/consume over TLS', { timeout: scaled(120_000) }, async () => {
  const r = await exec(
    '/usr/bin/python3',
    [SCRIPT, ssl, 'py-tls', '200', certs.caCert, certs.clientCert, certs.clientKey],
    { timeoutMs: 100_000 },
  );
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout.toString()), { unflushed: 0, errors: [], ok: true });
});

test('kafkajs: produce and consume (group) with the ssl option', { timeout: scaled(120_000) }, async () => {
  const kafka = new Kafka({
    brokers: [ssl],
    clientId: 'kafkajs-tls',
    logLevel: logLevel.NOTHING,
    ssl: {
      ca: [certs.read(certs.caCert)],
      cert: certs.read(certs.clientCert),
      key: certs.read(certs.clientKey),
    },
  });
  const producer = kafka.producer();
  await producer.connect();
  await producer.send({
    topic: 'js-tls',
    messages: [
      { key: 'a', value: 'x' },
      { key: 'b', value: 'y' },
    ],
  });
  await producer.disconnect();
  const consumer = kafka.consumer({ groupId: 'js-tls-group' });
  await consumer.connect();
  await consumer.subscribe({ topic: 'js-tls', fromBeginning: true });
  const got: string[] = [];
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('kafkajs consume over TLS timed out')), scaled(90_000));
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
