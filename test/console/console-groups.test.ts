// biome-ignore-all lint/performance/useDomNodeTextContent: playwright's Locator.innerText (rendered text, cells apart), not the DOM property
// The console's consumer groups of both protocols, through its JSON API and in a real browser
// (Debian's Chromium through playwright-core): a KIP-848 group of two of our consumers
// (groupProtocol 'consumer') beside a classic group of our consumer and an Empty classic group.
// The list shows each group's type and filters by type and state; a consumer group's page shows
// the group epoch, the assignment epoch, the assignor and per member its epoch and what it owns
// next to its target assignment — held apart by a member whose revocation listener has not
// returned —, and in a group kafkajs made and our consumer upgraded, which member is still
// classic; a classic group's page keeps the classic view. Lag is what it was for both.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { isDeepStrictEqual } from 'node:util';
import type { Browser, Page } from 'playwright-core';
import {
  Admin,
  type Consumer,
  type GroupDescription,
  Producer,
  type TopicPartition,
} from '../../src/client/index.js';
import type { GroupSummary } from '../../src/console/api/groups.js';
import { type ConsoleServer, serveConsole } from '../../src/console/index.js';
import { startTestBroker, type TestBroker } from '../../src/testkit/index.js';
import { kafkajsCommit, produceCounts, until } from '../cli/groups-support.js';
import { consumer } from '../client/consumer/support.js';
import { launchBrowser, openPage, screenshot } from './support.js';

const TOPIC = 'cg-orders'; // 4 partitions of 5 records
const CLASSIC_TOPIC = 'cg-classic-orders'; // 1 partition of 10 records
const KIP848 = 'cg-kip848';
const CLASSIC = 'cg-classic';
const EMPTY = 'cg-empty';

let broker: TestBroker;
let admin: Admin;
let server: ConsoleServer;
let browser: Browser;
const members: Member[] = [];

interface Member {
  c: Consumer;
  /**
   * Stops reading (and committing) once the poll under way and its commit are done; heartbeats
   * go on, so the member stays in its group.
   */
  pause(): Promise<void>;
  stop(): Promise<void>;
}

/** One of our consumers in `group`, committing what each poll returns until paused or stopped. */
function member(
  group: string,
  topic: string,
  clientId: string,
  o: { protocol: 'classic' | 'consumer'; onRevoked?: () => Promise<void> },
): Member {
  const c = consumer(broker, {
    groupId: group,
    groupProtocol: o.protocol,
    clientId,
    enableAutoCommit: false,
  });
  c.subscribe([topic], o.onRevoked ? { onPartitionsRevoked: o.onRevoked } : undefined);
  const run: { state: 'reading' | 'paused' | 'stopped'; onPause: () => void } = {
    state: 'reading',
    onPause: () => {},
  };
  const loop = (async () => {
    while (run.state !== 'stopped') {
      if (run.state === 'paused') {
        run.onPause();
        await new Promise((r) => setTimeout(r, 100));
      } else if ((await c.poll(100)).length > 0) await c.commitSync();
    }
  })();
  let closed: Promise<void> | null = null;
  const m = {
    c,
    pause: () =>
      new Promise<void>((resolve) => {
        run.onPause = resolve;
        run.state = 'paused';
      }),
    stop: () => {
      run.state = 'stopped';
      closed ??= loop.then(() => c.close());
      return closed;
    },
  };
  members.push(m);
  return m;
}

async function described(group: string): Promise<GroupDescription> {
  return (await admin.describeGroups([group]))[0]!;
}

/** Waits until `read()` deep-equals `want`; on timeout the assertion shows the last value against it. */
async function becomes<T>(read: () => Promise<T>, want: T, ms: number, what: string): Promise<void> {
  let last: T | undefined;
  const matches = async () => {
    last = await read();
    return isDeepStrictEqual(last, want);
  };
  const timedOut = await until(matches, ms, what).then(
    () => null,
    (e: Error) => e,
  );
  assert.deepEqual(last, want, timedOut?.message);
}

/** Stable with `count` members holding `each` partitions apiece. */
async function settled(group: string, count: number, each: number): Promise<GroupDescription> {
  const shape = (d: GroupDescription) => ({
    state: d.state,
    owned: d.members.map((m) => m.assignment.length),
  });
  await becomes(
    async () => shape(await described(group)),
    { state: 'Stable', owned: Array<number>(count).fill(each) },
    90_000,
    `${group} settled`,
  );
  return described(group);
}

async function committedTotal(group: string): Promise<number> {
  return (await admin.listConsumerGroupOffsets(group)).reduce((s, c) => s + Number(c.offset), 0);
}

async function getJson<T>(path: string): Promise<T> {
  const r = await fetch(`${server.url}api/${path}`);
  assert.equal(r.status, 200, await r.clone().text());
  return (await r.json()) as T;
}

interface Detail {
  type: string;
  state: string;
  protocol: string;
  groupEpoch: number | null;
  assignmentEpoch: number | null;
  members: {
    memberId: string;
    clientId: string;
    host: string;
    memberEpoch: number | null;
    assignment: TopicPartition[];
    targetAssignment: TopicPartition[] | null;
    upgraded: boolean | null;
  }[];
  offsets: { topic: string; partition: number; committed: number; lag: number; memberId: string | null }[];
  totalLag: number;
}

const sorted = (tps: readonly TopicPartition[]): TopicPartition[] =>
  tps
    .map((tp) => ({ topic: tp.topic, partition: tp.partition }))
    .sort((a, b) => a.topic.localeCompare(b.topic) || a.partition - b.partition);

/** The partition list as the members table prints it. */
const listed = (tps: readonly TopicPartition[]): string =>
  sorted(tps)
    .map((tp) => `${tp.topic}-${tp.partition}`)
    .join(', ') || '–';

before(async () => {
  // First: a missing Chromium fails the file at once, with the command that installs it.
  browser = await launchBrowser();
  broker = await startTestBroker({
    overrides: {
      'offsets.topic.num.partitions': 1,
      'group.initial.rebalance.delay.ms': 0,
      'group.consumer.heartbeat.interval.ms': 200,
    },
  });
  admin = new Admin({ bootstrapServers: broker.bootstrap });
  await produceCounts(broker.bootstrap, TOPIC, [5, 5, 5, 5]);
  await produceCounts(broker.bootstrap, CLASSIC_TOPIC, [10]);
  server = await serveConsole({ client: { bootstrapServers: broker.bootstrap }, refreshMs: 500, port: 0 });

  // Two consumer-protocol members share the 4 partitions and read all 20 records; a classic
  // member reads its topic's 10; an offset commit alone makes a classic group with no member.
  const a = member(KIP848, TOPIC, 'kip848-a', { protocol: 'consumer' });
  const b = member(KIP848, TOPIC, 'kip848-b', { protocol: 'consumer' });
  const classic = member(CLASSIC, CLASSIC_TOPIC, 'classic-a', { protocol: 'classic' });
  await admin.alterConsumerGroupOffsets(EMPTY, [{ topic: TOPIC, partition: 0, offset: 1n }]);
  await settled(KIP848, 2, 2);
  await settled(CLASSIC, 1, 1);
  await until(
    async () => (await committedTotal(KIP848)) === 20,
    60_000,
    `${KIP848} committing all 20 records`,
  );
  await until(
    async () => (await committedTotal(CLASSIC)) === 10,
    60_000,
    `${CLASSIC} committing its 10 records`,
  );
  // Then 3 more records on partitions 0 and 1 that nobody reads: the consumer group lags by 6.
  await Promise.all([a, b, classic].map((m) => m.pause()));
  const p = new Producer({ bootstrapServers: broker.bootstrap });
  try {
    for (const partition of [0, 1])
      for (let i = 0; i < 3; i++) await p.send({ topic: TOPIC, partition, value: 'late' });
  } finally {
    await p.close();
  }
});

after(async () => {
  for (const m of members) await m.stop().catch(() => {});
  await browser?.close();
  await server?.close();
  await admin?.close();
  await broker?.close();
});

test('GET /api/groups: each group with its type, state, members and lag', async () => {
  const want: GroupSummary[] = [
    { groupId: CLASSIC, type: 'classic', state: 'Stable', protocolType: 'consumer', members: 1, lag: 0 },
    // Partition 0 now ends at 8, the group committed 1; no member ever named a protocol type.
    { groupId: EMPTY, type: 'classic', state: 'Empty', protocolType: '', members: 0, lag: 7 },
    { groupId: KIP848, type: 'consumer', state: 'Stable', protocolType: 'consumer', members: 2, lag: 6 },
  ];
  // The high watermarks come from the console's cache (at most 5 s old): wait for the new ones.
  await becomes(() => getJson<GroupSummary[]>('groups'), want, 30_000, 'the group summaries');
});

test('GET /api/groups/ID: a consumer group with its epochs, assignor, members and target assignments', async () => {
  const d = await described(KIP848);
  const g = await getJson<Detail>(`groups/${KIP848}`);
  assert.equal(g.type, 'consumer');
  assert.equal(g.state, 'Stable');
  assert.equal(g.protocol, d.protocol);
  assert.ok(g.protocol !== '', 'the assignor is named');
  assert.equal(g.groupEpoch, d.groupEpoch);
  assert.ok(g.groupEpoch !== null && g.groupEpoch >= 2, `group epoch ${g.groupEpoch}: two joins`);
  assert.equal(g.assignmentEpoch, g.groupEpoch, 'the target is computed for the latest group epoch');
  assert.deepEqual(g.members.map((m) => m.clientId).sort(), ['kip848-a', 'kip848-b']);
  for (const m of g.members) {
    const want = d.members.find((x) => x.memberId === m.memberId)!;
    assert.ok(want, `member ${m.memberId} is one the coordinator describes`);
    assert.equal(m.host, want.clientHost);
    assert.equal(m.memberEpoch, g.assignmentEpoch, 'a reconciled member is at the target epoch');
    assert.equal(m.upgraded, true);
    assert.deepEqual(m.assignment, sorted(want.assignment));
    assert.equal(m.assignment.length, 2);
    assert.deepEqual(m.targetAssignment, m.assignment);
  }
  // Lag per partition as for any group: 3 unread records on partitions 0 and 1, each owned by
  // the member the coordinator assigned it to.
  assert.deepEqual(
    g.offsets.map((o) => [o.partition, o.committed, o.lag]),
    [
      [0, 5, 3],
      [1, 5, 3],
      [2, 5, 0],
      [3, 5, 0],
    ],
  );
  for (const o of g.offsets) {
    const owner = g.members.find((m) => m.assignment.some((tp) => tp.partition === o.partition));
    assert.equal(o.memberId, owner?.memberId);
  }
  assert.equal(g.totalLag, 6);
});

test('GET /api/groups/ID: a classic group has no epochs and no target assignment', async () => {
  const d = await described(CLASSIC);
  const g = await getJson<Detail>(`groups/${CLASSIC}`);
  assert.equal(g.type, 'classic');
  assert.equal(g.protocol, d.protocol);
  assert.equal(g.groupEpoch, null);
  assert.equal(g.assignmentEpoch, null);
  assert.equal(g.members.length, 1);
  assert.deepEqual(g.members[0], {
    memberId: d.members[0]!.memberId,
    groupInstanceId: null,
    clientId: 'classic-a',
    host: d.members[0]!.clientHost,
    assignment: [{ topic: CLASSIC_TOPIC, partition: 0 }],
    memberEpoch: null,
    targetAssignment: null,
    upgraded: null,
  });
  assert.equal(g.totalLag, 0);
  assert.equal((await fetch(`${server.url}api/groups/cg-no-such-group`)).status, 404);
  // A group id that is no percent-encoding is refused; the console goes on answering.
  assert.equal((await fetch(`${server.url}api/groups/%E0%A4%A`)).status, 400);
  assert.equal((await getJson<Detail>(`groups/${CLASSIC}`)).type, 'classic');
});

async function newPage(): Promise<{ page: Page; errors: string[]; close: () => Promise<void> }> {
  const context = await browser.newContext({ timezoneId: 'UTC', viewport: { width: 1280, height: 900 } });
  const { page, errors } = await openPage(context);
  return { page, errors, close: () => context.close() };
}

/** A consumer group's members table header; Protocol only while classic members remain. */
const consumerMemberColumns = (d: GroupDescription, mixed: boolean): string[] => [
  'Member id',
  'Client id',
  'Host',
  ...(mixed ? ['Protocol'] : []),
  'Epoch',
  'Assigned',
  `Target (epoch ${d.targetAssignmentEpoch})`,
];

/** The group ids of the list's rows, in order. */
async function shownGroups(page: Page): Promise<string[]> {
  return page
    .locator('tbody tr[data-group]')
    .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-group')!));
}

function waitForRows(page: Page, want: string[]): Promise<void> {
  return becomes(() => shownGroups(page), want, 20_000, 'the rows of the list');
}

test('the groups list shows the type and filters by type and state', async () => {
  const { page, errors, close } = await newPage();
  await page.goto(`${server.url}#/groups`);
  await page.getByTestId(`lag-${KIP848}`).filter({ hasText: /^6$/ }).waitFor();
  await waitForRows(page, [CLASSIC, EMPTY, KIP848]);
  const row = (id: string) => page.locator(`tr[data-group="${id}"]`);
  assert.equal(await row(KIP848).locator('td.type').innerText(), 'consumer');
  assert.equal(await row(CLASSIC).locator('td.type').innerText(), 'classic');
  assert.equal(await row(EMPTY).locator('td.type').innerText(), 'classic');
  assert.match(await row(KIP848).innerText(), /consumer\s+Stable\s+consumer\s+2\s+6/);
  assert.match(await row(EMPTY).innerText(), /classic\s+Empty\s+–\s+0\s+7/);
  await screenshot(page, 'groups');

  const type = page.getByLabel('Type');
  const state = page.getByLabel('State');
  await type.selectOption('consumer');
  await waitForRows(page, [KIP848]);
  assert.equal(await page.getByTestId('group-count').innerText(), '1 of 3 groups');
  await type.selectOption('classic');
  await waitForRows(page, [CLASSIC, EMPTY]);
  await state.selectOption('Empty');
  await waitForRows(page, [EMPTY]);
  await type.selectOption('consumer');
  await waitForRows(page, []);
  assert.equal(await page.getByTestId('group-count').innerText(), '0 of 3 groups');
  await state.selectOption('Stable');
  await waitForRows(page, [KIP848]);
  await type.selectOption('');
  await waitForRows(page, [CLASSIC, KIP848]);
  // The filters hold while live samples replace the rows.
  await page.waitForTimeout(1500);
  assert.deepEqual(await shownGroups(page), [CLASSIC, KIP848]);
  await state.selectOption('');
  await waitForRows(page, [CLASSIC, EMPTY, KIP848]);
  assert.deepEqual(errors, []);
  await close();
});

test('a consumer group page: group and assignment epochs, assignor, members with epochs and targets; a classic page as before', async () => {
  const d = await described(KIP848);
  const { page, errors, close } = await newPage();
  await page.goto(`${server.url}#/groups/${KIP848}`);
  await page.getByTestId('total-lag').filter({ hasText: /^6$/ }).waitFor();
  assert.equal(await page.getByTestId('group-type').innerText(), 'consumer');
  assert.equal(await page.getByTestId('group-state').innerText(), 'Stable');
  assert.equal(await page.getByTestId('group-epoch').innerText(), String(d.groupEpoch));
  assert.equal(await page.getByTestId('assignment-epoch').innerText(), String(d.targetAssignmentEpoch));
  assert.equal(await page.getByTestId('assignor').innerText(), d.protocol);
  const table = page.getByTestId('group-members');
  assert.deepEqual(await table.locator('thead th').allInnerTexts(), consumerMemberColumns(d, false));
  for (const m of d.members) {
    const row = table.locator(`tr[data-member="${m.memberId}"]`);
    assert.equal(await row.locator('td.epoch').innerText(), String(m.memberEpoch));
    assert.equal(await row.locator('td.assigned').innerText(), listed(m.assignment));
    assert.equal(await row.locator('td.target').innerText(), listed(m.targetAssignment!));
    assert.match(await row.innerText(), new RegExp(`${m.clientId}\\s+${m.clientHost}`));
  }
  assert.equal(await table.locator('.pending').count(), 0, 'nothing is moving');
  // Lag as for every group: per partition, with the member that owns it.
  const p0 = page.locator(`tr[data-tp="${TOPIC}-0"]`);
  const owner = d.members.find((m) => m.assignment.some((tp) => tp.partition === 0))!;
  assert.match(await p0.innerText(), new RegExp(`\\b5\\s+8\\s+3\\b[\\s\\S]*${owner.clientId}`));
  await screenshot(page, 'group');

  // The classic group: its protocol and assignor, members without epochs or targets.
  await page.goto(`${server.url}#/groups/${CLASSIC}`);
  await page.getByTestId('group-type').filter({ hasText: 'classic' }).waitFor();
  assert.equal(await page.getByTestId('group-epoch').count(), 0);
  assert.match(
    await page.locator('.stats').innerText(),
    new RegExp(`Protocol\\s+consumer \\(${(await described(CLASSIC)).protocol}\\)`),
  );
  assert.deepEqual(await page.getByTestId('group-members').locator('thead th').allInnerTexts(), [
    'Client id',
    'Host',
    'Member id',
    'Assignment',
  ]);
  assert.match(
    await page.getByTestId('group-members').innerText(),
    new RegExp(`classic-a[\\s\\S]*${CLASSIC_TOPIC}-0`),
  );
  assert.deepEqual(errors, []);
  await close();
});

test('a member that has not yet released its partitions: the page shows assigned and target apart, Reconciling', async () => {
  const group = 'cg-moving';
  let release!: () => void;
  const released = new Promise<void>((r) => {
    release = r;
  });
  let revoking = false;
  // The first member's revocation listener waits: it keeps what moves to the second until then.
  const first = member(group, TOPIC, 'moving-a', {
    protocol: 'consumer',
    onRevoked: async () => {
      revoking = true;
      await released;
    },
  });
  await settled(group, 1, 4);
  const second = member(group, TOPIC, 'moving-b', { protocol: 'consumer' });
  let d: GroupDescription | undefined;
  await until(
    async () => {
      d = await described(group);
      return revoking && d.state === 'Reconciling' && d.members.length === 2;
    },
    60_000,
    `${group} Reconciling while moving-a revokes (last: ${d?.state}, revoking: ${revoking})`,
  );
  d = await described(group);
  const moving = d.members.filter((m) => listed(m.assignment) !== listed(m.targetAssignment!));
  assert.ok(
    moving.length > 0,
    `some member's assignment differs from its target: ${JSON.stringify(d.members)}`,
  );

  const { page, errors, close } = await newPage();
  await page.goto(`${server.url}#/groups`);
  await page.getByLabel('State').selectOption('Reconciling');
  await waitForRows(page, [group]);
  await page.getByRole('link', { name: group }).click();
  await page.getByTestId('group-state').filter({ hasText: 'Reconciling' }).waitFor();
  const table = page.getByTestId('group-members');
  for (const m of d.members) {
    const row = table.locator(`tr[data-member="${m.memberId}"]`);
    const owned = new Set(m.assignment.map((tp) => `${tp.topic}-${tp.partition}`));
    const target = new Set(m.targetAssignment!.map((tp) => `${tp.topic}-${tp.partition}`));
    const adding = [...target].filter((p) => !owned.has(p)).sort();
    const revoked = [...owned].filter((p) => !target.has(p)).sort();
    assert.equal(await row.locator('td.assigned').innerText(), listed(m.assignment));
    assert.equal(await row.locator('td.epoch').innerText(), String(m.memberEpoch));
    const cell = await row.locator('td.target').innerText();
    assert.equal(
      cell,
      [
        listed(m.targetAssignment!),
        ...(adding.length > 0 ? [`+${adding.join(', +')}`] : []),
        ...(revoked.length > 0 ? [`−${revoked.join(', −')}`] : []),
      ].join(' '),
      `member ${m.clientId}'s target cell`,
    );
  }
  assert.ok((await table.locator('.pending').count()) > 0, 'the difference is marked');

  // Once the listener returns, the group settles and the page shows nothing pending.
  release();
  await settled(group, 2, 2);
  await page.getByRole('button', { name: 'Refresh' }).click();
  await page.getByTestId('group-state').filter({ hasText: 'Stable' }).waitFor();
  await until(
    async () => (await table.locator('.pending').count()) === 0,
    20_000,
    'no pending partition shown',
  );
  assert.deepEqual(errors, []);
  await close();
  await second.stop();
  await first.stop();
});

test('a group being migrated: which members still speak the classic protocol', async () => {
  const group = 'cg-mixed';
  // kafkajs (classic protocol) makes the group; our consumer-protocol member turns it into a
  // consumer group that keeps the kafkajs member until it leaves.
  const classic = await kafkajsCommit(
    broker.bootstrap,
    group,
    TOPIC,
    { 0: 8, 1: 8, 2: 5, 3: 5 },
    { stay: true },
  );
  try {
    const ours = member(group, TOPIC, 'mixed-ours', { protocol: 'consumer' });
    const d = await settled(group, 2, 2);
    assert.equal(d.type, 'consumer');
    const { page, errors, close } = await newPage();
    await page.goto(`${server.url}#/groups/${group}`);
    await page.getByTestId('group-type').filter({ hasText: 'consumer' }).waitFor();
    const table = page.getByTestId('group-members');
    assert.deepEqual(await table.locator('thead th').allInnerTexts(), consumerMemberColumns(d, true));
    for (const m of d.members) {
      const row = table.locator(`tr[data-member="${m.memberId}"]`);
      assert.equal(
        await row.locator('td.protocol').innerText(),
        m.clientId === 'mixed-ours' ? 'consumer' : 'classic',
      );
      assert.equal(await row.locator('td.epoch').innerText(), String(m.memberEpoch));
      assert.equal(await row.locator('td.assigned').innerText(), listed(m.assignment));
    }
    assert.deepEqual(errors, []);
    await close();
    await ours.stop();
  } finally {
    await classic.disconnect();
  }
});
