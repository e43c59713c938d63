// `samsa log-dirs --describe` (kafka-log-dirs): Kafka's three lines with the JSON last, the JSON
// alone for scripts, a table; --topic-list and --broker-list filter; sizes grow with what was
// produced; an unknown broker is one line and exit status 1.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { runLogDirs } from '../../src/cli/commands/log-dirs.js';
import { startTestBroker, type TestBroker } from '../../src/testkit/index.js';
import { produceCounts } from './groups-support.js';
import { failsIn, ok, okIn } from './operator-support.js';

let broker: TestBroker;
let bs: string;

before(async () => {
  broker = await startTestBroker();
  bs = broker.bootstrap;
  await produceCounts(bs, 'sized', [20, 0]);
  await produceCounts(bs, 'other', [1]);
});

after(async () => {
  await broker?.close();
});

interface KafkaJson {
  version: number;
  brokers: {
    broker: number;
    logDirs: {
      logDir: string;
      error: string | null;
      partitions: { partition: string; size: number; offsetLag: number; isFuture: boolean }[];
    }[];
  }[];
}

test('Kafka’s output: two progress lines, then the JSON', async () => {
  const r = await ok(bs, 'log-dirs', '--describe', '--topic-list', 'sized');
  const lines = r.stdout.split('\n');
  assert.equal(lines[0], 'Querying brokers for log directories information');
  assert.equal(lines[1], `Received log directory information from brokers ${broker.nodeId}`);
  assert.equal(lines[3], '');
  const j = JSON.parse(lines[2]!) as KafkaJson;
  assert.equal(j.version, 1);
  assert.equal(j.brokers.length, 1);
  assert.equal(j.brokers[0]!.broker, broker.nodeId);
  const dir = j.brokers[0]!.logDirs[0]!;
  assert.equal(dir.error, null);
  assert.ok(dir.logDir.startsWith(broker.dataDir), dir.logDir);
  const parts = new Map(dir.partitions.map((p) => [p.partition, p]));
  assert.deepEqual([...parts.keys()].sort(), ['sized-0', 'sized-1']);
  assert.ok(parts.get('sized-0')!.size > parts.get('sized-1')!.size, 'the partition with records is larger');
  assert.equal(parts.get('sized-1')!.size, 0);
  assert.deepEqual(
    { ...parts.get('sized-0'), size: 0 },
    { partition: 'sized-0', size: 0, offsetLag: 0, isFuture: false },
  );
});

test('--output json is the JSON alone; --output table for people', async () => {
  const j = JSON.parse(
    (
      await okIn(
        runLogDirs,
        bs,
        'log-dirs',
        '--describe',
        '--output',
        'json',
        '--broker-list',
        String(broker.nodeId),
      )
    ).stdout,
  ) as KafkaJson;
  const names = j.brokers[0]!.logDirs.flatMap((d) => d.partitions.map((p) => p.partition)).sort();
  assert.ok(names.includes('other-0') && names.includes('sized-0'), names.join(','));
  const t = (
    await okIn(runLogDirs, bs, 'log-dirs', '--describe', '--output', 'table', '--topic-list', 'other')
  ).stdout.split('\n');
  assert.match(t[0]!, /^BROKER {2}LOG-DIR +PARTITION {2}SIZE +OFFSET-LAG {2}IS-FUTURE {2}ERROR$/);
  assert.match(t[1]!, new RegExp(`^${broker.nodeId} +\\S+ +other-0 +[1-9]\\d* +0 +false +-$`));
  assert.equal(t.length, 3);
});

test('bad input: one line on stderr, exit status 1', async () => {
  const mistakes: [RegExp, ...string[]][] = [
    [
      new RegExp(
        `^samsa: The given brokers do not exist from --broker-list: 42\\. Current existent brokers: ${broker.nodeId}$`,
        'm',
      ),
      'log-dirs',
      '--describe',
      '--broker-list',
      '42',
    ],
    [
      /^samsa log-dirs: --broker-list: "x" is not a broker id$/m,
      'log-dirs',
      '--describe',
      '--broker-list',
      'x',
    ],
    [/give the action: --describe/, 'log-dirs'],
    [/--output is kafka, json or table, not "csv"/, 'log-dirs', '--describe', '--output', 'csv'],
  ];
  for (const [pattern, ...args] of mistakes) await failsIn(runLogDirs, bs, pattern, ...args);
});
