// KIP-848 online migration on the group coordinator (group.consumer.migration.policy): a
// ConsumerGroupHeartbeat member joining a classic group with members upgrades it, the classic
// members go on through JoinGroup/SyncGroup/Heartbeat bridged onto the consumer group with no
// partition ever held by two members, the group survives a coordinator restart, and when the
// last ConsumerGroupHeartbeat member leaves it becomes classic again. Each policy's refusals,
// and the error codes of classic requests to a consumer group.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  decodeAssignment,
  encodeAssignment,
  encodeSubscription,
} from '../../../src/client/consumer/assignors/consumer-protocol.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { assertDisjoint, formClassicGroup, SimClassic } from './classic-member-sim.js';
import { consumerHarness, FakeCatalog, memberCommit, SimMember } from './consumer-group-harness.js';

type Harness = Awaited<ReturnType<typeof consumerHarness>>;

const countOf = (m: SimMember): number => m.owned.reduce((n, t) => n + t.partitions.length, 0);

async function groupType(h: Harness, groupId: string): Promise<string | undefined> {
  const { groups } = await h.gc.listGroups([], []);
  const g = groups.find((x) => x.groupId === groupId);
  return g === undefined ? undefined : (g.groupType ?? 'classic');
}

async function classicGroupOf(h: Harness, groupId: string, n: number, partitions = 6) {
  const members = Array.from(
    { length: n },
    (_, i) => new SimClassic(() => h.gc, groupId, `classic-${i}`, ['t']),
  );
  await formClassicGroup(members, 't', partitions, () => h.advance(0));
  return members;
}

/** A Stable classic group of two cooperative members, `t`'s six partitions in two ranges. */
async function cooperativeGroupOf(h: Harness): Promise<SimClassic[]> {
  const classic = Array.from(
    { length: 2 },
    (_, i) => new SimClassic(() => h.gc, 'g', `coop-${i}`, ['t'], { cooperative: true }),
  );
  await formClassicGroup(classic, 't', 6, () => h.advance(0));
  return classic;
}

test('upgrade: a consumer-protocol member joins a classic group with members; the classic members keep working through the classic protocol', async () => {
  const h = await consumerHarness(new FakeCatalog().add('t', 6));
  const classic = await classicGroupOf(h, 'g', 2);
  assert.deepEqual(
    classic.map((c) => c.owned.length),
    [3, 3],
  );
  const generation = classic[0]!.generation;
  assertDisjoint(classic, [], 'classic group');

  const m = new SimMember(h, 'g', 'modern', ['t']);
  const first = await m.heartbeat();
  assert.equal(first.errorCode, 0);
  assert.equal(await groupType(h, 'g'), 'consumer');
  // Everything is still held by the classic members: the new member waits for it.
  assert.equal(first.memberEpoch, generation + 1);
  assert.equal(countOf(m), 0);
  assertDisjoint(classic, [m], 'right after the upgrade');

  // The classic members learn of the new epoch from their heartbeat and rejoin (eager: they
  // give up everything first); the coordinator answers their JoinGroup at once.
  for (const c of classic) {
    assert.equal(await c.heartbeat(), ErrorCode.REBALANCE_IN_PROGRESS);
    await c.rejoin();
    assertDisjoint(classic, [m], `${c.clientId} rejoined`);
    assert.equal(c.generation, generation + 1);
    assert.equal(await c.heartbeat(), ErrorCode.NONE);
  }
  await m.heartbeat();
  assertDisjoint(classic, [m], 'after the new member heartbeat');
  assert.deepEqual([...classic.map((c) => c.owned.length), countOf(m)], [2, 2, 2]);
  const [d] = await h.gc.consumerGroupDescribe(['g']);
  assert.equal(d?.groupState, 'Stable');
  assert.equal(d?.members.length, 3);
});

/** The upgraded group of `classicGroupOf(2)` plus one consumer-protocol member, settled. */
async function upgraded(h: Harness, groupId = 'g') {
  const classic = await classicGroupOf(h, groupId, 2);
  const m = new SimMember(h, groupId, 'modern', ['t']);
  await m.heartbeat();
  for (const c of classic) {
    await c.heartbeat();
    await c.rejoin();
  }
  await m.heartbeat();
  assertDisjoint(classic, [m], 'settled');
  return { classic, m };
}

test('upgrade survives a coordinator restart: the classic members and their metadata come back from __consumer_offsets', async () => {
  const h = await consumerHarness(new FakeCatalog().add('t', 6));
  const { classic, m } = await upgraded(h);
  await h.restart();
  assert.equal(await groupType(h, 'g'), 'consumer');
  const shard = await h.shard('g');
  const group = shard.consumer.groups.get('g')!;
  for (const c of classic) {
    const member = group.members.get(c.memberId)!;
    assert.equal(member.classicMemberMetadata?.sessionTimeoutMs, 10_000);
    assert.equal(member.classicMemberMetadata?.supportedProtocols[0]?.name, 'range');
    assert.equal(member.memberEpoch, c.generation);
    assert.equal(await c.heartbeat(), ErrorCode.NONE, `${c.clientId} goes on after the restart`);
  }
  assert.equal((await m.heartbeat()).errorCode, 0);
  assert.equal(group.members.get(m.memberId)?.classicMemberMetadata, null);
});

test('cooperative classic members revoke only what moves: the partition stays with its owner until its rejoin no longer lists it', async () => {
  const h = await consumerHarness(new FakeCatalog().add('t', 6));
  const classic = await cooperativeGroupOf(h);
  const generation = classic[0]!.generation;
  const m = new SimMember(h, 'g', 'modern', ['t']);
  await m.heartbeat();
  const c = classic[0]!;
  assert.equal(await c.heartbeat(), ErrorCode.REBALANCE_IN_PROGRESS);
  // Rejoining with its three partitions owned: it must give one up first, at the same epoch.
  const j = await c.join();
  assert.equal(j.errorCode, 0);
  assert.equal(j.generationId, generation, 'still revoking: the epoch does not move');
  const s = await c.sync();
  assert.equal(s.errorCode, 0, 'SyncGroup while revoking is answered, not REBALANCE_IN_PROGRESS');
  assert.equal(c.owned.length, 2);
  assertDisjoint(classic, [m], 'revocation in progress');
  // The new member cannot have the revoked partition yet; the heartbeat says "rejoin".
  await m.heartbeat();
  assertDisjoint(classic, [m], 'revocation in progress');
  assert.equal(await c.heartbeat(), ErrorCode.REBALANCE_IN_PROGRESS);
  await c.rejoin();
  assert.equal(c.generation, generation + 1);
  await classic[1]!.heartbeat();
  await classic[1]!.rejoin();
  await m.heartbeat();
  assertDisjoint(classic, [m], 'settled');
  assert.deepEqual([...classic.map((x) => x.owned.length), countOf(m)], [2, 2, 2]);
});

test('upgrade while a cooperative member has not synced its new assignment: what its subscription lists as owned stays its own', async () => {
  const h = await consumerHarness(new FakeCatalog().add('t', 6));
  const classic = await cooperativeGroupOf(h);
  const [c0, c1] = classic as [SimClassic, SimClassic];
  assert.deepEqual(
    [c0.owned, c1.owned],
    [
      ['t-0', 't-1', 't-2'],
      ['t-3', 't-4', 't-5'],
    ],
  );
  // A classic rebalance: both rejoin listing what they own; the leader takes t-5 from c1 (to
  // move it later) and syncs; c1 has not synced yet and still works on t-3, t-4 and t-5.
  const joins = [c0.join(), c1.join()];
  await h.advance(0);
  const [j0, j1] = await Promise.all(joins);
  const leader = [c0, c1][[j0, j1].findIndex((j) => j!.members.length > 0)]!;
  const assignment = (ps: number[]) =>
    encodeAssignment({ partitions: ps.map((partition) => ({ topic: 't', partition })), userData: null });
  const s = await leader.sync([
    { memberId: c0.memberId, assignment: assignment([0, 1, 2]) },
    { memberId: c1.memberId, assignment: assignment([3, 4]) },
  ]);
  assert.equal(s.errorCode, 0);
  assert.deepEqual(c1.owned, ['t-3', 't-4', 't-5']);
  // The upgrade now must not hand t-5 to the new member while c1 still holds it.
  const m = new SimMember(h, 'g', 'modern', ['t']);
  assert.equal((await m.heartbeat()).errorCode, 0);
  await m.heartbeat();
  assertDisjoint(classic, [m], 'right after the upgrade');
  // Everyone settles: c1 learns of the new epoch, gives up what moves, the new member gets it.
  for (let i = 0; i < 3; i++) {
    for (const c of classic) {
      if ((await c.heartbeat()) !== ErrorCode.NONE) await c.rejoin();
      assertDisjoint(classic, [m], `${c.clientId} rejoined`);
    }
    await m.heartbeat();
    assertDisjoint(classic, [m], 'settling');
  }
  assert.equal(c0.owned.length + c1.owned.length + countOf(m), 6);
});

test('downgrade: the last consumer-protocol member leaves, the group is classic again and rebalances; the restart keeps it classic', async () => {
  const h = await consumerHarness(new FakeCatalog().add('t', 6));
  const { classic, m } = await upgraded(h);
  const epoch = classic[0]!.generation;
  const left = await m.leave();
  assert.equal(left.errorCode, 0);
  assert.equal(await groupType(h, 'g'), 'classic');
  const [described] = await h.gc.describeGroups(['g']);
  assert.equal(described?.state, 'PreparingRebalance');
  assert.equal(described?.protocolType, 'consumer');
  // The classic members are told to rejoin (their generation is the consumer group's old epoch).
  for (const c of classic) {
    const code = await c.heartbeat();
    assert.ok(
      code === ErrorCode.REBALANCE_IN_PROGRESS || code === ErrorCode.ILLEGAL_GENERATION,
      `heartbeat after the downgrade: ${code}`,
    );
  }
  await formClassicGroup(classic, 't', 6, () => h.advance(0));
  assert.ok(classic[0]!.generation > epoch);
  assert.deepEqual(
    classic.map((c) => c.owned.length),
    [3, 3],
  );
  assertDisjoint(classic, [], 'classic again');
  await h.restart();
  assert.equal(await groupType(h, 'g'), 'classic');
  const [again] = await h.gc.describeGroups(['g']);
  assert.equal(again?.state, 'Stable');
  for (const c of classic) assert.equal(await c.heartbeat(), ErrorCode.NONE);
});

test('downgrade right after the upgrade: each member holds what it still owns (not its target) in the rebuilt classic group, persisted', async () => {
  const h = await consumerHarness(new FakeCatalog().add('t', 6));
  const classic = await classicGroupOf(h, 'g', 2);
  const m = new SimMember(h, 'g', 'modern', ['t']);
  await m.heartbeat();
  // Leaves before anyone revoked anything: each classic member still works on its three
  // partitions, though its target (with the modern member in) had fewer.
  await m.leave();
  await h.restart();
  const shard = await h.shard('g');
  const g = shard.classic.groups.get('g')!;
  assert.equal(g.state, 'Stable');
  assert.equal(g.protocolName, 'range');
  assert.equal(g.members.size, 2);
  for (const c of classic)
    assert.deepEqual(
      decodeAssignment(g.members.get(c.memberId)!.assignment)
        .partitions.map((tp) => `${tp.topic}-${tp.partition}`)
        .sort(),
      [...c.owned].sort(),
    );
});

test('policy: disabled and downgrade refuse the upgrade (GROUP_ID_NOT_FOUND); upgrade keeps the consumer group when its last such member leaves', async () => {
  for (const policy of ['disabled', 'downgrade'] as const) {
    const h = await consumerHarness(new FakeCatalog().add('t', 6), { consumerMigrationPolicy: policy });
    const classic = await classicGroupOf(h, 'g', 2);
    const r = await new SimMember(h, 'g', 'modern', ['t']).heartbeat();
    assert.equal(r.errorCode, ErrorCode.GROUP_ID_NOT_FOUND, policy);
    assert.equal(await groupType(h, 'g'), 'classic');
    for (const c of classic)
      assert.equal(await c.heartbeat(), ErrorCode.NONE, `${policy}: classic untouched`);
    // An empty classic group is replaced whatever the policy.
    for (const c of classic) await c.leave();
    await h.advance(0);
    const joined = await new SimMember(h, 'g', 'modern-2', ['t']).heartbeat();
    assert.equal(joined.errorCode, 0, `${policy}: empty classic group replaced`);
  }
  const h = await consumerHarness(new FakeCatalog().add('t', 6), { consumerMigrationPolicy: 'upgrade' });
  const { classic, m } = await upgraded(h);
  await m.leave();
  assert.equal(await groupType(h, 'g'), 'consumer', 'upgrade only: no downgrade');
  for (const c of classic) {
    await c.heartbeat();
    await c.rejoin();
  }
  assertDisjoint(classic, [], 'after the leave');
  assert.deepEqual(
    classic.map((c) => c.owned.length),
    [3, 3],
  );
});

test('upgrade refused for a non-consumer protocol type and for a group larger than group.consumer.max.size', async () => {
  const h = await consumerHarness(new FakeCatalog().add('t', 6), { consumerMaxSize: 2 });
  await classicGroupOf(h, 'big', 3);
  assert.equal(
    (await new SimMember(h, 'big', 'm', ['t']).heartbeat()).errorCode,
    ErrorCode.GROUP_ID_NOT_FOUND,
  );
  const connecting = h.gc.joinGroup(
    { clientId: 'w', clientHost: '/h', apiVersion: 3 },
    {
      groupId: 'connect',
      sessionTimeoutMs: 10_000,
      rebalanceTimeoutMs: 10_000,
      memberId: '',
      groupInstanceId: null,
      protocolType: 'connect',
      protocols: [{ name: 'default', metadata: Buffer.from('x') }],
    },
  );
  await h.advance(0);
  assert.equal((await connecting).errorCode, 0);
  assert.equal(
    (await new SimMember(h, 'connect', 'm', ['t']).heartbeat()).errorCode,
    ErrorCode.GROUP_ID_NOT_FOUND,
  );
});

test('an upgrade during a classic rebalance answers the parked JoinGroups REBALANCE_IN_PROGRESS; the members rejoin the consumer group', async () => {
  const h = await consumerHarness(new FakeCatalog().add('t', 4));
  const classic = await classicGroupOf(h, 'g', 2, 4);
  // One member rejoins (a classic rebalance starts and parks it), then the upgrade comes.
  const parked = classic[0]!.joinOnce();
  await h.advance(0);
  const m = new SimMember(h, 'g', 'modern', ['t']);
  assert.equal((await m.heartbeat()).errorCode, 0);
  assert.equal((await parked).errorCode, ErrorCode.REBALANCE_IN_PROGRESS);
  for (const c of classic) {
    await c.rejoin();
    assertDisjoint(classic, [m], c.clientId);
  }
  await m.heartbeat();
  assertDisjoint(classic, [m], 'settled');
  const owned = classic.flatMap((c) => c.owned).length + countOf(m);
  assert.equal(owned, 4);
});

test('a classic consumer may join a consumer group of any policy; its requests get Kafka error codes', async () => {
  const h = await consumerHarness(new FakeCatalog().add('t', 4), { consumerMigrationPolicy: 'disabled' });
  const m = new SimMember(h, 'g', 'modern', ['t']);
  await m.heartbeat();
  const c = new SimClassic(() => h.gc, 'g', 'classic', ['t']);
  const origin = { clientId: 'x', clientHost: '/h', apiVersion: 5 };
  const joinReq = (extra: Record<string, unknown> = {}) => ({
    groupId: 'g',
    sessionTimeoutMs: 10_000,
    rebalanceTimeoutMs: 30_000,
    memberId: 'someone',
    groupInstanceId: null,
    protocolType: 'consumer',
    protocols: [{ name: 'range', metadata: c.subscription() }],
    ...extra,
  });
  const code = async (extra: Record<string, unknown>) =>
    (await h.gc.joinGroup(origin, joinReq(extra))).errorCode;
  assert.equal(await code({ protocolType: 'connect' }), ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
  assert.equal(await code({ protocols: [] }), ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
  assert.equal(
    await code({ protocols: [{ name: 'range', metadata: Buffer.from([0, 1, 0xff, 0xff, 0xff]) }] }),
    ErrorCode.INCONSISTENT_GROUP_PROTOCOL,
    'a subscription that does not parse',
  );
  assert.equal(await code({ sessionTimeoutMs: 1 }), ErrorCode.INVALID_SESSION_TIMEOUT);
  const required = await h.gc.joinGroup(origin, joinReq({ memberId: '' }));
  assert.equal(required.errorCode, ErrorCode.MEMBER_ID_REQUIRED);
  assert.match(required.memberId, /^[0-9a-f-]{36}$/);

  const j = await c.join();
  assert.equal(j.errorCode, 0);
  assert.equal(j.protocolType, 'consumer');
  assert.equal(j.protocolName, 'range');
  assert.equal(j.leader, '');
  assert.deepEqual(j.members, []);
  assert.equal(j.generationId, m.epoch + 1);
  // Another classic member must share a protocol name with it.
  assert.equal(
    await code({ memberId: '', protocols: [{ name: 'roundrobin', metadata: c.subscription() }] }),
    ErrorCode.INCONSISTENT_GROUP_PROTOCOL,
  );
  const sync = (extra: Record<string, unknown>) =>
    h.gc.syncGroup({
      groupId: 'g',
      generationId: c.generation,
      memberId: c.memberId,
      groupInstanceId: null,
      protocolType: 'consumer',
      protocolName: 'range',
      assignments: [],
      ...extra,
    });
  assert.equal((await sync({ generationId: c.generation + 5 })).errorCode, ErrorCode.ILLEGAL_GENERATION);
  assert.equal((await sync({ protocolName: 'roundrobin' })).errorCode, ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
  assert.equal((await sync({ protocolType: 'connect' })).errorCode, ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
  assert.equal((await sync({ memberId: 'ghost' })).errorCode, ErrorCode.UNKNOWN_MEMBER_ID);
  assert.equal(
    (await sync({ memberId: m.memberId, generationId: m.epoch })).errorCode,
    ErrorCode.UNKNOWN_MEMBER_ID,
  );
  assert.equal((await sync({ groupInstanceId: 'nobody' })).errorCode, ErrorCode.UNKNOWN_MEMBER_ID);
  assert.equal((await c.sync()).errorCode, 0);
  assertDisjoint([c], [m], 'joined');
  const hb = (memberId: string, generationId: number) =>
    h.gc.heartbeat({ groupId: 'g', memberId, generationId, groupInstanceId: null });
  assert.equal(await hb(c.memberId, c.generation - 1), ErrorCode.ILLEGAL_GENERATION);
  assert.equal(await hb(m.memberId, m.epoch), ErrorCode.UNKNOWN_MEMBER_ID, 'not a classic member');
  assert.equal(await hb('ghost', 1), ErrorCode.UNKNOWN_MEMBER_ID);
  // The new member waits for partitions the other one releases: its heartbeat says rejoin once free.
  assert.equal(await c.heartbeat(), ErrorCode.NONE);
  await m.heartbeat(); // told to revoke two partitions
  assert.equal(await c.heartbeat(), ErrorCode.NONE, 'still held by the other member');
  await m.heartbeat(); // acknowledges: they are free
  assert.equal(await c.heartbeat(), ErrorCode.REBALANCE_IN_PROGRESS, 'its partitions were released');
  await c.rejoin();
  assertDisjoint([c], [m], 'settled');
  assert.equal(c.owned.length, 2);
  const left = await h.gc.leaveGroup('g', [
    { memberId: m.memberId, groupInstanceId: null },
    { memberId: 'ghost', groupInstanceId: null },
    { memberId: '', groupInstanceId: 'nobody' },
    { memberId: c.memberId, groupInstanceId: null },
  ]);
  assert.deepEqual(
    left.members.map((x) => x.errorCode),
    [ErrorCode.UNKNOWN_MEMBER_ID, ErrorCode.UNKNOWN_MEMBER_ID, ErrorCode.UNKNOWN_MEMBER_ID, 0],
  );
  assert.equal(await groupType(h, 'g'), 'consumer', 'a classic LeaveGroup never downgrades');
  await m.heartbeat();
  assert.equal(m.owned[0]?.partitions.length, 4);
});

test('classic members in a consumer group: fenced when they do not rejoin, or do not sync, within the rebalance timeout', async () => {
  const h = await consumerHarness(new FakeCatalog().add('t', 4));
  const m = new SimMember(h, 'g', 'modern', ['t']);
  await m.heartbeat();
  const slow = new SimClassic(() => h.gc, 'g', 'slow', ['t'], { rebalanceTimeoutMs: 5000 });
  await slow.join();
  // No SyncGroup within 5 s: fenced.
  await h.advance(5001);
  assert.equal(await slow.heartbeat(), ErrorCode.UNKNOWN_MEMBER_ID);
  const lazy = new SimClassic(() => h.gc, 'g', 'lazy', ['t'], { rebalanceTimeoutMs: 5000 });
  await lazy.rejoin();
  await m.heartbeat();
  // Told to rejoin; it keeps heartbeating without rejoining: fenced after its rebalance timeout.
  for (let t = 0; t < 5; t++) {
    await m.heartbeat();
    const code = await lazy.heartbeat();
    if (code === ErrorCode.UNKNOWN_MEMBER_ID) break;
    await h.advance(1500);
  }
  assert.equal(await lazy.heartbeat(), ErrorCode.UNKNOWN_MEMBER_ID);
  await m.heartbeat();
  assert.equal(m.owned[0]?.partitions.length, 4, 'the fenced member’s partitions went to the other');
  // A silent classic member is fenced after its own session timeout (10 s), not the group's (45 s).
  const silent = new SimClassic(() => h.gc, 'g', 'silent', ['t']);
  await silent.rejoin();
  await h.advance(10_001);
  assert.equal(await silent.heartbeat(), ErrorCode.UNKNOWN_MEMBER_ID);
});

test('offsets: a classic member of a consumer group commits and fetches with its generation; a mismatch is ILLEGAL_GENERATION', async () => {
  const h = await consumerHarness(new FakeCatalog().add('t', 2));
  const m = new SimMember(h, 'g', 'modern', ['t']);
  await m.heartbeat();
  const c = new SimClassic(() => h.gc, 'g', 'classic', ['t']);
  await c.rejoin();
  const commit = (memberId: string, generationId: number, apiVersion: number) =>
    h.gc
      .commitOffsets(memberCommit('g', { memberId, generationId, apiVersion }, 't', [[0, 7n]]))
      .then((r) => r[0]!.partitions[0]!.errorCode);
  assert.equal(await commit(c.memberId, c.generation, 5), 0, 'any version for a classic member');
  assert.equal(await commit(c.memberId, c.generation + 1, 5), ErrorCode.ILLEGAL_GENERATION);
  assert.equal(await commit(m.memberId, m.epoch + 1, 9), ErrorCode.STALE_MEMBER_EPOCH);
  assert.equal(await commit(m.memberId, m.epoch, 8), ErrorCode.UNSUPPORTED_VERSION);
  const fetch = (memberId: string | null, memberEpoch: number) =>
    h.gc.fetchOffsets('g', [{ name: 't', partitions: [0] }], false, { memberId, memberEpoch });
  assert.equal((await fetch(c.memberId, c.generation + 1)).errorCode, ErrorCode.ILLEGAL_GENERATION);
  assert.equal((await fetch(m.memberId, m.epoch + 1)).errorCode, ErrorCode.STALE_MEMBER_EPOCH);
  assert.equal((await fetch('ghost', 1)).errorCode, ErrorCode.UNKNOWN_MEMBER_ID);
  assert.equal((await fetch('', -1)).errorCode, ErrorCode.UNKNOWN_MEMBER_ID, 'an empty id is not "none"');
  assert.equal((await fetch(null, -1)).topics[0]?.partitions[0]?.offset, 7n);
  assert.equal((await fetch(c.memberId, c.generation)).topics[0]?.partitions[0]?.offset, 7n);
});

test('an empty consumer group becomes a classic group on a JoinGroup, whatever the policy', async () => {
  const h = await consumerHarness(new FakeCatalog().add('t', 2), { consumerMigrationPolicy: 'disabled' });
  const m = new SimMember(h, 'g', 'modern', ['t']);
  await m.heartbeat();
  await m.leave();
  assert.equal(await groupType(h, 'g'), 'consumer');
  const known = await h.gc.joinGroup(
    { clientId: 'x', clientHost: '/h', apiVersion: 5 },
    {
      groupId: 'g',
      sessionTimeoutMs: 10_000,
      rebalanceTimeoutMs: 30_000,
      memberId: 'stale-id',
      groupInstanceId: null,
      protocolType: 'consumer',
      protocols: [
        {
          name: 'range',
          metadata: encodeSubscription({
            topics: ['t'],
            userData: null,
            ownedPartitions: [],
            generationId: -1,
            rackId: null,
          }),
        },
      ],
    },
  );
  assert.equal(known.errorCode, ErrorCode.UNKNOWN_MEMBER_ID);
  const classic = [new SimClassic(() => h.gc, 'g', 'c0', ['t'])];
  await formClassicGroup(classic, 't', 2, () => h.advance(0));
  assert.equal(await groupType(h, 'g'), 'classic');
  await h.restart();
  assert.equal(await groupType(h, 'g'), 'classic', 'the consumer group’s tombstones are in the log');
  assert.equal(await classic[0]!.heartbeat(), ErrorCode.NONE);
});

test('a classic static member replacing the last consumer-protocol member downgrades the group, taking its assignment', async () => {
  const h = await consumerHarness(new FakeCatalog().add('t', 4));
  const classic = await classicGroupOf(h, 'g', 1, 4);
  const m = new SimMember(h, 'g', 'modern', ['t']);
  const joined = await h.hb({
    groupId: 'g',
    memberId: 'modern',
    memberEpoch: 0,
    instanceId: 'instance-1',
    rebalanceTimeoutMs: 30_000,
    subscribedTopicNames: ['t'],
    topicPartitions: [],
  });
  assert.equal(joined.errorCode, 0);
  m.epoch = joined.memberEpoch;
  await classic[0]!.heartbeat();
  await classic[0]!.rejoin();
  const replacing = new SimClassic(() => h.gc, 'g', 'replacing', ['t'], { instanceId: 'instance-1' });
  const j = await replacing.join();
  assert.equal(j.errorCode, 0);
  assert.equal(await groupType(h, 'g'), 'classic');
  const s = await replacing.sync();
  assert.equal(s.errorCode, 0);
  assertDisjoint([...classic, replacing], [], 'after the replacement');
  assert.equal(replacing.owned.length + classic[0]!.owned.length, 4);
  await h.restart();
  assert.equal(await groupType(h, 'g'), 'classic');
  assert.equal(await replacing.heartbeat(), ErrorCode.NONE);
});

test('after a coordinator move a classic member has the group session (45 s) to find the new coordinator, as in Kafka', async () => {
  const h = await consumerHarness(new FakeCatalog().add('t', 6));
  const { classic } = await upgraded(h);
  await h.restart();
  await h.advance(30_000); // longer than its own 10 s session
  assert.equal(await classic[0]!.heartbeat(), ErrorCode.NONE, 'still a member');
  // Back on its own session timeout from that heartbeat on; the silent one goes at 45 s.
  await h.advance(15_001);
  assert.equal(await classic[1]!.heartbeat(), ErrorCode.UNKNOWN_MEMBER_ID);
});
