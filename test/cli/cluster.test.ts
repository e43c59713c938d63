// `samsa cluster` against a two-listener broker: the cluster id (kafka-cluster.sh's line), the
// controller, and the broker with its address, rack and both endpoints, as text and JSON.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { runCluster } from '../../src/cli/commands/cluster.js';
import { Admin } from '../../src/client/admin/admin.js';
import { startTestBroker, type TestBroker } from '../../src/testkit/index.js';
import { failsIn, ok, okIn } from './operator-support.js';
import { closedPort, runCli } from './support.js';

let broker: TestBroker;
let bs: string;
let clusterId: string;

before(async () => {
  // Fixed ports: the endpoints come from the broker's listeners config, where :0 would stay :0.
  const [external, internal] = [await closedPort(), await closedPort()];
  broker = await startTestBroker({
    overrides: {
      listeners: `PLAINTEXT://127.0.0.1:${external},INTERNAL://127.0.0.1:${internal}`,
      'listener.security.protocol.map': 'PLAINTEXT:PLAINTEXT,INTERNAL:PLAINTEXT',
      'inter.broker.listener.name': 'INTERNAL',
      'broker.rack': 'rack-a',
    },
  });
  bs = broker.bootstrapFor('PLAINTEXT');
  const admin = new Admin({ bootstrapServers: bs });
  try {
    clusterId = (await admin.describeCluster()).clusterId!;
  } finally {
    await admin.close();
  }
});

after(async () => {
  await broker?.close();
});

test('text: cluster id, controller, a table of brokers with rack and endpoints', async () => {
  const r = await ok(bs, 'cluster');
  const id = broker.nodeId;
  const internal = broker.bootstrapFor('INTERNAL');
  const lines = r.stdout.split('\n');
  assert.equal(lines[0], `Cluster ID: ${clusterId}`);
  assert.equal(lines[1], `Controller: ${id} (${bs})`);
  assert.equal(lines[2], '');
  assert.match(lines[3]!, /^BROKER {2}HOST:PORT +RACK +ENDPOINTS$/);
  assert.match(
    lines[4]!,
    new RegExp(
      `^${id} +${bs.replace(/\./g, '\\.')} +rack-a {2}(PLAINTEXT://${bs},INTERNAL://${internal}|INTERNAL://${internal},PLAINTEXT://${bs})$`,
    ),
  );
  assert.equal(lines.length, 6);
  assert.equal((await okIn(runCluster, bs, 'cluster', 'cluster-id')).stdout, `Cluster ID: ${clusterId}\n`);
});

test('--output json', async () => {
  const j = JSON.parse((await okIn(runCluster, bs, 'cluster', '--output', 'json')).stdout);
  assert.equal(j.clusterId, clusterId);
  assert.equal(j.controller, broker.nodeId);
  assert.equal(j.brokers.length, 1);
  const [b] = j.brokers;
  assert.equal(b.id, broker.nodeId);
  assert.equal(`${b.host}:${b.port}`, bs);
  assert.equal(b.rack, 'rack-a');
  assert.deepEqual([...b.endpoints].sort(), [
    `INTERNAL://${broker.bootstrapFor('INTERNAL')}`,
    `PLAINTEXT://${bs}`,
  ]);
});

test('bad input and a broker that is down: one line, exit status 1', async () => {
  await failsIn(
    runCluster,
    bs,
    /^samsa cluster: --output is text or json, not "yaml"$/m,
    'cluster',
    '--output',
    'yaml',
  );
  await failsIn(runCluster, bs, /^samsa cluster: unexpected argument "brokers"/m, 'cluster', 'brokers');
  const port = await closedPort();
  const r = await runCli(['cluster', '--bootstrap-server', `127.0.0.1:${port}`]);
  assert.equal(r.code, 1);
  assert.match(
    r.stderr,
    new RegExp(`samsa: cannot reach 127\\.0\\.0\\.1:${port} \\(connection refused\\)\\n$`),
  );
  const help = await runCli(['cluster', '--help']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /\nExamples:\n {2}samsa cluster\n/);
});
