// `samsa acls` against a broker with Kafka's AclAuthorizer: add (explicit operations, --producer
// with --idempotent, prefixed patterns), list in kafka-acls' words and as JSON, the effect on a
// SASL user (a topic it may describe appears, the others stay hidden), remove (refused without
// a terminal unless --force), and every mistake as one line with exit status 1.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { runAcls } from '../../src/cli/commands/acls.js';
import { Admin } from '../../src/client/admin/admin.js';
import { startTestBroker, type TestBroker } from '../../src/testkit/index.js';
import { PASSWORDS, plainJaas } from '../broker/sasl/support.js';
import { fails, failsIn, ok, okIn } from './operator-support.js';
import { runCli } from './support.js';

let broker: TestBroker;
let bs: string;

before(async () => {
  broker = await startTestBroker({
    overrides: {
      listeners: 'PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0',
      'sasl.enabled.mechanisms': 'PLAIN',
      'listener.name.sasl_plaintext.plain.sasl.jaas.config': plainJaas(),
      'authorizer.class.name': 'kafka.security.authorizer.AclAuthorizer',
      // The PLAINTEXT listener's anonymous principal administers; SASL users get what ACLs give.
      'super.users': 'User:ANONYMOUS',
      'connection.failed.authentication.delay.ms': 10,
    },
  });
  bs = broker.bootstrapFor('PLAINTEXT');
  const admin = new Admin({ bootstrapServers: bs });
  try {
    await admin.createTopics([
      { name: 'orders', numPartitions: 1, replicationFactor: 1 },
      { name: 'secret', numPartitions: 1, replicationFactor: 1 },
    ]);
  } finally {
    await admin.close();
  }
});

after(async () => {
  await broker?.close();
});

const ORDERS = 'ResourcePattern(resourceType=TOPIC, name=orders, patternType=LITERAL)';
const entry = (principal: string, operation: string, permission = 'ALLOW', host = '*') =>
  `(principal=${principal}, host=${host}, operation=${operation}, permissionType=${permission})`;

async function aliceSees(): Promise<string[]> {
  const alice = new Admin({
    bootstrapServers: broker.bootstrapFor('SASL_PLAINTEXT'),
    sasl: { mechanism: 'PLAIN', username: 'alice', password: PASSWORDS.alice },
  });
  try {
    return (await alice.listTopics()).sort();
  } finally {
    await alice.close();
  }
}

test('add, list (text and JSON), and the ACLs take effect', async () => {
  assert.equal((await okIn(runAcls, bs, 'acls', '--list')).stdout, '');
  assert.deepEqual(await aliceSees(), []);
  const add = await ok(
    bs,
    'acls',
    '--add',
    '--allow-principal',
    'User:alice',
    '--operation',
    'Read',
    '--operation',
    'Describe',
    '--topic',
    'orders',
  );
  assert.equal(
    add.stdout,
    `Adding ACLs for resource \`${ORDERS}\`: \n \t${entry('User:alice', 'READ')}\n\t${entry('User:alice', 'DESCRIBE')}\n\n`,
  );
  const again = await okIn(
    runAcls,
    bs,
    'acls',
    '--add',
    '--allow-principal',
    'User:alice',
    '--operation',
    'read',
    '--topic',
    'orders',
  );
  assert.equal(
    again.stdout,
    `Acl (pattern=${ORDERS}, entry=${entry('User:alice', 'READ')}) already exists.\n`,
  );
  assert.deepEqual(await aliceSees(), ['orders']);

  const list = await ok(bs, 'acls', '--list', '--topic', 'orders');
  assert.equal(
    list.stdout,
    `Current ACLs for resource \`${ORDERS}\`:\n\t${entry('User:alice', 'DESCRIBE')}\n\t${entry('User:alice', 'READ')}\n\n`,
  );

  await okIn(
    runAcls,
    bs,
    'acls',
    '--add',
    '--allow-principal',
    'User:bob',
    '--producer',
    '--topic',
    'orders',
    '--idempotent',
  );
  await okIn(
    runAcls,
    bs,
    'acls',
    '--add',
    '--deny-principal',
    'User:mallory',
    '--deny-host',
    '10.0.0.9',
    '--operation',
    'All',
    '--topic',
    'orders',
  );
  await okIn(
    runAcls,
    bs,
    'acls',
    '--add',
    '--allow-principal',
    'User:etl',
    '--operation',
    'Write',
    '--topic',
    'raw-',
    '--resource-pattern-type',
    'prefixed',
  );
  const cluster = await okIn(runAcls, bs, 'acls', '--list', '--cluster');
  assert.equal(
    cluster.stdout,
    `Current ACLs for resource \`ResourcePattern(resourceType=CLUSTER, name=kafka-cluster, patternType=LITERAL)\`:\n\t${entry('User:bob', 'IDEMPOTENT_WRITE')}\n\n`,
  );
  const match = await okIn(
    runAcls,
    bs,
    'acls',
    '--list',
    '--topic',
    'raw-events',
    '--resource-pattern-type',
    'match',
  );
  assert.equal(
    match.stdout,
    `Current ACLs for resource \`ResourcePattern(resourceType=TOPIC, name=raw-, patternType=PREFIXED)\`:\n\t${entry('User:etl', 'WRITE')}\n\n`,
  );
  const bob = await okIn(runAcls, bs, 'acls', '--list', '--principal', 'User:bob');
  assert.match(bob.stdout, /^ACLs for principal `User:bob`\n/);
  assert.match(bob.stdout, new RegExp(`\\t${escapeRegExp(entry('User:bob', 'CREATE'))}\\n`));
  assert.doesNotMatch(bob.stdout, /User:alice/);

  const json = JSON.parse((await ok(bs, 'acls', '--list', '--output', 'json')).stdout);
  const orders = json.find(
    (r: { name: string; resourceType: string }) => r.resourceType === 'TOPIC' && r.name === 'orders',
  );
  assert.equal(orders.patternType, 'LITERAL');
  assert.deepEqual(
    orders.acls.filter((a: { principal: string }) => a.principal === 'User:mallory'),
    [{ principal: 'User:mallory', host: '10.0.0.9', operation: 'ALL', permissionType: 'DENY' }],
  );
  assert.equal(orders.acls.length, 2 + 3 + 1);
});

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

test('remove: refused without a terminal unless --force, then exactly what was asked', async () => {
  await okIn(
    runAcls,
    bs,
    'acls',
    '--add',
    '--allow-principal',
    'User:carol',
    '--consumer',
    '--topic',
    'secret',
    '--group',
    'billing',
  );
  const refused = await fails(
    bs,
    /^samsa acls: --remove asks for confirmation and stdin is not a terminal: add --force$/m,
    'acls',
    '--remove',
    '--topic',
    'secret',
  );
  assert.equal(refused.stdout, '');
  assert.match((await okIn(runAcls, bs, 'acls', '--list', '--topic', 'secret')).stdout, /User:carol/);

  await ok(
    bs,
    'acls',
    '--remove',
    '--force',
    '--allow-principal',
    'User:carol',
    '--operation',
    'Read',
    '--topic',
    'secret',
  );
  assert.equal(
    (await okIn(runAcls, bs, 'acls', '--list', '--topic', 'secret')).stdout,
    `Current ACLs for resource \`ResourcePattern(resourceType=TOPIC, name=secret, patternType=LITERAL)\`:\n\t${entry('User:carol', 'DESCRIBE')}\n\n`,
  );
  await okIn(runAcls, bs, 'acls', '--remove', '--force', '--topic', 'secret', '--group', 'billing');
  assert.equal((await okIn(runAcls, bs, 'acls', '--list', '--topic', 'secret')).stdout, '');
  assert.equal((await okIn(runAcls, bs, 'acls', '--list', '--group', 'billing')).stdout, '');
});

test('bad input: one line on stderr, exit status 1', async () => {
  const mistakes: [RegExp, ...string[]][] = [
    [/^samsa acls: give exactly one action: --add, --remove or --list$/m, 'acls', '--topic', 'orders'],
    [
      /--add needs --allow-principal or --deny-principal/,
      'acls',
      '--add',
      '--operation',
      'Read',
      '--topic',
      'orders',
    ],
    [
      /principal "alice" is not Type:name \(e\.g\. User:alice, User:\*\)/,
      'acls',
      '--add',
      '--allow-principal',
      'alice',
      '--topic',
      'orders',
    ],
    [
      /unknown operation "Fly": use All, Read, Write/,
      'acls',
      '--add',
      '--allow-principal',
      'User:a',
      '--operation',
      'Fly',
      '--topic',
      'orders',
    ],
    [
      /ResourceType CLUSTER only supports operations All, Create, ClusterAction/,
      'acls',
      '--add',
      '--allow-principal',
      'User:a',
      '--operation',
      'Read',
      '--cluster',
    ],
    [
      /--resource-pattern-type match is for --list and --remove/,
      'acls',
      '--add',
      '--allow-principal',
      'User:a',
      '--topic',
      'orders',
      '--resource-pattern-type',
      'match',
    ],
    [
      /unknown --resource-pattern-type "glob"/,
      'acls',
      '--list',
      '--topic',
      'orders',
      '--resource-pattern-type',
      'glob',
    ],
    [/name at least one resource/, 'acls', '--add', '--allow-principal', 'User:a'],
    [
      /--consumer needs --topic and --group/,
      'acls',
      '--add',
      '--allow-principal',
      'User:a',
      '--consumer',
      '--topic',
      'orders',
    ],
    [
      /--operation does not go with --producer/,
      'acls',
      '--add',
      '--allow-principal',
      'User:a',
      '--producer',
      '--topic',
      'orders',
      '--operation',
      'Read',
    ],
    [/--allow-principal does not go with --list/, 'acls', '--list', '--allow-principal', 'User:a'],
    [/--principal goes with --list/, 'acls', '--add', '--principal', 'User:a', '--topic', 'orders'],
  ];
  for (const [pattern, ...args] of mistakes) await failsIn(runAcls, bs, pattern, ...args);
  // A SASL user that is not a super user may not manage ACLs.
  const { writeFile, mkdtemp, rm } = await import('node:fs/promises');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const dir = await mkdtemp(join(tmpdir(), 'samsa-acls-'));
  try {
    const file = join(dir, 'alice.properties');
    await writeFile(
      file,
      `security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\nsasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="alice" password="${PASSWORDS.alice}";\n`,
    );
    const r = await runCli([
      'acls',
      '--list',
      '--command-config',
      file,
      '--bootstrap-server',
      broker.bootstrapFor('SASL_PLAINTEXT'),
    ]);
    assert.equal(r.code, 1, r.stdout);
    assert.match(r.stderr, /^samsa: DescribeAcls: CLUSTER_AUTHORIZATION_FAILED \(31\).*a super user\)\n$/);
    assert.ok(!r.stderr.includes(PASSWORDS.alice));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('a broker without an authorizer: SECURITY_DISABLED says what to set', async () => {
  const plain = await startTestBroker();
  try {
    await failsIn(
      runAcls,
      plain.bootstrap,
      /SECURITY_DISABLED.*set authorizer\.class\.name=kafka\.security\.authorizer\.AclAuthorizer\)$/m,
      'acls',
      '--list',
    );
  } finally {
    await plain.close();
  }
});
