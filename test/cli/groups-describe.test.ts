// `samsa groups --list/--describe/--delete/--delete-offsets` against a real broker, on groups
// made by other clients: confluent-kafka-python and kafkajs commit known offsets and leave,
// kcat -G stays a live member. Lags are exact; the text is Kafka's columns, padded as
// kafka-consumer-groups pads them, with LAG-TIME after them; --output json parses.
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { after, before, test } from 'node:test';
import { Admin } from '../../src/client/admin/admin.js';
import { startTestBroker, type TestBroker } from '../../src/testkit/index.js';
import { groups, kafkajsCommit, kcatMember, produceCounts, pythonCommit, until } from './groups-support.js';

let broker: TestBroker;
let bs: string;
let admin: Admin;
let kcat: ChildProcess | undefined;
const HOUR = 3_600_000;

before(async () => {
  broker = await startTestBroker({ overrides: { 'group.initial.rebalance.delay.ms': 0 } });
  bs = broker.bootstrap;
  admin = new Admin({ bootstrapServers: bs });
  await produceCounts(bs, 'orders', [10, 20, 30]);
  await produceCounts(bs, 'audit', [5]);
  // Every record of 'aged' was written three hours ago (CreateTime).
  const threeHoursAgo = Date.now() - 3 * HOUR;
  await produceCounts(bs, 'aged', [4], { timestamp: () => threeHoursAgo });
  await pythonCommit(bs, 'py-billing', 'orders', { 0: 4, 1: 20, 2: 0 });
  await kafkajsCommit(bs, 'js-billing', 'orders', { 0: 10, 1: 5 });
  await kafkajsCommit(bs, 'js-aged', 'aged', { 0: 1 });
  kcat = kcatMember(bs, 'kcat-audit', 'audit');
  await until(
    async () => {
      const [d] = await admin.describeGroups(['kcat-audit']);
      const [c] = await admin.listConsumerGroupOffsets('kcat-audit');
      return d?.state === 'Stable' && c?.offset === 5n;
    },
    60_000,
    'kcat -G to join and commit offset 5',
  );
});

after(async () => {
  kcat?.kill('SIGKILL');
  await admin?.close();
  await broker?.close();
});

/** A table line without its last column (LAG-TIME, which depends on the clock). */
const withoutLast = (line: string) => line.slice(0, line.lastIndexOf(' '));

test('--describe: an Empty group made by confluent-kafka-python, exact lags in Kafka columns', async () => {
  const r = await groups(bs, '--describe', '--group', 'py-billing');
  assert.equal(r.code, 0, r.err);
  assert.equal(r.err, "Consumer group 'py-billing' has no active members.\n");
  const lines = r.out.split('\n');
  assert.equal(lines[0], ''); // Kafka starts each table with a blank line
  assert.deepEqual(lines.slice(1, 5).map(withoutLast), [
    'GROUP           TOPIC           PARTITION  CURRENT-OFFSET  LOG-END-OFFSET  LAG             CONSUMER-ID     HOST            CLIENT-ID      ',
    'py-billing      orders          0          4               10              6               -               -               -              ',
    'py-billing      orders          1          20              20              0               -               -               -              ',
    'py-billing      orders          2          0               30              30              -               -               -              ',
  ]);
  assert.deepEqual(
    lines.slice(1, 5).map((l) => l.slice(l.lastIndexOf(' ') + 1)),
    ['LAG-TIME', lines[2]!.split(/ +/).at(-1), '0s', lines[4]!.split(/ +/).at(-1)],
  );
  assert.match(lines[2]!, / (\d+ms|\d+s)$/); // records written moments ago
  assert.equal(lines.length, 6);
});

test('--describe --output json: a kafkajs group, lags and the age of the oldest unconsumed record', async () => {
  const r = await groups(bs, '--describe', '--group', 'js-billing', '--group', 'js-aged', '--output', 'json');
  assert.equal(r.code, 0, r.err);
  assert.equal(r.err, ''); // notes stay off stderr in JSON mode
  const parsed = JSON.parse(r.out) as {
    group: string;
    state: string;
    partitions: {
      topic: string;
      partition: number;
      currentOffset: number;
      logEndOffset: number;
      lag: number;
      lagMs: number;
    }[];
  }[];
  assert.deepEqual(
    parsed.map((g) => [
      g.group,
      g.state,
      g.partitions.map((p) => [p.topic, p.partition, p.currentOffset, p.logEndOffset, p.lag]),
    ]),
    [
      ['js-aged', 'Empty', [['aged', 0, 1, 4, 3]]],
      [
        'js-billing',
        'Empty',
        [
          ['orders', 0, 10, 10, 0],
          ['orders', 1, 5, 20, 15],
        ],
      ],
    ],
  );
  const aged = parsed[0]!.partitions[0]!.lagMs;
  assert.ok(aged >= 3 * HOUR && aged < 3 * HOUR + 10 * 60_000, `lagMs ${aged}`);
  assert.equal(parsed[1]!.partitions[0]!.lagMs, 0);
  const text = await groups(bs, '--describe', '--group', 'js-aged');
  assert.match(text.out.split('\n')[2]!, / 3h0m$/);
});

test('--describe a live kcat -G member: offsets, --members --verbose, --state', async () => {
  const offsets = await groups(bs, '--describe', '--group', 'kcat-audit');
  assert.equal(offsets.code, 0, offsets.err);
  assert.equal(offsets.err, '');
  const row = offsets.out.split('\n')[2]!.split(/ +/);
  assert.deepEqual(row.slice(0, 6), ['kcat-audit', 'audit', '0', '5', '5', '0']);
  assert.match(row[6]!, /^kcat-reader-/);
  assert.deepEqual(row.slice(7), ['/127.0.0.1', 'kcat-reader', '0s']);

  const members = await groups(bs, '--describe', '--group', 'kcat-audit', '--members', '--verbose');
  assert.equal(members.code, 0, members.err);
  const [blank, head, member, end] = members.out.split('\n');
  assert.equal(blank, '');
  const idWidth = Math.max(15, row[6]!.length);
  // Kafka 4's verbose columns; a classic group has no epochs and no target assignment.
  assert.equal(
    head,
    `GROUP           ${'CONSUMER-ID'.padEnd(idWidth)} HOST            CLIENT-ID       #PARTITIONS     ` +
      'CURRENT-EPOCH   CURRENT-ASSIGNMENT   TARGET-EPOCH    TARGET-ASSIGNMENT   ',
  );
  assert.equal(
    member,
    `kcat-audit      ${row[6]!.padEnd(idWidth)} /127.0.0.1      kcat-reader     1               ` +
      '-               audit:0              -               -                   ',
  );
  assert.equal(end, '');

  const state = await groups(bs, '--describe', '--group', 'kcat-audit', '--state');
  assert.equal(state.code, 0, state.err);
  const coordinator = `${broker.bootstrap}  (${0})`.replace(
    /\(0\)/,
    `(${(await admin.describeCluster()).brokers[0]!.nodeId})`,
  );
  const w = Math.max(25, coordinator.length);
  assert.equal(
    state.out,
    `\nGROUP           ${'COORDINATOR (ID)'.padEnd(w)} ASSIGNMENT-STRATEGY  STATE                #MEMBERS\n` +
      `kcat-audit      ${coordinator.padEnd(w)} range                Stable               1\n`,
  );
  const verbose = await groups(bs, '--describe', '--group', 'kcat-audit', '--state', '--verbose');
  assert.equal(
    verbose.out,
    `\nGROUP           ${'COORDINATOR (ID)'.padEnd(w)} ASSIGNMENT-STRATEGY  STATE                ` +
      'GROUP-EPOCH     TARGET-ASSIGNMENT-EPOCH   #MEMBERS\n' +
      `kcat-audit      ${coordinator.padEnd(w)} range                Stable               ` +
      '-               -                         1\n',
  );
  const json = JSON.parse(
    (await groups(bs, '--describe', '--group', 'kcat-audit', '--members', '--output', 'json')).out,
  );
  assert.equal(json[0].members[0].clientId, 'kcat-reader');
  assert.deepEqual(json[0].members[0].partitions, [{ topic: 'audit', partition: 0 }]);
});

test('--list, --list --state, --list --output json', async () => {
  const names = await groups(bs, '--list');
  assert.equal(names.code, 0, names.err);
  assert.deepEqual(names.out.split('\n').filter(Boolean).sort(), [
    'js-aged',
    'js-billing',
    'kcat-audit',
    'py-billing',
  ]);
  // Kafka's list table: GROUP as wide as the longest id (at least 15) plus 10, then 20 per column.
  const stable = await groups(bs, '--list', '--state', 'stable');
  assert.equal(
    stable.out,
    `${'GROUP'.padEnd(25)} ${'STATE'.padEnd(20)}\n${'kcat-audit'.padEnd(25)} ${'Stable'.padEnd(20)}\n`,
  );
  const typed = await groups(bs, '--list', '--type', '--state', 'empty');
  assert.deepEqual(
    typed.out.split('\n').map((l) => l.trimEnd()),
    [
      `${'GROUP'.padEnd(25)} ${'TYPE'.padEnd(20)} STATE`,
      `${'js-aged'.padEnd(25)} ${'Classic'.padEnd(20)} Empty`,
      `${'js-billing'.padEnd(25)} ${'Classic'.padEnd(20)} Empty`,
      `${'py-billing'.padEnd(25)} ${'Classic'.padEnd(20)} Empty`,
      '',
    ],
  );
  assert.equal(
    (await groups(bs, '--list', '--type', 'consumer')).out,
    `${'GROUP'.padEnd(25)} ${'TYPE'.padEnd(20)}\n`,
    'no consumer group here: the header alone, as Kafka prints it',
  );
  const json = JSON.parse((await groups(bs, '--list', '--state', '--output', 'json')).out) as {
    group: string;
    state: string;
  }[];
  assert.deepEqual(json.map((g) => `${g.group}=${g.state}`).sort(), [
    'js-aged=Empty',
    'js-billing=Empty',
    'kcat-audit=Stable',
    'py-billing=Empty',
  ]);
});

test('--delete-offsets and --delete: done for an Empty group, refused for a live one', async () => {
  const partly = await groups(bs, '--delete-offsets', '--group', 'py-billing', '--topic', 'orders:2');
  assert.equal(partly.code, 0, partly.err);
  assert.equal(
    partly.out,
    'Request succeeded for deleting offsets from group py-billing.\n\nTOPIC           PARTITION  STATUS         \norders          2          Successful     \n',
  );
  assert.deepEqual(
    (await admin.listConsumerGroupOffsets('py-billing')).map((c) => c.partition).sort(),
    [0, 1],
  );
  const live = await groups(bs, '--delete', '--group', 'kcat-audit');
  assert.equal(live.code, 1);
  assert.equal(
    live.err,
    "samsa: consumer group 'kcat-audit' could not be deleted: the group has active members (stop its consumers first)\n",
  );
  const subscribed = await groups(bs, '--delete-offsets', '--group', 'kcat-audit', '--topic', 'audit');
  assert.equal(subscribed.code, 1);
  assert.match(
    subscribed.err,
    /^samsa: offsets of consumer group 'kcat-audit' could not be deleted: the group is consuming the topic/,
  );

  const deleted = await groups(bs, '--delete', '--group', 'py-billing', '--group', 'js-billing');
  assert.equal(deleted.code, 0, deleted.err);
  assert.equal(
    deleted.out,
    "Deletion of requested consumer groups ('py-billing', 'js-billing') was successful.\n",
  );
  const gone = await groups(bs, '--describe', '--group', 'py-billing');
  assert.equal(gone.code, 1);
  assert.equal(
    gone.err,
    "samsa: consumer group 'py-billing' does not exist (samsa groups --list shows the groups)\n",
  );

  kcat!.kill('SIGTERM'); // kcat leaves the group on the way out
  await until(
    async () => (await admin.describeGroups(['kcat-audit']))[0]?.state === 'Empty',
    30_000,
    'kcat to leave',
  );
  const after = await groups(bs, '--delete', '--group', 'kcat-audit');
  assert.equal(after.code, 0, after.err);
});
