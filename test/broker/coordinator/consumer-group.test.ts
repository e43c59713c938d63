// KIP-848 consumer groups on the group coordinator: heartbeat validation and fencing, the
// epochs, incremental reconciliation (revoke before assign), static members, session and
// rebalance timeouts, replay after a restart, the server assignors, and a property test that
// no partition is ever owned by two members.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { rangeAssignor } from '../../../src/broker/coordinator/group/assignors/range.js';
import { uniformAssignor } from '../../../src/broker/coordinator/group/assignors/uniform.js';
import type { Assignment } from '../../../src/broker/coordinator/group/consumer-group-member.js';
import { compileTopicRegex } from '../../../src/broker/coordinator/group/consumer-group-regex.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { consumerHarness, FakeCatalog, fakeTopicId, SimMember } from './consumer-group-harness.js';

const T = fakeTopicId('t');
const count = (a: ReadonlyArray<{ partitions: number[] }> | null) =>
  (a ?? []).reduce((n, t) => n + t.partitions.length, 0);

test('a first member gets every partition at epoch 1; the heartbeat answers the interval', async () => {
  const h = await consumerHarness(new FakeCatalog().add('t', 4));
  const r = await h.join('g', 'm1', ['t']);
  assert.equal(r.errorCode, 0);
  assert.equal(r.memberId, 'm1');
  assert.equal(r.memberEpoch, 1);
  assert.equal(r.heartbeatIntervalMs, 5000);
  assert.deepEqual(r.assignment, [{ topicId: T, partitions: [0, 1, 2, 3] }]);
  // A heartbeat with nothing changed: no assignment in the answer.
  const again = await h.hb({ groupId: 'g', memberId: 'm1', memberEpoch: 1 });
  assert.equal(again.errorCode, 0);
  assert.equal(again.memberEpoch, 1);
  assert.equal(again.assignment, null);
});

test('malformed first heartbeats and bad epochs answer Kafka errors', async () => {
  const h = await consumerHarness(new FakeCatalog().add('t', 2));
  const bad = async (req: Parameters<typeof h.hb>[0], code: number, v = 1) => {
    const r = await h.hb(req, v);
    assert.equal(r.errorCode, code, JSON.stringify(req));
  };
  await bad(
    {
      groupId: 'g',
      memberId: '',
      memberEpoch: 0,
      rebalanceTimeoutMs: 1,
      subscribedTopicNames: ['t'],
      topicPartitions: [],
    },
    ErrorCode.INVALID_REQUEST,
  );
  await bad(
    { groupId: 'g', memberId: 'm', memberEpoch: 0, subscribedTopicNames: ['t'], topicPartitions: [] },
    ErrorCode.INVALID_REQUEST,
  );
  await bad(
    { groupId: 'g', memberId: 'm', memberEpoch: 0, rebalanceTimeoutMs: 1, subscribedTopicNames: ['t'] },
    ErrorCode.INVALID_REQUEST,
  );
  await bad(
    { groupId: 'g', memberId: 'm', memberEpoch: 0, rebalanceTimeoutMs: 1, topicPartitions: [] },
    ErrorCode.INVALID_REQUEST,
  );
  await bad({ groupId: ' ', memberId: 'm', memberEpoch: 1 }, ErrorCode.INVALID_REQUEST);
  await bad({ groupId: 'g', memberId: 'm', memberEpoch: -3 }, ErrorCode.INVALID_REQUEST);
  await bad({ groupId: 'g', memberId: 'm', memberEpoch: -2 }, ErrorCode.INVALID_REQUEST);
  await bad(
    {
      groupId: 'g',
      memberId: 'm',
      memberEpoch: 0,
      rebalanceTimeoutMs: 1,
      subscribedTopicNames: ['t'],
      topicPartitions: [],
      serverAssignor: 'sticky',
    },
    ErrorCode.UNSUPPORTED_ASSIGNOR,
  );
  await bad(
    {
      groupId: 'g',
      memberId: 'm',
      memberEpoch: 0,
      rebalanceTimeoutMs: 1,
      subscribedTopicRegex: '(a+)+',
      topicPartitions: [],
    },
    ErrorCode.INVALID_REGULAR_EXPRESSION,
  );
  await bad(
    {
      groupId: 'g',
      memberId: 'm',
      memberEpoch: 0,
      rebalanceTimeoutMs: 1,
      subscribedTopicRegex: 'x'.repeat(5000),
      topicPartitions: [],
    },
    ErrorCode.INVALID_REGULAR_EXPRESSION,
  );
  // v0: the coordinator may choose the member id.
  const v0 = await h.hb(
    {
      groupId: 'g0',
      memberId: '',
      memberEpoch: 0,
      rebalanceTimeoutMs: 1,
      subscribedTopicNames: ['t'],
      topicPartitions: [],
    },
    0,
  );
  assert.equal(v0.errorCode, 0);
  assert.ok(v0.memberId !== null && v0.memberId.length > 0);
  // Unknown group / member, wrong epochs.
  await bad({ groupId: 'nope', memberId: 'm', memberEpoch: 3 }, ErrorCode.GROUP_ID_NOT_FOUND);
  assert.equal((await h.join('g', 'm1', ['t'])).memberEpoch, 1);
  await bad({ groupId: 'g', memberId: 'ghost', memberEpoch: 1 }, ErrorCode.UNKNOWN_MEMBER_ID);
  await bad({ groupId: 'g', memberId: 'm1', memberEpoch: 7 }, ErrorCode.FENCED_MEMBER_EPOCH);
  await bad({ groupId: 'g', memberId: 'ghost', memberEpoch: -1 }, ErrorCode.UNKNOWN_MEMBER_ID);
});

test('group.consumer.max.size: GROUP_MAX_SIZE_REACHED for a new member only', async () => {
  const h = await consumerHarness(new FakeCatalog().add('t', 2), { consumerMaxSize: 1 });
  assert.equal((await h.join('g', 'm1', ['t'])).errorCode, 0);
  assert.equal((await h.join('g', 'm2', ['t'])).errorCode, ErrorCode.GROUP_MAX_SIZE_REACHED);
  assert.equal((await h.hb({ groupId: 'g', memberId: 'm1', memberEpoch: 1 })).errorCode, 0);
});

test('revoke before assign: the new member waits until the old owner acknowledges', async () => {
  const h = await consumerHarness(new FakeCatalog().add('t', 4));
  const a = new SimMember(h, 'g', 'a', ['t']);
  const b = new SimMember(h, 'g', 'b', ['t']);
  await a.heartbeat();
  assert.equal(count(a.owned), 4);
  // b joins: epoch 2, but its partitions are still a's, so it gets nothing yet.
  const rb = await b.heartbeat();
  assert.equal(rb.memberEpoch, 2);
  assert.equal(count(b.owned), 0);
  const shard = await h.shard('g');
  assert.equal(shard.consumer.groups.get('g')?.state, 'Reconciling');
  // a is asked to revoke two partitions, staying at epoch 1.
  const ra = await a.heartbeat();
  assert.equal(ra.memberEpoch, 1);
  assert.equal(count(a.owned), 2);
  // a acknowledges (no longer lists them): it moves to epoch 2.
  assert.equal((await a.heartbeat()).memberEpoch, 2);
  // Now b gets them.
  await b.heartbeat();
  assert.equal(count(b.owned), 2);
  const all = [...a.owned, ...b.owned].flatMap((t) => t.partitions).sort();
  assert.deepEqual(all, [0, 1, 2, 3]);
  assert.equal(shard.consumer.groups.get('g')?.state, 'Stable');
});

test('a member that leaves hands its partitions to the others; a silent one is fenced after the session timeout', async () => {
  const h = await consumerHarness(new FakeCatalog().add('t', 4));
  const a = new SimMember(h, 'g', 'a', ['t']);
  const b = new SimMember(h, 'g', 'b', ['t']);
  const c = new SimMember(h, 'g', 'c', ['t']);
  for (let i = 0; i < 4; i++) for (const m of [a, b, c]) await m.heartbeat();
  assert.equal(count(a.owned) + count(b.owned) + count(c.owned), 4);
  const left = await b.leave();
  assert.equal(left.errorCode, 0);
  assert.equal(left.memberEpoch, -1);
  for (let i = 0; i < 3; i++) for (const m of [a, c]) await m.heartbeat();
  assert.equal(count(a.owned) + count(c.owned), 4);
  // c stops heartbeating: after 45 s it is removed and a gets everything.
  await h.advance(30_000);
  await a.heartbeat();
  await h.advance(20_000);
  for (let i = 0; i < 2; i++) await a.heartbeat();
  assert.equal(count(a.owned), 4);
  const r = await c.heartbeat();
  assert.equal(r.errorCode, ErrorCode.UNKNOWN_MEMBER_ID);
});

test('a member that does not revoke within its rebalance timeout is fenced', async () => {
  const h = await consumerHarness(new FakeCatalog().add('t', 2));
  const a = new SimMember(h, 'g', 'a', ['t']);
  await a.heartbeat();
  await h.join('g', 'b', ['t'], { rebalanceTimeoutMs: 30_000 });
  // a is asked to revoke (rebalance timeout 30 s) and never answers; b keeps heartbeating.
  await h.hb({ groupId: 'g', memberId: 'a', memberEpoch: 1, topicPartitions: a.owned });
  await h.advance(31_000);
  const shard = await h.shard('g');
  assert.equal(shard.consumer.groups.get('g')?.members.has('a'), false);
});

test('static members: -2 keeps the partitions, the same instance rejoins, another one is UNRELEASED_INSTANCE_ID', async () => {
  const h = await consumerHarness(new FakeCatalog().add('t', 3));
  const r1 = await h.join('g', 'm1', ['t'], { instanceId: 'i1' });
  assert.equal(r1.memberEpoch, 1);
  assert.equal(
    (await h.join('g', 'm2', ['t'], { instanceId: 'i1' })).errorCode,
    ErrorCode.UNRELEASED_INSTANCE_ID,
  );
  const leave = await h.hb({ groupId: 'g', memberId: 'm1', memberEpoch: -2, instanceId: 'i1' });
  assert.equal(leave.errorCode, 0);
  assert.equal(leave.memberEpoch, -2);
  const back = await h.join('g', 'm3', ['t'], { instanceId: 'i1' });
  assert.equal(back.errorCode, 0);
  assert.equal(count(back.assignment), 3);
  assert.equal(
    (await h.hb({ groupId: 'g', memberId: 'm1', memberEpoch: 1, instanceId: 'i1' })).errorCode,
    ErrorCode.FENCED_INSTANCE_ID,
  );
});

test('regex subscriptions match whole topic names and pick up new topics', async () => {
  const catalog = new FakeCatalog().add('orders-eu', 2).add('orders-us', 1).add('payments', 2);
  const h = await consumerHarness(catalog);
  const r = await h.join('g', 'm', [], { subscribedTopicNames: null, subscribedTopicRegex: 'orders-.*' });
  assert.equal(r.errorCode, 0);
  assert.equal(count(r.assignment), 3);
  catalog.add('orders-asia', 2);
  const r2 = await h.hb({
    groupId: 'g',
    memberId: 'm',
    memberEpoch: r.memberEpoch,
    rebalanceTimeoutMs: 1000,
    subscribedTopicNames: [],
    topicPartitions: r.assignment,
  });
  assert.equal(count(r2.assignment), 5);
  assert.ok(r2.memberEpoch > r.memberEpoch);
  assert.equal(compileTopicRegex('orders').ok, true);
  const c = compileTopicRegex('(?i)ORDERS-\\d+');
  assert.ok(c.ok && c.test('orders-1') && !c.test('xorders-1'));
  assert.equal(compileTopicRegex('(?=x)').ok, false);
  assert.equal(compileTopicRegex('(a)\\1').ok, false);
});

test('the group survives a coordinator restart: epochs, members and assignments come back from the log', async () => {
  const h = await consumerHarness(new FakeCatalog().add('t', 4).add('u', 2));
  const a = new SimMember(h, 'g', 'a', ['t', 'u']);
  const b = new SimMember(h, 'g', 'b', ['t']);
  for (let i = 0; i < 4; i++) for (const m of [a, b]) await m.heartbeat();
  const before = (await h.shard('g')).consumer.groups.get('g')!;
  const snapshot = JSON.stringify({
    epoch: before.groupEpoch,
    target: before.assignmentEpoch,
    members: [...before.members.values()].map((m) => [
      m.memberId,
      m.memberEpoch,
      m.state,
      [...m.assignedPartitions].map(([t, p]) => [t, [...p]]),
    ]),
  });
  await h.restart();
  const after = (await h.shard('g')).consumer.groups.get('g')!;
  assert.equal(
    JSON.stringify({
      epoch: after.groupEpoch,
      target: after.assignmentEpoch,
      members: [...after.members.values()].map((m) => [
        m.memberId,
        m.memberEpoch,
        m.state,
        [...m.assignedPartitions].map(([t, p]) => [t, [...p]]),
      ]),
    }),
    snapshot,
  );
  // The members continue with the epochs they had.
  assert.equal((await a.heartbeat()).errorCode, 0);
  assert.equal((await b.heartbeat()).errorCode, 0);
});

test('offset commits of a consumer group are fenced by member epoch', async () => {
  const h = await consumerHarness(new FakeCatalog().add('t', 1));
  const r = await h.join('g', 'm', ['t']);
  const commit = (memberId: string, epoch: number, apiVersion = 9) =>
    h.gc.commitOffsets({
      groupId: 'g',
      generationId: epoch,
      memberId,
      groupInstanceId: null,
      retentionTimeMs: -1,
      apiVersion,
      topics: [{ name: 't', partitions: [{ partition: 0, offset: 5n, leaderEpoch: -1, metadata: null }] }],
    });
  const code = async (p: ReturnType<typeof commit>) => (await p)[0]!.partitions[0]!.errorCode;
  assert.equal(await code(commit('m', r.memberEpoch)), 0);
  assert.equal(await code(commit('m', r.memberEpoch + 1)), ErrorCode.STALE_MEMBER_EPOCH);
  assert.equal(await code(commit('x', r.memberEpoch)), ErrorCode.UNKNOWN_MEMBER_ID);
  assert.equal(await code(commit('m', r.memberEpoch, 8)), ErrorCode.UNSUPPORTED_VERSION);
  assert.equal(await code(commit('', -1)), ErrorCode.UNKNOWN_MEMBER_ID);
  const f = await h.gc.fetchOffsets('g', [{ name: 't', partitions: [0] }], false, {
    memberId: 'm',
    memberEpoch: 99,
  });
  assert.equal(f.errorCode, ErrorCode.STALE_MEMBER_EPOCH);
  const ok = await h.gc.fetchOffsets('g', [{ name: 't', partitions: [0] }], false, {
    memberId: 'm',
    memberEpoch: r.memberEpoch,
  });
  assert.equal(ok.topics[0]?.partitions[0]?.offset, 5n);
});

test('a consumer group takes no JoinGroup of another protocol type; ListGroups and ConsumerGroupDescribe report consumer groups', async () => {
  const h = await consumerHarness(new FakeCatalog().add('t', 1));
  await h.join('cg', 'm', ['t']);
  const j = await h.gc.joinGroup(
    { clientId: 'c', clientHost: '/h', apiVersion: 5 },
    {
      groupId: 'cg',
      sessionTimeoutMs: 10_000,
      rebalanceTimeoutMs: 10_000,
      memberId: '',
      groupInstanceId: null,
      protocolType: 'connect',
      protocols: [{ name: 'default', metadata: Buffer.alloc(0) }],
    },
  );
  // (Classic consumers may join it: group-migration.test.ts.)
  assert.equal(j.errorCode, ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
  const listed = await h.gc.listGroups([], ['consumer']);
  assert.deepEqual(
    listed.groups.map((g) => [g.groupId, g.groupType, g.state]),
    [['cg', 'consumer', 'Stable']],
  );
  const [d, missing] = await h.gc.consumerGroupDescribe(['cg', 'none']);
  assert.equal(d?.errorCode, 0);
  assert.equal(d?.groupState, 'Stable');
  assert.equal(d?.assignorName, 'uniform');
  assert.deepEqual(d?.members[0]?.assignment, [
    { topicId: fakeTopicId('t'), topicName: 't', partitions: [0] },
  ]);
  assert.equal(missing?.errorCode, ErrorCode.GROUP_ID_NOT_FOUND);
  const [classicView] = await h.gc.describeGroups(['cg']);
  assert.equal(classicView?.state, 'Dead');
  // An empty consumer group can be deleted.
  await h.hb({ groupId: 'cg', memberId: 'm', memberEpoch: -1 });
  assert.deepEqual(await h.gc.deleteGroups(['cg']), [{ groupId: 'cg', errorCode: 0 }]);
  assert.equal((await h.gc.listGroups([], [])).groups.length, 0);
});

// ---- assignors ----

function spec(
  members: Record<string, string[]>,
  topics: Record<string, number>,
  current: Record<string, Assignment> = {},
) {
  return {
    members: new Map(
      Object.entries(members).map(([m, ts]) => [
        m,
        { subscribedTopicIds: new Set(ts), assignment: current[m] ?? new Map() },
      ]),
    ),
    topics: new Map(Object.entries(topics).map(([t, n]) => [t, { name: t, numPartitions: n }])),
  };
}
const sizes = (r: Map<string, Assignment>) =>
  [...r.values()].map((a) => [...a.values()].reduce((n, s) => n + s.size, 0));

test('uniform: balanced within one, sticky, only subscribed topics', () => {
  const r = uniformAssignor.assign(spec({ a: ['x'], b: ['x'], c: ['x'] }, { x: 7 }));
  assert.deepEqual(sizes(r).sort(), [2, 2, 3]);
  // A fourth member takes partitions without moving the others' remaining ones.
  const r2 = uniformAssignor.assign(
    spec({ a: ['x'], b: ['x'], c: ['x'], d: ['x'] }, { x: 7 }, Object.fromEntries(r)),
  );
  assert.deepEqual(sizes(r2).sort(), [1, 2, 2, 2]);
  for (const m of ['a', 'b', 'c'])
    for (const p of r2.get(m)!.get('x') ?? []) assert.ok(r.get(m)!.get('x')!.has(p));
  const het = uniformAssignor.assign(spec({ a: ['x'], b: ['x', 'y'] }, { x: 2, y: 2 }));
  assert.equal(het.get('a')!.has('y'), false);
  assert.equal(
    sizes(het).reduce((s, n) => s + n, 0),
    4,
  );
});

test('range: contiguous ranges per topic, the first members one extra', () => {
  const r = rangeAssignor.assign(spec({ a: ['x', 'y'], b: ['x', 'y'] }, { x: 3, y: 3 }));
  assert.deepEqual([...r.get('a')!.get('x')!], [0, 1]);
  assert.deepEqual([...r.get('b')!.get('x')!], [2]);
  assert.deepEqual([...r.get('a')!.get('y')!], [0, 1]);
});

// ---- the reconciliation invariant ----

test('property: random joins, leaves and subscription changes never give a partition to two members', async () => {
  let seed = 42;
  const rand = (n: number) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  for (let round = 0; round < 6; round++) {
    const catalog = new FakeCatalog().add('t', 6).add('u', 3);
    const h = await consumerHarness(catalog);
    const members: SimMember[] = [];
    let next = 0;
    const check = async () => {
      // Client side: what members believe they own.
      const seen = new Set<string>();
      for (const m of members)
        for (const t of m.owned)
          for (const p of t.partitions) {
            const k = `${t.topicId}:${p}`;
            assert.ok(!seen.has(k), `round ${round}: ${k} owned twice`);
            seen.add(k);
          }
      // Coordinator side: assigned + pending revocation across members.
      const g = (await h.shard('g')).consumer.groups.get('g');
      const held = new Set<string>();
      for (const m of g?.members.values() ?? [])
        for (const a of [m.assignedPartitions, m.partitionsPendingRevocation])
          for (const [t, ps] of a)
            for (const p of ps) {
              const k = `${t}:${p}`;
              assert.ok(!held.has(k), `round ${round}: coordinator holds ${k} twice`);
              held.add(k);
            }
    };
    for (let step = 0; step < 120; step++) {
      const live = members.filter((m) => !m.left);
      const action = rand(10);
      if (action < 2 || live.length === 0) {
        const topics = rand(2) === 0 ? ['t'] : rand(2) === 0 ? ['u'] : ['t', 'u'];
        members.push(new SimMember(h, 'g', `m${next++}`, topics));
        await members.at(-1)!.heartbeat();
      } else if (action === 2 && live.length > 1) {
        await live[rand(live.length)]!.leave();
      } else if (action === 3) {
        const m = live[rand(live.length)]!;
        m.topics = rand(2) === 0 ? ['t'] : ['t', 'u'];
        await m.heartbeat();
      } else {
        await live[rand(live.length)]!.heartbeat();
      }
      await check();
    }
    // Converges: keep heartbeating until everyone is stable, then every partition is owned.
    for (let i = 0; i < 10; i++) for (const m of members.filter((x) => !x.left)) await m.heartbeat();
    await check();
    const g = (await h.shard('g')).consumer.groups.get('g')!;
    assert.equal(g.state, 'Stable', `round ${round}`);
    const live = members.filter((m) => !m.left);
    const subscribed = new Set(live.flatMap((m) => m.topics));
    const expected = (subscribed.has('t') ? 6 : 0) + (subscribed.has('u') ? 3 : 0);
    assert.equal(
      live.reduce((n, m) => n + count(m.owned), 0),
      expected,
      `round ${round}`,
    );
    h.gc.close();
  }
});
