// `samsa groups --reset-offsets` against a real broker: every scenario moves exactly the offsets
// it should (kept within the log as Kafka keeps them), --dry-run and the default move none,
// --export's CSV is what --from-file reads, and a group with a live member (kafkajs) is refused.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { Admin } from '../../src/client/admin/admin.js';
import { startTestBroker, type TestBroker } from '../../src/testkit/index.js';
import { groups, kafkajsCommit, produceCounts, pythonCommit } from './groups-support.js';

let broker: TestBroker;
let bs: string;
let admin: Admin;
let dir: string;
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
/** Records i = 0..9 of 'events' (both partitions) carry 2024-01-01T00:0i:00Z. */
const NEW_YEAR = Date.UTC(2024, 0, 1);

before(async () => {
  broker = await startTestBroker({ overrides: { 'group.initial.rebalance.delay.ms': 0 } });
  bs = broker.bootstrap;
  admin = new Admin({ bootstrapServers: bs });
  dir = await mkdtemp(join(tmpdir(), 'samsa-groups-reset-'));
  // retention.ms=-1: records stamped 2024 must not be deleted by time retention.
  await produceCounts(bs, 'events', [10, 10], {
    timestamp: (i) => NEW_YEAR + i * MINUTE,
    configs: { 'retention.ms': '-1' },
  });
  // 'recent' record i was written (9.5 - i) hours ago: PT5H falls between records 4 and 5.
  const now = Date.now();
  await produceCounts(bs, 'recent', [10], { timestamp: (i) => now - (9.5 - i) * HOUR });
  await pythonCommit(bs, 'billing', 'events', { 0: 5, 1: 5 });
});

after(async () => {
  await admin?.close();
  await broker?.close();
  await rm(dir, { recursive: true, force: true });
});

async function committed(group: string, topic = 'events'): Promise<number[]> {
  const offsets = await admin.listConsumerGroupOffsets(group);
  return offsets
    .filter((o) => o.topic === topic)
    .sort((a, b) => a.partition - b.partition)
    .map((o) => Number(o.offset));
}

/** Puts billing back at 5/5, then resets with ARGS --execute; gives the committed offsets. */
async function resetFrom55(...args: string[]): Promise<{ offsets: number[]; out: string; err: string }> {
  await admin.alterConsumerGroupOffsets('billing', [
    { topic: 'events', partition: 0, offset: 5n },
    { topic: 'events', partition: 1, offset: 5n },
  ]);
  const r = await groups(bs, '--reset-offsets', '--group', 'billing', ...args, '--execute');
  assert.equal(r.code, 0, r.err);
  return { offsets: await committed('billing'), out: r.out, err: r.err };
}

test('--to-earliest, --to-latest, --to-offset (kept within the log), --shift-by both ways', async () => {
  assert.deepEqual((await resetFrom55('--all-topics', '--to-earliest')).offsets, [0, 0]);
  assert.deepEqual((await resetFrom55('--all-topics', '--to-latest')).offsets, [10, 10]);
  assert.deepEqual((await resetFrom55('--topic', 'events', '--to-offset', '7')).offsets, [7, 7]);
  const high = await resetFrom55('--topic', 'events', '--to-offset', '99');
  assert.deepEqual(high.offsets, [10, 10]);
  assert.match(
    high.err,
    /New offset \(99\) is higher than latest offset for topic partition events-0\. Value will be set to 10/,
  );
  assert.deepEqual((await resetFrom55('--all-topics', '--shift-by', '-3')).offsets, [2, 2]);
  assert.deepEqual((await resetFrom55('--all-topics', '--shift-by', '2')).offsets, [7, 7]);
  const low = await resetFrom55('--all-topics', '--shift-by', '-30');
  assert.deepEqual(low.offsets, [0, 0]);
  assert.match(
    low.err,
    /New offset \(-25\) is lower than earliest offset for topic partition events-1\. Value will be set to 0/,
  );
});

test('a scope of some partitions moves only those; --to-current keeps offsets, fills the rest at the end', async () => {
  const one = await resetFrom55('--topic', 'events:1', '--to-earliest');
  assert.deepEqual(one.offsets, [5, 0]);
  assert.equal(
    one.out,
    '\nGROUP           TOPIC           PARTITION  NEW-OFFSET\nbilling         events          1          0\n',
  );
  await admin.deleteConsumerGroupOffsets('billing', [{ topic: 'events', partition: 1 }]);
  await admin.alterConsumerGroupOffsets('billing', [{ topic: 'events', partition: 0, offset: 3n }]);
  const r = await groups(
    bs,
    '--reset-offsets',
    '--group',
    'billing',
    '--topic',
    'events',
    '--to-current',
    '--execute',
  );
  assert.equal(r.code, 0, r.err);
  assert.deepEqual(await committed('billing'), [3, 10]);
});

test('--to-datetime (UTC, a zone, the future) and --by-duration', async () => {
  assert.deepEqual(
    (await resetFrom55('--all-topics', '--to-datetime', '2024-01-01T00:03:30.000')).offsets,
    [4, 4],
  );
  assert.deepEqual(
    (await resetFrom55('--all-topics', '--to-datetime', '2024-01-01T01:03:30.000+01:00')).offsets,
    [4, 4],
  );
  assert.deepEqual(
    (await resetFrom55('--all-topics', '--to-datetime', '2023-12-31T23:00:00.000Z')).offsets,
    [0, 0],
  );
  const future = await resetFrom55('--all-topics', '--to-datetime', '2099-01-01T00:00:00.000');
  assert.deepEqual(future.offsets, [10, 10]);
  assert.match(
    future.err,
    /Warn: Partition 0 from topic events is empty\. Falling back to latest known offset\./,
  );
  await admin.alterConsumerGroupOffsets('recent-reader', [{ topic: 'recent', partition: 0, offset: 0n }]);
  const byDuration = await groups(
    bs,
    '--reset-offsets',
    '--group',
    'recent-reader',
    '--topic',
    'recent',
    '--by-duration',
    'PT5H',
    '--execute',
  );
  assert.equal(byDuration.code, 0, byDuration.err);
  assert.deepEqual(await committed('recent-reader', 'recent'), [5]);
  const dayAndHalf = await groups(
    bs,
    '--reset-offsets',
    '--group',
    'recent-reader',
    '--topic',
    'recent',
    '--by-duration',
    'P1DT12H',
    '--execute',
  );
  assert.equal(dayAndHalf.code, 0, dayAndHalf.err);
  assert.deepEqual(await committed('recent-reader', 'recent'), [0]);
});

test('--from-file: the CSV --export writes, for one group and for several', async () => {
  await admin.alterConsumerGroupOffsets('billing', [
    { topic: 'events', partition: 0, offset: 5n },
    { topic: 'events', partition: 1, offset: 5n },
  ]);
  const exported = await groups(
    bs,
    '--reset-offsets',
    '--group',
    'billing',
    '--all-topics',
    '--shift-by',
    '-2',
    '--export',
    '--dry-run',
  );
  assert.equal(exported.code, 0, exported.err);
  assert.equal(exported.out, 'events,0,3\nevents,1,3\n');
  assert.deepEqual(await committed('billing'), [5, 5]); // a dry run moves nothing
  const plan = join(dir, 'plan.csv');
  await writeFile(plan, exported.out);
  assert.deepEqual((await resetFrom55('--from-file', plan)).offsets, [3, 3]);

  const both = join(dir, 'both.csv');
  await writeFile(both, 'billing,events,0,8\nother,events,1,2\n');
  const r = await groups(
    bs,
    '--reset-offsets',
    '--group',
    'billing',
    '--group',
    'other',
    '--from-file',
    both,
    '--execute',
  );
  assert.equal(r.code, 0, r.err);
  assert.deepEqual(await committed('billing'), [8, 3]);
  assert.deepEqual(await committed('other'), [2]);
});

test('--dry-run and the default print the plan and move nothing; --output json gives it to scripts', async () => {
  await admin.alterConsumerGroupOffsets('billing', [
    { topic: 'events', partition: 0, offset: 5n },
    { topic: 'events', partition: 1, offset: 5n },
  ]);
  const dry = await groups(
    bs,
    '--reset-offsets',
    '--group',
    'billing',
    '--all-topics',
    '--to-earliest',
    '--dry-run',
  );
  assert.equal(dry.code, 0, dry.err);
  assert.equal(dry.err, '');
  assert.equal(
    dry.out,
    '\nGROUP           TOPIC           PARTITION  NEW-OFFSET\nbilling         events          0          0\nbilling         events          1          0\n',
  );
  const byDefault = await groups(bs, '--reset-offsets', '--group', 'billing', '--all-topics', '--to-latest');
  assert.equal(byDefault.code, 0, byDefault.err);
  assert.match(byDefault.err, /^WARN: No action will be performed as the --execute option is missing/);
  const json = await groups(
    bs,
    '--reset-offsets',
    '--group',
    'billing',
    '--topic',
    'events:0',
    '--to-offset',
    '1',
    '--dry-run',
    '--output',
    'json',
  );
  assert.deepEqual(JSON.parse(json.out), [{ group: 'billing', topic: 'events', partition: 0, offset: 1 }]);
  assert.deepEqual(await committed('billing'), [5, 5]);
});

test('a group with a live member (kafkajs) is refused, its offsets untouched', async () => {
  const member = await kafkajsCommit(bs, 'live', 'events', { 0: 6, 1: 6 }, { stay: true });
  try {
    const r = await groups(
      bs,
      '--reset-offsets',
      '--group',
      'live',
      '--all-topics',
      '--to-earliest',
      '--execute',
    );
    assert.equal(r.code, 1);
    assert.equal(
      r.err,
      "samsa: Assignments can only be reset if the group 'live' is inactive, but the current state is Stable. (stop its consumers first)\n",
    );
    assert.equal(r.out, '');
    assert.deepEqual(await committed('live'), [6, 6]);
  } finally {
    await member.disconnect();
  }
  const r = await groups(
    bs,
    '--reset-offsets',
    '--group',
    'live',
    '--all-topics',
    '--to-earliest',
    '--execute',
  );
  assert.equal(r.code, 0, r.err);
  assert.deepEqual(await committed('live'), [0, 0]);
});
