// `samsa start` refuses, with one line and a non-zero status, every listener it cannot serve as
// configured: an SSL or SASL_SSL listener without a keystore, a SASL listener with a mechanism
// samsa lacks or PLAIN without users, a SASL inter-broker listener, a JKS keystore
// (Node cannot read it: the line gives the keytool command), a bad listener.security.protocol.map.
// Never a weaker protocol than configured.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { makeTestCerts, STORE_PASSWORD, type TestCerts } from '../support/tls-certs.js';
import { lines, runCli } from './support.js';

let certs: TestCerts;
before(() => {
  certs = makeTestCerts();
});
after(() => certs.remove());

async function refusedStart(overrides: Record<string, string>, pattern: RegExp): Promise<void> {
  const args = ['start', '--data-dir', join(certs.dir, `data-${Math.random().toString(36).slice(2)}`)];
  for (const [k, v] of Object.entries(overrides)) args.push('--override', `${k}=${v}`);
  const r = await runCli(args);
  assert.equal(r.code, 1, r.stderr);
  const err = lines(r.stderr).filter((l) => !/^\d{4}-\d\d-\d\dT.* (INFO|WARN) /.test(l));
  assert.equal(err.length, 1, `one line expected:\n${r.stderr}`);
  assert.match(err[0]!, /^samsa: /);
  assert.match(err[0]!, pattern);
  assert.doesNotMatch(r.stderr, /\n\s+at /);
  assert.doesNotMatch(r.stdout, /listening on/);
  assert.doesNotMatch(r.stderr + r.stdout, /secret-in-jaas/, 'a JAAS value was printed');
}

test('an SSL listener without a keystore', async () => {
  await refusedStart(
    { listeners: 'SSL://127.0.0.1:0', 'security.inter.broker.protocol': 'SSL' },
    /listener SSL \(SSL\) has no keystore/,
  );
});

test('SASL listeners samsa cannot serve as configured', async () => {
  // Kafka's default sasl.enabled.mechanisms is GSSAPI, which samsa does not have.
  await refusedStart(
    { listeners: 'PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0' },
    /listener SASL_PLAINTEXT: SASL mechanism GSSAPI is not supported by samsa/,
  );
  await refusedStart(
    {
      listeners: 'PLAINTEXT://127.0.0.1:0,CLIENTS://127.0.0.1:0',
      'listener.security.protocol.map': 'PLAINTEXT:PLAINTEXT,CLIENTS:SASL_PLAINTEXT',
      'sasl.enabled.mechanisms': 'PLAIN',
    },
    /listener CLIENTS: PLAIN is enabled but has no JAAS configuration: set listener\.name\.clients\.plain\.sasl\.jaas\.config/,
  );
  await refusedStart(
    {
      listeners: 'PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0',
      'sasl.enabled.mechanisms': 'PLAIN',
      'sasl.jaas.config':
        'org.apache.kafka.common.security.plain.PlainLoginModule required user_a="secret-in-jaas"',
    },
    /listener SASL_PLAINTEXT: invalid JAAS configuration for PLAIN: .*missing ';'/,
  );
  await refusedStart(
    {
      listeners: 'SASL_PLAINTEXT://127.0.0.1:0',
      'security.inter.broker.protocol': 'SASL_PLAINTEXT',
      'sasl.enabled.mechanisms': 'SCRAM-SHA-256',
    },
    /inter-broker listener SASL_PLAINTEXT: sasl\.mechanism\.inter\.broker\.protocol GSSAPI is not supported by samsa/,
  );
  await refusedStart(
    {
      listeners: 'PLAINTEXT://127.0.0.1:0,SASL_SSL://127.0.0.1:0',
      'sasl.enabled.mechanisms': 'SCRAM-SHA-512',
    },
    /listener SASL_SSL \(SASL_SSL\) has no keystore/,
  );
});

test('a JKS keystore: the line says how to convert it', async () => {
  const jks = join(certs.dir, 'broker.jks');
  execFileSync(
    'keytool',
    [
      '-importkeystore',
      '-noprompt',
      '-srckeystore',
      certs.brokerP12,
      '-srcstoretype',
      'PKCS12',
      '-srcstorepass',
      STORE_PASSWORD,
      '-destkeystore',
      jks,
      '-deststoretype',
      'JKS',
      '-deststorepass',
      STORE_PASSWORD,
    ],
    { stdio: 'ignore' },
  );
  await refusedStart(
    {
      listeners: 'PLAINTEXT://127.0.0.1:0,SSL://127.0.0.1:0',
      'ssl.keystore.location': jks,
      'ssl.keystore.password': STORE_PASSWORD,
    },
    /listener SSL: the keystore .*broker\.jks is a JKS file, which Node cannot read: convert it to PKCS12 with "keytool -importkeystore/,
  );
});

test('a bad listener.security.protocol.map', async () => {
  await refusedStart(
    { 'listener.security.protocol.map': 'PLAINTEXT:PLAINTEXT,SECURE:TLS' },
    /Invalid value PLAINTEXT:PLAINTEXT,SECURE:TLS for configuration listener\.security\.protocol\.map: unknown security protocol TLS/,
  );
  await refusedStart(
    { listeners: 'PLAINTEXT://127.0.0.1:0,SECURE://127.0.0.1:0' },
    /No security protocol defined for listener SECURE/,
  );
});
