// Kafka command lines as users paste them, run through the commands against a real broker:
// console-producer/consumer properties, --producer-property/--consumer-property, the .config
// files, topics --alter --partitions, --describe with configs, --list with internal topics,
// and unknown flags reported in one line with the closest known flag.

import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { runConsume } from '../../src/cli/commands/consume.js';
import { lineReaderOptions, parseLine, runProduce } from '../../src/cli/commands/produce.js';
import { runTopics } from '../../src/cli/commands/topics.js';
import { startTestBroker, type TestBroker } from '../../src/testkit/index.js';
import { captureIO, lines } from './support.js';

let broker: TestBroker;
let dir: string;
let bs: string[];
before(async () => {
  broker = await startTestBroker({ overrides: { 'log.segment.bytes': 1 << 24 } });
  bs = ['--bootstrap-server', broker.bootstrap];
  dir = await mkdtemp(join(tmpdir(), 'samsa-cli-kafka-'));
});
after(async () => {
  await broker?.close();
  await rm(dir, { recursive: true, force: true });
});

async function run(
  command: typeof runTopics,
  args: readonly string[],
  stdin = '',
): Promise<{ code: number; out: string; err: string }> {
  const io = captureIO(stdin);
  const code = await command([...bs, ...args], io.io);
  return { code, out: io.stdout(), err: io.stderr() };
}

test('topics: --create, --alter --partitions N, --describe with configs', async () => {
  const created = await run(runTopics, [
    '--create',
    '--topic',
    'orders',
    '--partitions',
    '1',
    '--config',
    'retention.ms=1000',
  ]);
  assert.equal(created.code, 0, created.err);
  assert.equal(created.out, 'Created topic orders.\n');
  const altered = await run(runTopics, ['--alter', '--topic', 'orders', '--partitions', '3']);
  assert.equal(altered.code, 0, altered.err);
  const d = await run(runTopics, ['--describe', '--topic', 'orders']);
  assert.equal(d.code, 0, d.err);
  const [head, ...parts] = lines(d.out);
  // Every config whose source is not the default: the topic override and the broker's static value.
  assert.match(head!, /^Topic: orders\tTopicId: \S+\tPartitionCount: 3\tReplicationFactor: 1\tConfigs: /);
  const configs = head!.split('Configs: ')[1]!.split(',').sort();
  assert.deepEqual(configs, ['retention.ms=1000', `segment.bytes=${1 << 24}`]);
  assert.deepEqual(
    parts.map((l) => l.split('\t').slice(1, 3).join(' ')),
    ['Topic: orders Partition: 0', 'Topic: orders Partition: 1', 'Topic: orders Partition: 2'],
  );
  const smaller = await run(runTopics, ['--alter', '--topic', 'orders', '--partitions', '2']);
  assert.equal(smaller.code, 1);
  assert.match(smaller.err, /INVALID_PARTITIONS/);
  const missing = await run(runTopics, ['--describe', '--topic', 'nope']);
  assert.equal(missing.code, 1);
  assert.equal(missing.err, "samsa: topic 'nope' does not exist as expected\n");
});

test('produce: --property parse.key/key.separator/parse.headers, --producer-property, --producer.config', async () => {
  await run(runTopics, ['--create', '--topic', 'lines', '--partitions', '1']);
  const config = join(dir, 'producer.properties');
  await writeFile(
    config,
    '# pasted from a Kafka setup\nkey.serializer=org.apache.kafka.common.serialization.StringSerializer\nlinger.ms=0\nsend.buffer.bytes=131072\n',
  );
  const p = await run(
    runProduce,
    [
      '--topic',
      'lines',
      '--property',
      'parse.key=true',
      '--property',
      'key.separator=:',
      '--property',
      'parse.headers=true',
      '--property',
      'headers.delimiter=|',
      '--property',
      'null.marker=NULL',
      '--producer-property',
      'acks=1',
      '--producer.config',
      config,
    ],
    'h1:v1,h2:v2|k1:one\nh:x|NULL:two\nNULL|k3:NULL\n',
  );
  assert.equal(p.code, 0, p.err);
  // Kafka keys samsa's producer does not use are named once; serializers are irrelevant here.
  assert.equal(p.err, "samsa: ignoring producer properties samsa's client does not use: send.buffer.bytes\n");
  const consumerConfig = join(dir, 'consumer.properties');
  await writeFile(
    consumerConfig,
    'max.poll.records=2\nkey.deserializer=org.apache.kafka.common.serialization.StringDeserializer\n',
  );
  const c = await run(runConsume, [
    '--topic',
    'lines',
    '--from-beginning',
    '--max-messages',
    '3',
    '--property',
    'print.key=true',
    '--property',
    'print.headers=true',
    '--property',
    'key.separator=|',
    '--property',
    'null.literal=<null>',
    '--consumer-property',
    'fetch.max.wait.ms=100',
    '--consumer.config',
    consumerConfig,
  ]);
  assert.equal(c.code, 0, c.err);
  assert.deepEqual(lines(c.out), ['h1:v1,h2:v2|k1|one', 'h:x|<null>|two', 'NO_HEADERS|k3|<null>']);
  assert.match(c.err, /Processed a total of 3 messages/);
});

test('a line without the separator is an error unless ignore.error=true', async () => {
  const strict = await run(
    runProduce,
    ['--topic', 'lines', '--property', 'parse.key=true', '--property', 'key.separator=:'],
    'no-separator\n',
  );
  assert.equal(strict.code, 1);
  assert.match(strict.err, /no key separator found on line 1/);
  const o = lineReaderOptions({ 'parse.key': 'true', 'key.separator': ':', 'ignore.error': 'true' });
  assert.deepEqual(parseLine('no-separator', 1, o), { key: null, value: 'no-separator', headers: [] });
  assert.deepEqual(parseLine('a:b:c', 2, o), { key: 'a', value: 'b:c', headers: [] });
});

test('topics --list includes internal topics (Kafka does); --exclude-internal leaves them out', async () => {
  // A group consumer makes the broker create __consumer_offsets.
  const c = await run(runConsume, [
    '--topic',
    'lines',
    '--group',
    'g1',
    '--from-beginning',
    '--max-messages',
    '1',
  ]);
  assert.equal(c.code, 0, c.err);
  const all = await run(runTopics, ['--list']);
  assert.equal(all.code, 0, all.err);
  assert.ok(lines(all.out).includes('__consumer_offsets'), all.out);
  assert.deepEqual(lines(all.out), [...lines(all.out)].sort());
  const external = await run(runTopics, ['--list', '--exclude-internal']);
  assert.ok(!lines(external.out).includes('__consumer_offsets'), external.out);
  assert.ok(lines(external.out).includes('orders'));
  // --topic is a regular expression for everything but --create.
  const matched = await run(runTopics, ['--list', '--topic', 'ord.*']);
  assert.deepEqual(lines(matched.out), ['orders']);
});

test('unknown flags and properties: one line naming the closest known one', async () => {
  const cases: [typeof runTopics, string[], string][] = [
    [runTopics, ['--lst'], 'samsa topics: unknown option --lst (did you mean --list?)\n'],
    [
      runTopics,
      ['--describe', '--topics', 'x'],
      'samsa topics: unknown option --topics (did you mean --topic?)\n',
    ],
    [
      runTopics,
      ['--list', '--zookeeper', 'localhost:2181'],
      'samsa topics: samsa talks to the broker directly: use --bootstrap-server instead of --zookeeper\n',
    ],
    [
      runProduce,
      ['--topic', 't', '--producer-proprety', 'acks=1'],
      'samsa produce: unknown option --producer-proprety (did you mean --producer-property?)\n',
    ],
    [
      runConsume,
      ['--topic', 't', '--from-begining'],
      'samsa consume: unknown option --from-begining (did you mean --from-beginning?)\n',
    ],
    [
      runProduce,
      ['--topic', 't', '--producer-property', 'lingr.ms=5'],
      'samsa produce: unknown producer property lingr.ms (did you mean linger.ms?)\n',
    ],
    [
      runConsume,
      ['--topic', 't', '--consumer-property', 'max.pol.records=5'],
      'samsa consume: unknown consumer property max.pol.records (did you mean max.poll.records?)\n',
    ],
  ];
  for (const [command, args, expected] of cases) {
    const r = await run(command, args);
    assert.equal(r.code, 1, args.join(' '));
    assert.equal(r.err, expected);
    assert.equal(r.out, '');
  }
});
