// `samsa groups` and the Admin client on consumer groups (KIP-848) made by real clients, with
// Kafka 4's columns: a kafkajs member (classic protocol) whose group our consumer upgrades with
// groupProtocol 'consumer' — a mixed group: --members --verbose shows each member's epoch,
// current and target assignment and UPGRADED, --state --verbose the group and target epochs,
// --offsets --verbose the committed leader epochs, --list --type the type; when ours leaves, the group is classic again and shows no epochs. A
// group of our consumer and a @platformatic/kafka 1.35 one (both consumer protocol) has no
// UPGRADED column. DescribeGroups, which describes classic groups only, is not what answers.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Consumer as PlatformaticConsumer, stringDeserializers } from '@platformatic/kafka';
import { Admin } from '../../src/client/admin/admin.js';
import type { GroupDescription } from '../../src/client/admin/groups.js';
import type { Consumer } from '../../src/client/consumer/index.js';
import { startTestBroker, type TestBroker } from '../../src/testkit/index.js';
import { consumer as ourConsumer } from '../client/consumer/support.js';
import { groups, kafkajsCommit, produceCounts, until } from './groups-support.js';

let broker: TestBroker;
let bs: string;
let admin: Admin;
const TOPIC = 'cp-orders';

before(async () => {
  broker = await startTestBroker({
    overrides: { 'group.initial.rebalance.delay.ms': 0, 'group.consumer.heartbeat.interval.ms': 200 },
  });
  bs = broker.bootstrap;
  admin = new Admin({ bootstrapServers: bs });
  await produceCounts(bs, TOPIC, [5, 5, 5, 5]);
});
after(async () => {
  await admin?.close();
  await broker?.close();
});

/** Our consumer-protocol member, polling (and committing what it reads) until stopped. */
function ours(group: string, clientId: string): { c: Consumer; stop: () => Promise<void> } {
  const c = ourConsumer(broker, {
    groupId: group,
    groupProtocol: 'consumer',
    clientId,
    enableAutoCommit: false,
  });
  c.subscribe([TOPIC], {
    onPartitionsRevoked: async () => {
      await c.commitSync().catch(() => {});
    },
  });
  let polling = true;
  const loop = (async () => {
    while (polling) if ((await c.poll(100)).length > 0) await c.commitSync().catch(() => {});
  })();
  return {
    c,
    stop: async () => {
      polling = false;
      await loop;
      await c.close();
    },
  };
}

async function described(group: string): Promise<GroupDescription> {
  return (await admin.describeGroups([group]))[0]!;
}

/** Stable, `members` members holding `each` partitions apiece (the target reached). */
async function settled(group: string, members: number, each: number): Promise<GroupDescription> {
  let d: GroupDescription | undefined;
  await until(
    async () => {
      d = await described(group);
      return (
        d.state === 'Stable' &&
        d.members.length === members &&
        d.members.every((m) => m.assignment.length === each)
      );
    },
    90_000,
    `${group}: Stable with ${members} members of ${each} partitions (last: ${JSON.stringify(d?.members.map((m) => m.assignment.length))} ${d?.state})`,
  );
  return d!;
}

/** Kafka 4's `--describe --members --verbose` columns (UPGRADED follows in a mixed group). */
const MEMBER_COLUMNS = [
  'GROUP',
  'CONSUMER-ID',
  'HOST',
  'CLIENT-ID',
  '#PARTITIONS',
  'CURRENT-EPOCH',
  'CURRENT-ASSIGNMENT',
  'TARGET-EPOCH',
  'TARGET-ASSIGNMENT',
];

/** The columns of a table line, and where each starts. */
function columns(line: string): { text: string; at: number }[] {
  return [...line.matchAll(/\S+/g)].map((m) => ({ text: m[0], at: m.index! }));
}

test('a mixed group (kafkajs classic member + our consumer-protocol member): Admin, --members/--state/--offsets --verbose, --list --type', {
  timeout: 300_000,
}, async () => {
  const group = 'cp-mixed';
  const classic = await kafkajsCommit(bs, group, TOPIC, { 0: 5, 1: 5, 2: 5, 3: 5 }, { stay: true });
  try {
    const mine = ours(group, 'cp-ours');
    try {
      const d = await settled(group, 2, 2);
      // Admin: ConsumerGroupDescribe's view, with who is still on the classic protocol.
      assert.equal(d.type, 'consumer');
      assert.equal(d.protocol, 'uniform');
      assert.ok(d.groupEpoch !== null && d.groupEpoch >= 2, `group epoch ${d.groupEpoch}`);
      assert.equal(d.targetAssignmentEpoch, d.groupEpoch);
      const oursMember = d.members.find((m) => m.clientId === 'cp-ours')!;
      const kafkajsMember = d.members.find((m) => m.clientId !== 'cp-ours')!;
      assert.equal(oursMember.upgraded, true);
      assert.equal(kafkajsMember.upgraded, false);
      for (const m of d.members) {
        assert.equal(m.memberEpoch, d.targetAssignmentEpoch, 'reconciled members are at the target epoch');
        assert.deepEqual(m.targetAssignment, m.assignment);
      }

      // --members --verbose: Kafka 4's columns, UPGRADED because both protocols are in the group.
      const members = await groups(bs, '--describe', '--group', group, '--members', '--verbose');
      assert.equal(members.code, 0, members.err);
      const [blank, head, ...rows] = members.out.split('\n');
      assert.equal(blank, '');
      const header = columns(head!);
      assert.deepEqual(
        header.map((c) => c.text),
        [...MEMBER_COLUMNS, 'UPGRADED'],
      );
      const lines = rows.filter(Boolean).map(columns);
      assert.equal(lines.length, 2);
      for (const line of lines) {
        assert.deepEqual(
          line.map((c) => c.at),
          header.map((c) => c.at),
          'every value under its header',
        );
        const m = d.members.find((x) => x.memberId === line[1]!.text)!;
        const parts = [...m.assignment]
          .sort((a, b) => a.partition - b.partition)
          .map((p) => p.partition)
          .join(',');
        assert.deepEqual(
          line.map((c) => c.text),
          [
            group,
            m.memberId,
            m.clientHost,
            m.clientId,
            '2',
            String(m.memberEpoch),
            `${TOPIC}:${parts}`,
            String(d.targetAssignmentEpoch),
            `${TOPIC}:${parts}`,
            String(m.upgraded),
          ],
        );
      }

      // --state --verbose: the server assignor, the group and target assignment epochs.
      const state = await groups(bs, '--describe', '--group', group, '--state', '--verbose');
      assert.equal(state.code, 0, state.err);
      const [, stateHead, stateRow] = state.out.split('\n');
      assert.deepEqual(
        columns(stateHead!).map((c) => c.text),
        [
          'GROUP',
          'COORDINATOR',
          '(ID)',
          'ASSIGNMENT-STRATEGY',
          'STATE',
          'GROUP-EPOCH',
          'TARGET-ASSIGNMENT-EPOCH',
          '#MEMBERS',
        ],
      );
      assert.deepEqual(
        columns(stateRow!)
          .map((c) => c.text)
          .filter((_, i) => i !== 1 && i !== 2),
        [group, 'uniform', 'Stable', String(d.groupEpoch), String(d.targetAssignmentEpoch), '2'],
      );

      // The offsets view: every partition under the member that holds it.
      const offsets = await groups(bs, '--describe', '--group', group);
      assert.equal(offsets.code, 0, offsets.err);
      const offsetRows = offsets.out
        .split('\n')
        .slice(2)
        .filter(Boolean)
        .map((l) => l.split(/ +/));
      assert.deepEqual(
        offsetRows.map((r) => `${r[1]}-${r[2]}`).sort(),
        [0, 1, 2, 3].map((p) => `${TOPIC}-${p}`),
      );
      for (const r of offsetRows) {
        const holder = d.members.find((m) => m.assignment.some((a) => a.partition === Number(r[2])))!;
        assert.equal(r[6], holder.memberId);
        assert.deepEqual([r[3], r[4], r[5]], ['5', '5', '0']);
      }

      // --verbose adds the committed offsets' LEADER-EPOCH after PARTITION (kafkajs commits none).
      const verbose = await groups(bs, '--describe', '--group', group, '--offsets', '--verbose');
      const [, verboseHead, ...verboseRows] = verbose.out.split('\n');
      assert.deepEqual(
        columns(verboseHead!).map((c) => c.text),
        [
          'GROUP',
          'TOPIC',
          'PARTITION',
          'LEADER-EPOCH',
          'CURRENT-OFFSET',
          'LOG-END-OFFSET',
          'LAG',
          'CONSUMER-ID',
          'HOST',
          'CLIENT-ID',
          'LAG-TIME',
        ],
      );
      assert.deepEqual(
        verboseRows.filter(Boolean).map((r) => r.split(/ +/).slice(3, 6)),
        [0, 1, 2, 3].map(() => ['-', '5', '5']),
      );

      const listed = await groups(bs, '--list', '--type', '--state');
      assert.match(listed.out, new RegExp(`^${group} +Consumer +Stable +$`, 'm'));
      assert.equal((await groups(bs, '--list', '--type', 'classic')).out.includes(group), false);
    } finally {
      await mine.stop();
    }
    // Ours was the last consumer-protocol member: the group is classic again, kafkajs alone.
    const back = await settled(group, 1, 4);
    assert.deepEqual(
      [back.type, back.groupEpoch, back.members[0]!.memberEpoch, back.members[0]!.upgraded],
      ['classic', null, null, null],
    );
    const members = await groups(bs, '--describe', '--group', group, '--members', '--verbose');
    const [, , row] = members.out.split('\n');
    assert.deepEqual(
      columns(row!)
        .map((c) => c.text)
        .slice(4),
      ['4', '-', `${TOPIC}:0,1,2,3`, '-', '-'],
    );
  } finally {
    await classic.disconnect();
  }
});

test('a consumer group of our consumer and a @platformatic/kafka one: no UPGRADED column', {
  timeout: 300_000,
}, async () => {
  const group = 'cp-pure';
  const mine = ours(group, 'cp-pure-ours');
  const theirs = new PlatformaticConsumer({
    clientId: 'cp-pure-platformatic',
    groupId: group,
    groupProtocol: 'consumer',
    bootstrapBrokers: [bs],
    deserializers: stringDeserializers,
    autocommit: true,
    maxWaitTime: 100,
  });
  const stream = await theirs.consume({ topics: [TOPIC], mode: 'committed', fallbackMode: 'earliest' });
  stream.on('data', () => {});
  // Its last fetch may fail once it is closed; an error before that fails the test.
  const errors: unknown[] = [];
  let closing = false;
  stream.on('error', (e) => {
    if (!closing) errors.push(e);
  });
  try {
    const d = await settled(group, 2, 2);
    assert.deepEqual(
      d.members.map((m) => m.upgraded),
      [true, true],
    );
    const members = await groups(bs, '--describe', '--group', group, '--members', '--verbose');
    assert.equal(members.code, 0, members.err);
    const [, head, ...rows] = members.out.split('\n');
    assert.deepEqual(
      columns(head!).map((c) => c.text),
      MEMBER_COLUMNS,
    );
    assert.deepEqual(
      rows
        .filter(Boolean)
        .map((r) => columns(r)[3]!.text)
        .sort(),
      ['cp-pure-ours', 'cp-pure-platformatic'],
    );
    const json = JSON.parse(
      (await groups(bs, '--describe', '--group', group, '--state', '--output', 'json')).out,
    );
    assert.deepEqual(
      [json[0].type, json[0].assignmentStrategy, json[0].state, json[0].members],
      ['consumer', 'uniform', 'Stable', 2],
    );
    assert.equal(json[0].groupEpoch, d.groupEpoch);
    assert.deepEqual(errors, []);
  } finally {
    closing = true;
    await stream.close();
    await theirs.close();
    await mine.stop();
  }
});
