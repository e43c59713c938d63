// `samsa configs` against a real broker, compared with kafka-configs' output: topic and broker
// dynamic configs (describe, --all with sources, alter with Kafka's bracket syntax, delete),
// users' SCRAM credentials (set, shown as iterations only, used to log in, deleted), quotas of
// users, clients and IPs, --command-config over SASL PLAIN, and every mistake as one line with
// exit status 1. No password ever reaches the output.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { runConfigs } from '../../src/cli/commands/configs.js';
import { CONFIGS_USAGE } from '../../src/cli/commands/configs-usage.js';
import { Admin } from '../../src/client/admin/admin.js';
import { startTestBroker, type TestBroker } from '../../src/testkit/index.js';
import { PASSWORDS, plainJaas } from '../broker/sasl/support.js';
import { repoFile } from '../support/repo.js';
import { fails, failsIn, ok, okIn } from './operator-support.js';
import { closedPort, runCli } from './support.js';

let broker: TestBroker;
let bs: string;
let dir: string;
const SCRAM_PASSWORD = 'alice-Scram-c9d1';

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'samsa-configs-'));
  broker = await startTestBroker({
    overrides: {
      listeners: 'PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0',
      'sasl.enabled.mechanisms': 'PLAIN,SCRAM-SHA-256',
      'listener.name.sasl_plaintext.plain.sasl.jaas.config': plainJaas(),
      'connection.failed.authentication.delay.ms': 10,
    },
  });
  bs = broker.bootstrapFor('PLAINTEXT');
  const admin = new Admin({ bootstrapServers: bs });
  try {
    await admin.createTopics([
      { name: 'orders', numPartitions: 1, replicationFactor: 1, configs: { 'retention.ms': '86400000' } },
      { name: 'plain', numPartitions: 1, replicationFactor: 1 },
    ]);
  } finally {
    await admin.close();
  }
});

after(async () => {
  await broker?.close();
  await rm(dir, { recursive: true, force: true });
});

/** `samsa configs ARGS` run in this process against the broker, which must succeed. */
const configs = (...args: string[]) => okIn(runConfigs, bs, 'configs', ...args);
/** `samsa configs ARGS` run in this process, which must fail with one line matching `pattern`. */
const configsFail = (pattern: RegExp, ...args: string[]) =>
  failsIn(runConfigs, bs, pattern, 'configs', ...args);

/** Kafka's line for one config: `  k=v sensitive=B synonyms={SOURCE:k=v, ...}`. */
const LINE = /^ {2}[a-z0-9._-]+=\S* sensitive=(true|false) synonyms=\{([A-Z_]+:[a-z0-9._-]+=[^,}]*(, )?)*\}$/;

test('describe a topic: the dynamic configs in Kafka’s format, --all with every source', async () => {
  const r = await ok(bs, 'configs', '--describe', '--entity-type', 'topics', '--entity-name', 'orders');
  const lines = r.stdout.split('\n').filter((l) => l !== '');
  assert.equal(lines[0], 'Dynamic configs for topic orders are:');
  assert.equal(lines.length, 2, r.stdout);
  assert.match(lines[1]!, LINE);
  assert.match(
    lines[1]!,
    /^ {2}retention\.ms=86400000 sensitive=false synonyms=\{DYNAMIC_TOPIC_CONFIG:retention\.ms=86400000(, |\})/,
  );
  // The shortcut says the same.
  assert.equal((await configs('--describe', '--topic', 'orders')).stdout, r.stdout);

  const all = await configs('--describe', '--topic', 'orders', '--all');
  const allLines = all.stdout.split('\n').filter((l) => l !== '');
  assert.equal(allLines[0], 'All configs for topic orders are:');
  for (const l of allLines.slice(1)) assert.match(l, LINE);
  const names = allLines.slice(1).map((l) => l.trim().split('=')[0]!);
  assert.deepEqual(names, [...names].sort(), 'sorted by name');
  assert.ok(names.includes('cleanup.policy') && names.includes('segment.bytes'));

  const json = JSON.parse(
    (await configs('--describe', '--topic', 'orders', '--all', '--output', 'json')).stdout,
  );
  assert.equal(json.length, 1);
  assert.equal(json[0].entityType, 'topics');
  assert.equal(json[0].entityName, 'orders');
  const byName = new Map(json[0].configs.map((c: { name: string }) => [c.name, c]));
  assert.deepEqual(
    { ...(byName.get('retention.ms') as object), synonyms: undefined },
    {
      name: 'retention.ms',
      value: '86400000',
      source: 'DYNAMIC_TOPIC_CONFIG',
      sensitive: false,
      readOnly: false,
      synonyms: undefined,
    },
  );
  assert.equal((byName.get('segment.bytes') as { source: string }).source, 'DEFAULT_CONFIG');

  // Without a name: every topic, each under its own heading.
  const every = await configs('--describe', '--entity-type', 'topics');
  assert.match(every.stdout, /^Dynamic configs for topic orders are:$/m);
  assert.match(every.stdout, /^Dynamic configs for topic plain are:$/m);
});

test('alter a topic: --add-config with [a,b] values, --add-config-file, --delete-config', async () => {
  const add = await ok(
    bs,
    'configs',
    '--alter',
    '--topic',
    'plain',
    '--add-config',
    'cleanup.policy=[compact,delete],min.cleanable.dirty.ratio=0.3',
  );
  assert.equal(add.stdout, 'Completed updating config for topic plain.\n');
  const file = join(dir, 'topic.properties');
  await writeFile(file, 'segment.ms=3600000\n');
  await configs('--alter', '--entity-type', 'topics', '--entity-name', 'plain', '--add-config-file', file);
  let d = await configs('--describe', '--topic', 'plain');
  assert.match(
    d.stdout,
    /^ {2}cleanup\.policy=compact,delete sensitive=false synonyms=\{DYNAMIC_TOPIC_CONFIG:cleanup\.policy=compact,delete/m,
  );
  assert.match(d.stdout, /^ {2}min\.cleanable\.dirty\.ratio=0\.3 /m);
  assert.match(d.stdout, /^ {2}segment\.ms=3600000 /m);
  await configs('--alter', '--topic', 'plain', '--delete-config', 'cleanup.policy,segment.ms');
  d = await configs('--describe', '--topic', 'plain');
  assert.deepEqual(
    d.stdout
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => l.trim().split(' ')[0]!),
    ['Dynamic', 'min.cleanable.dirty.ratio=0.3'],
  );
});

test('brokers: per-broker and cluster-default configs, --all with static values and null secrets', async () => {
  const id = String(broker.nodeId);
  await configs('--alter', '--broker-defaults', '--add-config', 'log.cleaner.threads=2');
  await configs(
    '--alter',
    '--entity-type',
    'brokers',
    '--entity-name',
    id,
    '--add-config',
    'log.cleaner.threads=3',
  );
  const one = await configs('--describe', '--broker', id);
  assert.match(
    one.stdout,
    new RegExp(
      `^Dynamic configs for broker ${id} are:\\n {2}log\\.cleaner\\.threads=3 sensitive=false synonyms=\\{DYNAMIC_BROKER_CONFIG:log\\.cleaner\\.threads=3, DYNAMIC_DEFAULT_BROKER_CONFIG:log\\.cleaner\\.threads=2, DEFAULT_CONFIG:log\\.cleaner\\.threads=1\\}\\n$`,
    ),
  );
  const defaults = await configs('--describe', '--entity-type', 'brokers-default');
  assert.match(
    defaults.stdout,
    /^Default configs for brokers in the cluster are:\n {2}log\.cleaner\.threads=2 sensitive=false synonyms=\{DYNAMIC_DEFAULT_BROKER_CONFIG:log\.cleaner\.threads=2\}\n$/,
  );
  assert.equal(
    (await configs('--describe', '--entity-type', 'brokers', '--entity-default')).stdout,
    defaults.stdout,
  );
  // Without a name: each broker, then the cluster default.
  const every = await configs('--describe', '--entity-type', 'brokers');
  assert.match(
    every.stdout,
    new RegExp(
      `^Dynamic configs for broker ${id} are:\\n[^]*^Default configs for brokers in the cluster are:$`,
      'm',
    ),
  );

  const all = await configs('--describe', '--broker', id, '--all');
  assert.match(all.stdout, new RegExp(`^All configs for broker ${id} are:$`, 'm'));
  assert.match(
    all.stdout,
    /^ {2}sasl\.enabled\.mechanisms=PLAIN,SCRAM-SHA-256 sensitive=false synonyms=\{STATIC_BROKER_CONFIG:/m,
  );
  assert.match(
    all.stdout,
    /^ {2}listener\.name\.sasl_plaintext\.plain\.sasl\.jaas\.config=null sensitive=true synonyms=\{STATIC_BROKER_CONFIG:listener\.name\.sasl_plaintext\.plain\.sasl\.jaas\.config=null\}$/m,
  );
  for (const pw of Object.values(PASSWORDS)) assert.ok(!all.stdout.includes(pw), 'no password in --all');
  const json = await configs('--describe', '--broker', id, '--all', '--output', 'json');
  for (const pw of Object.values(PASSWORDS)) assert.ok(!json.stdout.includes(pw), 'no password in JSON');
  const sources = new Set(JSON.parse(json.stdout)[0].configs.map((c: { source: string }) => c.source));
  for (const s of ['DYNAMIC_BROKER_CONFIG', 'STATIC_BROKER_CONFIG', 'DEFAULT_CONFIG'])
    assert.ok(sources.has(s), s);

  await configs('--alter', '--broker', id, '--delete-config', 'log.cleaner.threads');
  await configs('--alter', '--broker-defaults', '--delete-config', 'log.cleaner.threads');
  assert.equal(
    (await configs('--describe', '--broker', id)).stdout,
    `Dynamic configs for broker ${id} are:\n`,
  );
});

test('users: SCRAM credentials set, shown as iterations, used to log in, deleted; never the password', async () => {
  const set = await ok(
    bs,
    'configs',
    '--alter',
    '--entity-type',
    'users',
    '--entity-name',
    'alice',
    '--add-config',
    `SCRAM-SHA-256=[iterations=8192,password=${SCRAM_PASSWORD}],SCRAM-SHA-512=[password=${SCRAM_PASSWORD}]`,
  );
  assert.equal(set.stdout, 'Completed updating config for user alice.\n');
  let d = await configs('--describe', '--user', 'alice');
  assert.match(
    d.stdout,
    /^SCRAM credential configs for user-principal 'alice' are SCRAM-SHA-256=iterations=8192, SCRAM-SHA-512=iterations=4096$/m,
  );
  // The credential works: our client logs in with it over SASL SCRAM-SHA-256.
  const scram = new Admin({
    bootstrapServers: broker.bootstrapFor('SASL_PLAINTEXT'),
    sasl: { mechanism: 'SCRAM-SHA-256', username: 'alice', password: SCRAM_PASSWORD },
  });
  try {
    assert.ok((await scram.listTopics()).includes('orders'));
  } finally {
    await scram.close();
  }
  const json = JSON.parse((await configs('--describe', '--user', 'alice', '--output', 'json')).stdout);
  assert.deepEqual(json.scramCredentials, [
    {
      user: 'alice',
      credentials: [
        { mechanism: 'SCRAM-SHA-256', iterations: 8192 },
        { mechanism: 'SCRAM-SHA-512', iterations: 4096 },
      ],
    },
  ]);
  await configs('--alter', '--user', 'alice', '--delete-config', 'SCRAM-SHA-512');
  d = await configs('--describe', '--user', 'alice');
  assert.match(
    d.stdout,
    /^SCRAM credential configs for user-principal 'alice' are SCRAM-SHA-256=iterations=8192$/m,
  );
  // Every user (no name).
  assert.match((await configs('--describe', '--entity-type', 'users')).stdout, /user-principal 'alice'/);
  // Mistakes about credentials: one line, the password not repeated.
  const mistakes: [RegExp, ...string[]][] = [
    [
      /iterations 100 for SCRAM-SHA-256 is outside 4096-16384/,
      '--alter',
      '--user',
      'bob',
      '--add-config',
      `SCRAM-SHA-256=[iterations=100,password=${SCRAM_PASSWORD}]`,
    ],
    [
      /invalid credential property SCRAM-SHA-256: use SCRAM-SHA-256=\[iterations=N,password=PASSWORD\]/,
      '--alter',
      '--user',
      'bob',
      '--add-config',
      `SCRAM-SHA-256=[pw=${SCRAM_PASSWORD}]`,
    ],
    [
      /SCRAM credentials belong to a named user/,
      '--alter',
      '--user-defaults',
      '--add-config',
      `SCRAM-SHA-256=[password=${SCRAM_PASSWORD}]`,
    ],
    [
      /only quota configs can be set for clients; unexpected: SCRAM-SHA-256/,
      '--alter',
      '--client',
      'app',
      '--add-config',
      `SCRAM-SHA-256=[password=${SCRAM_PASSWORD}]`,
    ],
    [/Invalid config\(s\): SCRAM-SHA-512/, '--alter', '--user', 'alice', '--delete-config', 'SCRAM-SHA-512'],
  ];
  for (const [pattern, ...args] of mistakes) {
    const text = await configsFail(pattern, ...args);
    assert.ok(!text.includes(SCRAM_PASSWORD), text);
  }
  for (const r of [set, d]) assert.ok(!(r.stdout + r.stderr).includes(SCRAM_PASSWORD));
});

test('users and clients: quotas in kafka-configs’ words', async () => {
  await configs(
    '--alter',
    '--user',
    'alice',
    '--add-config',
    'producer_byte_rate=1048576,consumer_byte_rate=2097152',
  );
  await configs(
    '--alter',
    '--entity-type',
    'users',
    '--entity-name',
    'alice',
    '--entity-type',
    'clients',
    '--entity-name',
    'app',
    '--add-config',
    'request_percentage=50',
  );
  await configs('--alter', '--client-defaults', '--add-config', 'producer_byte_rate=15000000');
  const user = await configs('--describe', '--user', 'alice');
  assert.match(
    user.stdout,
    /^Quota configs for user-principal 'alice' are (producer_byte_rate=1048576\.0, consumer_byte_rate=2097152\.0|consumer_byte_rate=2097152\.0, producer_byte_rate=1048576\.0)$/m,
  );
  const pair = await configs('--describe', '--user', 'alice', '--client', 'app');
  assert.equal(
    pair.stdout,
    "Quota configs for user-principal 'alice', client-id 'app' are request_percentage=50.0\n",
  );
  const defaults = await configs('--describe', '--client-defaults');
  assert.equal(defaults.stdout, 'Quota configs for the default client-id are producer_byte_rate=1.5E7\n');
  await configs('--alter', '--user', 'alice', '--delete-config', 'producer_byte_rate');
  assert.doesNotMatch((await configs('--describe', '--user', 'alice')).stdout, /producer_byte_rate/);
  await configsFail(
    /cannot parse quota configuration value for producer_byte_rate/,
    '--alter',
    '--client',
    'app',
    '--add-config',
    'producer_byte_rate=fast',
  );
  await configs('--alter', '--ip', '10.0.0.1', '--add-config', 'connection_creation_rate=10');
  assert.equal(
    (await configs('--describe', '--ip', '10.0.0.1')).stdout,
    "Quota configs for ip '10.0.0.1' are connection_creation_rate=10.0\n",
  );
  await configsFail(
    /Invalid config\(s\): request_percentage/,
    '--alter',
    '--client',
    'other',
    '--delete-config',
    'request_percentage',
  );
});

test('--command-config with SASL PLAIN: configs over the SASL listener', async () => {
  const file = join(dir, 'client.properties');
  await writeFile(
    file,
    [
      'security.protocol=SASL_PLAINTEXT',
      'sasl.mechanism=PLAIN',
      `sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="alice" password="${PASSWORDS.alice}";`,
    ].join('\n'),
  );
  const r = await ok(
    broker.bootstrapFor('SASL_PLAINTEXT'),
    'configs',
    '--describe',
    '--topic',
    'orders',
    '--command-config',
    file,
  );
  assert.match(r.stdout, /^Dynamic configs for topic orders are:\n {2}retention\.ms=86400000 /);
  assert.ok(!(r.stdout + r.stderr).includes(PASSWORDS.alice));
});

test('bad input: one line on stderr, exit status 1', async () => {
  const mistakes: [RegExp, ...string[]][] = [
    [
      /^samsa: topic 'nope' does not exist \(samsa topics --list shows the topics\)$/m,
      '--describe',
      '--topic',
      'nope',
    ],
    [/^samsa: topic 'nope' does not exist/, '--alter', '--topic', 'nope', '--add-config', 'retention.ms=1'],
    [
      /^samsa: broker 7 does not exist \(brokers: \d+; samsa cluster lists them\)$/m,
      '--describe',
      '--broker',
      '7',
    ],
    [
      /^samsa configs: invalid entity type "tables": use topics, brokers, brokers-default, users, clients or ips$/m,
      '--describe',
      '--entity-type',
      'tables',
    ],
    [/entity type groups is not supported by samsa/, '--describe', '--entity-type', 'groups'],
    [
      /only connection quota configs can be set for ips \(connection_creation_rate\); unexpected: producer_byte_rate/,
      '--alter',
      '--ip',
      '10.0.0.1',
      '--add-config',
      'producer_byte_rate=1',
    ],
    [
      /the entity name for brokers must be a broker id, got "zero"/,
      '--describe',
      '--entity-type',
      'brokers',
      '--entity-name',
      'zero',
    ],
    [
      /--add-config: "retention\.ms" is not key=value/,
      '--alter',
      '--topic',
      'orders',
      '--add-config',
      'retention.ms',
    ],
    [/--add-config: "a=b=c" is not key=value/, '--alter', '--topic', 'orders', '--add-config', 'a=b=c'],
    [
      /^samsa: alter configs of topic orders: INVALID_CONFIG \(40\)/,
      '--alter',
      '--topic',
      'orders',
      '--add-config',
      'retention.ms=soon',
    ],
    [
      /^samsa: Invalid config\(s\): segment\.ms \(not set on topic orders; samsa configs --describe lists what is\)$/m,
      '--alter',
      '--topic',
      'orders',
      '--delete-config',
      'segment.ms',
    ],
    [/give exactly one action: --describe or --alter/, '--topic', 'orders'],
    [/--alter needs --add-config, --add-config-file or --delete-config/, '--alter', '--topic', 'orders'],
    [/name an entity/, '--describe'],
    [/only users and clients may be given together/, '--describe', '--topic', 'orders', '--user', 'alice'],
    [
      /--add-config-file: cannot read /,
      '--alter',
      '--topic',
      'orders',
      '--add-config-file',
      join(dir, 'none.properties'),
    ],
    [
      /unknown option --add-configs \(did you mean --add-config\?\)/,
      '--alter',
      '--topic',
      'orders',
      '--add-configs',
      'a=1',
    ],
  ];
  for (const [pattern, ...args] of mistakes) await configsFail(pattern, ...args);
  // The real binary says the same.
  await fails(bs, /^samsa: topic 'nope' does not exist/, 'configs', '--describe', '--topic', 'nope');
  const port = await closedPort();
  const down = await runCli([
    'configs',
    '--describe',
    '--topic',
    'orders',
    '--bootstrap-server',
    `127.0.0.1:${port}`,
  ]);
  assert.equal(down.code, 1);
  assert.match(
    down.stderr,
    new RegExp(`samsa: cannot reach 127\\.0\\.0\\.1:${port} \\(connection refused\\)\\n$`),
  );
});

test('samsa configs --help prints the usage with examples and loads no broker module', async () => {
  const hook = repoFile('test/cli/no-broker-hook.mjs');
  const help = await runCli(['configs', '--help'], { env: { NODE_OPTIONS: `--import ${hook}` } });
  assert.equal(help.code, 0, help.stderr);
  assert.equal(help.stdout, CONFIGS_USAGE);
  assert.match(help.stdout, /\nExamples:\n {2}samsa configs --describe --topic orders\n/);
});
