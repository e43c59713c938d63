// `samsa records --delete` (kafka-delete-records): Kafka's offset JSON file and the
// --topic/--partition/--before-offset shorthand move the log start offset exactly; -1 means the
// high watermark; Kafka's output lines and JSON; bad files and offsets as one line, exit 1.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { runRecords } from '../../src/cli/commands/records.js';
import { Admin } from '../../src/client/admin/admin.js';
import { startTestBroker, type TestBroker } from '../../src/testkit/index.js';
import { produceCounts } from './groups-support.js';
import { fails, failsIn, ok, okIn } from './operator-support.js';

let broker: TestBroker;
let bs: string;
let dir: string;

before(async () => {
  broker = await startTestBroker();
  bs = broker.bootstrap;
  dir = await mkdtemp(join(tmpdir(), 'samsa-records-'));
  await produceCounts(bs, 'events', [10, 10, 10]);
});

after(async () => {
  await broker?.close();
  await rm(dir, { recursive: true, force: true });
});

async function logStarts(topic: string, partitions: number): Promise<bigint[]> {
  const admin = new Admin({ bootstrapServers: bs });
  try {
    const listed = await admin.listOffsets(
      Array.from({ length: partitions }, (_, partition) => ({ topic, partition, spec: 'earliest' as const })),
    );
    return listed.sort((a, b) => a.partition - b.partition).map((o) => o.offset);
  } finally {
    await admin.close();
  }
}

test('--offset-json-file in Kafka’s format: low watermarks printed as Kafka does', async () => {
  const file = join(dir, 'delete.json');
  await writeFile(
    file,
    JSON.stringify({
      partitions: [
        { topic: 'events', partition: 0, offset: 4 },
        { topic: 'events', partition: 1, offset: -1 },
      ],
      version: 1,
    }),
  );
  const r = await ok(bs, 'records', '--delete', '--offset-json-file', file);
  assert.equal(
    r.stdout,
    'Executing records delete operation\nRecords delete operation completed:\npartition: events-0\tlow_watermark: 4\npartition: events-1\tlow_watermark: 10\n',
  );
  assert.deepEqual(await logStarts('events', 3), [4n, 10n, 0n]);
});

test('--topic/--partition/--before-offset, every partition without --partition, --output json', async () => {
  await okIn(
    runRecords,
    bs,
    'records',
    '--delete',
    '--topic',
    'events',
    '--partition',
    '2',
    '--before-offset',
    '3',
  );
  assert.deepEqual(await logStarts('events', 3), [4n, 10n, 3n]);
  const j = JSON.parse(
    (
      await okIn(
        runRecords,
        bs,
        'records',
        '--delete',
        '--topic',
        'events',
        '--before-offset',
        '6',
        '--output',
        'json',
      )
    ).stdout,
  );
  // Deleting before an offset below the log start leaves the start where it is.
  assert.deepEqual(
    j.sort((a: { partition: number }, b: { partition: number }) => a.partition - b.partition),
    [
      { topic: 'events', partition: 0, lowWatermark: 6 },
      { topic: 'events', partition: 1, lowWatermark: 10 },
      { topic: 'events', partition: 2, lowWatermark: 6 },
    ],
  );
});

test('bad input: one line on stderr, exit status 1', async () => {
  const write = async (name: string, text: string) => {
    const f = join(dir, name);
    await writeFile(f, text);
    return f;
  };
  const notJson = await write('bad.json', '{"partitions": [');
  const noPartitions = await write('none.json', '{"version":1}');
  const version2 = await write('v2.json', '{"partitions":[],"version":2}');
  const dup = await write(
    'dup.json',
    '{"partitions":[{"topic":"events","partition":0,"offset":1},{"topic":"events","partition":0,"offset":2}]}',
  );
  const noOffset = await write('nooffset.json', '{"partitions":[{"topic":"events","partition":0}]}');
  const unknown = await write('unknown.json', '{"partitions":[{"topic":"nope","partition":0,"offset":1}]}');
  const mistakes: [RegExp, ...string[]][] = [
    [
      /^samsa records: --offset-json-file .*bad\.json is not valid JSON/m,
      'records',
      '--delete',
      '--offset-json-file',
      notJson,
    ],
    [
      /none\.json: missing "partitions" array; expected \{"partitions":\[\{"topic":"t","partition":0,"offset":5\}\],"version":1\}$/m,
      'records',
      '--delete',
      '--offset-json-file',
      noPartitions,
    ],
    [/version 2 is not supported/, 'records', '--delete', '--offset-json-file', version2],
    [
      /^samsa records: Offset json file contains duplicate topic partitions: events-0$/m,
      'records',
      '--delete',
      '--offset-json-file',
      dup,
    ],
    [/partitions\[0\] has no "offset" number/, 'records', '--delete', '--offset-json-file', noOffset],
    [
      /--offset-json-file: cannot read /,
      'records',
      '--delete',
      '--offset-json-file',
      join(dir, 'missing.json'),
    ],
    [
      /^samsa: topic 'nope' does not exist \(samsa topics --list shows the topics\)$/m,
      'records',
      '--delete',
      '--offset-json-file',
      unknown,
    ],
    [
      /^samsa: partition events-7 does not exist \(events has 3 partitions\)$/m,
      'records',
      '--delete',
      '--topic',
      'events',
      '--partition',
      '7',
      '--before-offset',
      '1',
    ],
    [
      /OFFSET_OUT_OF_RANGE.*\(the offset is past the high watermark; -1 deletes up to it\)$/m,
      'records',
      '--delete',
      '--topic',
      'events',
      '--partition',
      '0',
      '--before-offset',
      '99',
    ],
    [
      /--before-offset must be a whole number \(-1 or more\), got "-5"/,
      'records',
      '--delete',
      '--topic',
      'events',
      '--before-offset',
      '-5',
    ],
    [/give --offset-json-file FILE or --topic T --before-offset N, one of them/, 'records', '--delete'],
    [/--topic and --before-offset go together/, 'records', '--delete', '--topic', 'events'],
    [/give the action: --delete/, 'records', '--topic', 'events', '--before-offset', '1'],
  ];
  for (const [pattern, ...args] of mistakes) await failsIn(runRecords, bs, pattern, ...args);
  await fails(bs, /is not valid JSON/, 'records', '--delete', '--offset-json-file', notJson);
});
