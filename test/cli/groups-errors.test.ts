// `samsa groups` on bad input: every mistake is one line on stderr that says what to do, and
// exit status 1 — unknown group or topic, a malformed date-time, duration or CSV plan, flags
// that do not go together, a broker that is down. `samsa groups --help` never loads the broker.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { GROUPS_USAGE } from '../../src/cli/commands/groups-usage.js';
import { Admin } from '../../src/client/admin/admin.js';
import { startTestBroker, type TestBroker } from '../../src/testkit/index.js';
import { repoFile } from '../support/repo.js';
import { groups, produceCounts } from './groups-support.js';
import { closedPort, runCli } from './support.js';

let broker: TestBroker;
let bs: string;
let dir: string;

before(async () => {
  broker = await startTestBroker();
  bs = broker.bootstrap;
  dir = await mkdtemp(join(tmpdir(), 'samsa-groups-errors-'));
  await produceCounts(bs, 'orders', [3, 3]);
  const admin = new Admin({ bootstrapServers: bs });
  await admin.alterConsumerGroupOffsets('billing', [{ topic: 'orders', partition: 0, offset: 1n }]);
  await admin.close();
});

after(async () => {
  await broker?.close();
  await rm(dir, { recursive: true, force: true });
});

/** Exit status 1 and exactly one line on stderr matching `pattern`. */
async function fails(pattern: RegExp, ...args: string[]): Promise<void> {
  const r = await groups(bs, ...args);
  assert.equal(r.code, 1, `samsa groups ${args.join(' ')}: ${r.out}`);
  assert.match(r.err, /^[^\n]+\n$/, `one line: ${r.err}`);
  assert.match(r.err, pattern);
}

test('unknown group, topic or partition', async () => {
  await fails(
    /^samsa: consumer group 'nope' does not exist \(samsa groups --list shows the groups\)$/m,
    '--describe',
    '--group',
    'nope',
  );
  await fails(/^samsa: consumer group 'nope' does not exist/, '--describe', '--group', 'nope', '--members');
  await fails(
    /^samsa: topic 'missing' does not exist \(samsa topics --list shows the topics\)$/m,
    '--reset-offsets',
    '--group',
    'billing',
    '--topic',
    'missing',
    '--to-earliest',
    '--dry-run',
  );
  await fails(
    /^samsa: partition orders-5 does not exist \(orders has 2 partitions;/,
    '--reset-offsets',
    '--group',
    'billing',
    '--topic',
    'orders:0,5',
    '--to-earliest',
    '--dry-run',
  );
  await fails(
    /^samsa: cannot shift the offset of orders-1: group 'billing' has no committed offset there/,
    '--reset-offsets',
    '--group',
    'billing',
    '--topic',
    'orders',
    '--shift-by',
    '1',
    '--dry-run',
  );
});

test('malformed date-time, duration, offsets and CSV plans', async () => {
  const reset = ['--reset-offsets', '--group', 'billing', '--all-topics'];
  await fails(
    /^samsa groups: --to-datetime "yesterday" is not a date-time: use yyyy-MM-ddTHH:mm:ss\.SSS/,
    ...reset,
    '--to-datetime',
    'yesterday',
  );
  await fails(/is not a date-time/, ...reset, '--to-datetime', '2024-02-30T00:00:00.000');
  await fails(/is not a date-time/, ...reset, '--to-datetime', '2024-01-01 00:00:00');
  await fails(
    /^samsa groups: --by-duration "5 minutes" is not a duration: use PnDTnHnMnS, e\.g\. PT30M/,
    ...reset,
    '--by-duration',
    '5 minutes',
  );
  await fails(/is not a duration/, ...reset, '--by-duration', 'PT');
  await fails(
    /^samsa groups: --to-offset must be an offset \(0 or more\), got "-1"/,
    ...reset,
    '--to-offset',
    '-1',
  );
  await fails(/^samsa groups: --shift-by must be a whole number/, ...reset, '--shift-by', 'ten');
  const bad = join(dir, 'bad.csv');
  await writeFile(bad, 'orders,0,1\norders,zero,2\n');
  await fails(
    /^samsa groups: --from-file .*bad\.csv line 2: expected topic,partition,offset, got "orders,zero,2"$/m,
    '--reset-offsets',
    '--group',
    'billing',
    '--from-file',
    bad,
  );
  await fails(
    /^samsa groups: --from-file: cannot read /,
    '--reset-offsets',
    '--group',
    'billing',
    '--from-file',
    join(dir, 'none.csv'),
  );
});

test("flags that do not go together, with Kafka's rules", async () => {
  await fails(
    /^samsa groups: give exactly one action: --list, --describe, --delete, --reset-offsets, --delete-offsets$/m,
  );
  await fails(/give exactly one action/, '--list', '--describe');
  await fails(/^samsa groups: --describe needs --group G \(repeatable\) or --all-groups$/m, '--describe');
  await fails(
    /at most one of --members, --offsets, --state/,
    '--describe',
    '--group',
    'billing',
    '--members',
    '--state',
  );
  await fails(/exactly one of --to-earliest/, '--reset-offsets', '--group', 'billing', '--all-topics');
  await fails(
    /exactly one of --to-earliest/,
    '--reset-offsets',
    '--group',
    'billing',
    '--all-topics',
    '--to-earliest',
    '--to-latest',
  );
  await fails(
    /needs a scope: --all-topics or --topic/,
    '--reset-offsets',
    '--group',
    'billing',
    '--to-earliest',
  );
  await fails(
    /give --dry-run or --execute, not both/,
    '--reset-offsets',
    '--group',
    'billing',
    '--all-topics',
    '--to-earliest',
    '--dry-run',
    '--execute',
  );
  await fails(/--output is text or json, not "yaml"/, '--list', '--output', 'yaml');
  await fails(
    /unknown option --to-earlist \(did you mean --to-earliest\?\)/,
    '--reset-offsets',
    '--to-earlist',
  );
});

test('broker down: one line naming the address, exit status 1', async () => {
  const port = await closedPort();
  const r = await runCli(['groups', '--bootstrap-server', `127.0.0.1:${port}`, '--list']);
  assert.equal(r.code, 1);
  assert.match(
    r.stderr,
    new RegExp(`samsa: cannot reach 127\\.0\\.0\\.1:${port} \\(connection refused\\)\\n$`),
  );
});

test('samsa groups --help loads no broker module (samsa start --help does)', async () => {
  const hook = repoFile('test/cli/no-broker-hook.mjs');
  const help = await runCli(['groups', '--help'], { env: { NODE_OPTIONS: `--import ${hook}` } });
  assert.equal(help.code, 0, help.stderr);
  assert.equal(help.stdout, GROUPS_USAGE);
  assert.match(help.stdout, /Examples:\n {2}samsa groups --list --state\n/);
  // The hook works: the broker's own command trips it.
  const start = await runCli(['start', '--help'], { env: { NODE_OPTIONS: `--import ${hook}` } });
  assert.equal(start.code, 1);
  assert.match(start.stderr, /the broker was loaded: .*\/src\/broker\//);
});
