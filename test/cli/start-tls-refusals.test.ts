// `samsa start` refuses, with one line and a non-zero status, every listener it cannot serve as
// configured: an SSL listener without a keystore, a SASL listener (no SASL yet), a JKS keystore
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
}

test('an SSL listener without a keystore', async () => {
  await refusedStart(
    { listeners: 'SSL://127.0.0.1:0', 'security.inter.broker.protocol': 'SSL' },
    /listener SSL \(SSL\) has no keystore/,
  );
});

test('SASL listeners', async () => {
  await refusedStart(
    { listeners: 'PLAINTEXT://127.0.0.1:0,SASL_SSL://127.0.0.1:0' },
    /listener SASL_SSL uses SASL_SSL: SASL is not supported yet/,
  );
  await refusedStart(
    {
      listeners: 'PLAINTEXT://127.0.0.1:0,CLIENTS://127.0.0.1:0',
      'listener.security.protocol.map': 'PLAINTEXT:PLAINTEXT,CLIENTS:SASL_PLAINTEXT',
    },
    /listener CLIENTS uses SASL_PLAINTEXT: SASL is not supported yet/,
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
