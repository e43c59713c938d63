// The CLI and Kafka client properties with SASL: `samsa topics --list --command-config FILE`
// over SASL_PLAINTEXT (security.protocol, sasl.mechanism, sasl.jaas.config), a wrong password
// failing without echoing it; the property mapping (ssl.* and sasl.* consumed, not ignored);
// the startup report no longer calling effective listener.name.* keys ineffective; and
// DescribeConfigs hiding sasl.jaas.config as Kafka does (sensitive, value null).

import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { clientOptionsFrom } from '../../src/cli/client-props.js';
import { configKeyReport } from '../../src/cli/config-warnings.js';
import { Admin } from '../../src/client/index.js';
import { startTestBroker, type TestBroker } from '../../src/testkit/index.js';
import { PASSWORDS, plainJaas } from '../broker/sasl/support.js';
import { runCli } from './support.js';

let broker: TestBroker;
let dir: string;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'samsa-sasl-cli-'));
  broker = await startTestBroker({
    overrides: {
      listeners: 'PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0',
      'sasl.enabled.mechanisms': 'PLAIN',
      'listener.name.sasl_plaintext.plain.sasl.jaas.config': plainJaas(),
      'connection.failed.authentication.delay.ms': 10,
    },
  });
  const admin = new Admin({ bootstrapServers: broker.bootstrapFor('PLAINTEXT') });
  try {
    await admin.createTopics([{ name: 'sasl-cli-topic', numPartitions: 1, replicationFactor: 1 }]);
  } finally {
    await admin.close();
  }
});
after(async () => {
  await broker?.close();
  await rm(dir, { recursive: true, force: true });
});

function properties(password: string): string {
  return [
    'security.protocol=SASL_PLAINTEXT',
    'sasl.mechanism=PLAIN',
    `sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="alice" password="${password}";`,
    '',
  ].join('\n');
}

test('samsa topics --list --command-config over SASL_PLAINTEXT', async () => {
  const file = join(dir, 'client.properties');
  await writeFile(file, properties(PASSWORDS.alice));
  const r = await runCli([
    'topics',
    '--list',
    '--bootstrap-server',
    broker.bootstrapFor('SASL_PLAINTEXT'),
    '--command-config',
    file,
  ]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^sasl-cli-topic$/m);
  assert.doesNotMatch(r.stderr, /ignoring/);
});

test('a wrong password fails with SASL_AUTHENTICATION_FAILED and is not echoed', async () => {
  const file = join(dir, 'wrong.properties');
  await writeFile(file, properties('wrong-Pw-3318'));
  const r = await runCli([
    'topics',
    '--list',
    '--bootstrap-server',
    broker.bootstrapFor('SASL_PLAINTEXT'),
    '--command-config',
    file,
  ]);
  assert.notEqual(r.code, 0);
  assert.match(r.stderr, /SASL_AUTHENTICATION_FAILED|Invalid username or password/);
  assert.doesNotMatch(r.stderr + r.stdout, /wrong-Pw-3318/);
});

test('client properties: security.protocol, ssl.* and sasl.* become the ssl and sasl options', () => {
  const warnings: string[] = [];
  const o = clientOptionsFrom(
    'admin',
    {
      'bootstrap.servers': 'h:9093',
      'security.protocol': 'SASL_SSL',
      'ssl.endpoint.identification.algorithm': '',
      'sasl.mechanism': 'SCRAM-SHA-512',
      'sasl.jaas.config':
        'org.apache.kafka.common.security.scram.ScramLoginModule required username="u" password="p";',
    },
    (l) => warnings.push(l),
  );
  assert.deepEqual(o.sasl, { mechanism: 'SCRAM-SHA-512', username: 'u', password: 'p' });
  assert.equal(typeof (o.ssl as { checkServerIdentity?: unknown }).checkServerIdentity, 'function');
  assert.deepEqual(warnings, []);
  const plain = clientOptionsFrom(
    'producer',
    {
      'security.protocol': 'SASL_PLAINTEXT',
      'sasl.mechanism': 'PLAIN',
      'sasl.jaas.config': 'x required username="a" password="b";',
    },
    () => {},
  );
  assert.equal(plain.ssl, undefined);
  assert.throws(
    () =>
      clientOptionsFrom(
        'producer',
        {
          'security.protocol': 'SASL_PLAINTEXT',
          'sasl.mechanism': 'GSSAPI',
          'sasl.jaas.config': 'x required username="a" password="secret-value";',
        },
        () => {},
      ),
    (e: Error) => /GSSAPI is not supported/.test(e.message) && !e.message.includes('secret-value'),
  );
  assert.throws(
    () => clientOptionsFrom('consumer', { 'security.protocol': 'KERBEROS' }, () => {}),
    /security.protocol=KERBEROS is not one of/,
  );
});

test('startup report: effective listener.name.* and SASL keys are not called ineffective', () => {
  const r = configKeyReport([
    'listener.name.sasl_ssl.plain.sasl.jaas.config',
    'listener.name.sasl_ssl.sasl.enabled.mechanisms',
    'listener.name.ssl.ssl.keystore.location',
    'listener.name.internal.ssl.client.auth',
    'sasl.enabled.mechanisms',
    'sasl.jaas.config',
    'connections.max.reauth.ms',
    'connection.failed.authentication.delay.ms',
    'listener.name.ssl.ssl.provider',
    'listener.name.sasl_ssl.gssapi.sasl.jaas.config',
  ]);
  assert.deepEqual(r.unknown, []);
  assert.deepEqual(r.noEffect, [
    'listener.name.ssl.ssl.provider',
    'listener.name.sasl_ssl.gssapi.sasl.jaas.config',
  ]);
});

test('DescribeConfigs: sasl.jaas.config is sensitive and its value null', async () => {
  const admin = new Admin({ bootstrapServers: broker.bootstrapFor('PLAINTEXT') });
  try {
    const [d] = await admin.describeConfigs([
      {
        type: 'broker',
        name: String(broker.nodeId),
        keys: [
          'sasl.jaas.config',
          'listener.name.sasl_plaintext.plain.sasl.jaas.config',
          'sasl.enabled.mechanisms',
        ],
      },
    ]);
    const byName = new Map(d!.entries.map((e) => [e.name, e]));
    assert.equal(byName.get('sasl.enabled.mechanisms')?.value, 'PLAIN');
    for (const e of d!.entries)
      if (e.name.endsWith('jaas.config')) {
        assert.equal(e.value, null, e.name);
        assert.equal(e.isSensitive, true, e.name);
      }
    assert.ok(!JSON.stringify(d).includes(PASSWORDS.alice));
  } finally {
    await admin.close();
  }
});
