import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { harness, settle, subscription } from './group-harness.js';

test("v4+ join: MEMBER_ID_REQUIRED, then the first member leads and gets every member's metadata", async () => {
  const h = await harness();
  const first = await h.gc.joinGroup(h.origin('c1'), h.joinReq('g'));
  assert.equal(first.errorCode, ErrorCode.MEMBER_ID_REQUIRED);
  assert.match(first.memberId, /^c1-[0-9a-f-]{36}$/);
  const a = h.join(h.joinReq('g', first.memberId));
  await h.advance(0); // initial delay 0 → completes
  const ra = await a.result;
  assert.equal(ra.errorCode, ErrorCode.NONE);
  assert.equal(ra.generationId, 1);
  assert.equal(ra.leader, first.memberId);
  assert.equal(ra.protocolName, 'range');
  assert.equal(ra.members.length, 1);
  // Old clients (v0–v3) get a member id straight away.
  const old = h.join(h.joinReq('g'), h.origin('c2', 3));
  await h.advance(0);
  assert.equal(old.done, false, 'rebalance waits for the known member');
  const rejoin = h.join(h.joinReq('g', first.memberId));
  await settle();
  const [r1, r2] = await Promise.all([rejoin.result, old.result]);
  assert.equal(r1.generationId, 2);
  assert.equal(r1.leader, first.memberId, 'the leader keeps leading when it rejoins');
  assert.equal(r1.members.length, 2);
  assert.equal(r2.members.length, 0, 'followers get no member list');
  assert.equal(r2.leader, first.memberId);
});

test('protocol chosen by votes; protocol type and protocol overlap enforced', async () => {
  const h = await harness({ initialRebalanceDelayMs: 1000 });
  const p = (name: string) => ({ name, metadata: subscription('t') });
  const m1 = await h.newMember('g', { protocols: [p('roundrobin'), p('range')] });
  const m2 = await h.newMember('g', { protocols: [p('range'), p('roundrobin')] });
  const m3 = await h.newMember('g', { protocols: [p('range'), p('sticky')] });
  const wrongType = await h.gc.joinGroup(h.origin(), h.joinReq('g', '', { protocolType: 'connect' }));
  assert.equal(wrongType.errorCode, ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
  const noOverlap = await h.gc.joinGroup(h.origin(), h.joinReq('g', '', { protocols: [p('sticky')] }));
  assert.equal(noOverlap.errorCode, ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
  const empty = await h.gc.joinGroup(h.origin(), h.joinReq('fresh', '', { protocols: [] }));
  assert.equal(empty.errorCode, ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
  await h.advance(999);
  assert.equal(m1.join.done, false, 'initial delay not over');
  await h.advance(1);
  assert.equal(m1.join.done, false, 'members arrived during the delay: it extends once more');
  await h.advance(1000);
  const results = await Promise.all([m1.join.result, m2.join.result, m3.join.result]);
  assert.deepEqual(new Set(results.map((r) => r.protocolName)), new Set(['range']));
});

test('initial rebalance delay extends while members keep arriving, bounded by the rebalance timeout', async () => {
  const h = await harness({ initialRebalanceDelayMs: 3000 });
  const m1 = await h.newMember('g', { rebalanceTimeoutMs: 7000 });
  await h.advance(2000);
  const m2 = await h.newMember('g', { rebalanceTimeoutMs: 7000 });
  await h.advance(1000); // first delay over, a member arrived: wait min(3000, 4000) more
  assert.equal(m1.join.done, false);
  await h.advance(2999);
  assert.equal(m1.join.done, false);
  await h.advance(1);
  const [r1, r2] = await Promise.all([m1.join.result, m2.join.result]);
  assert.equal(r1.generationId, 1);
  assert.equal(r2.generationId, 1);
});

test("full cycle: sync hands out the leader's assignment once written; heartbeats track the state", async () => {
  const h = await harness();
  const m1 = await h.newMember('g');
  await h.advance(0);
  const gen1 = (await m1.join.result).generationId;
  const m2 = await h.newMember('g');
  await settle();
  assert.equal(await h.heartbeat('g', m1.memberId, gen1), ErrorCode.REBALANCE_IN_PROGRESS);
  assert.equal(await h.heartbeat('g', 'nobody', gen1), ErrorCode.UNKNOWN_MEMBER_ID);
  const again = h.join(h.joinReq('g', m1.memberId));
  const [r1, r2] = await Promise.all([again.result, m2.join.result]);
  const gen = r1.generationId;
  assert.equal(gen, gen1 + 1);
  assert.equal(await h.heartbeat('g', m1.memberId, gen1), ErrorCode.ILLEGAL_GENERATION);
  assert.equal(
    await h.heartbeat('g', m2.memberId, gen),
    ErrorCode.NONE,
    'heartbeats allowed while CompletingRebalance',
  );
  const follower = h.sync('g', m2.memberId, gen);
  await settle();
  assert.equal(follower.done, false, 'followers wait for the leader');
  h.writer.holdCommits();
  const leader = h.sync('g', r1.leader, gen, [
    { memberId: m1.memberId, assignment: Buffer.from('A') },
    { memberId: m2.memberId, assignment: Buffer.from('B') },
  ]);
  await settle();
  assert.equal(follower.done, false, 'assignment released only after the record is committed');
  h.writer.releaseCommits();
  const [sl, sf] = await Promise.all([leader.result, follower.result]);
  assert.equal(sl.assignment.toString(), 'A');
  assert.equal(sf.assignment.toString(), 'B');
  assert.equal(sf.protocolName, 'range');
  assert.equal(await h.heartbeat('g', m1.memberId, gen), ErrorCode.NONE);
  assert.equal(r2.members.length, 0);
  const [described] = await h.gc.describeGroups(['g']);
  assert.equal(described?.state, 'Stable');
  assert.equal(described?.protocolData, 'range');
  assert.deepEqual(described?.members.map((m) => m.assignment.toString()).sort(), ['A', 'B']);
  // A late SyncGroup in Stable gets the stored assignment.
  const late = await h.sync('g', m2.memberId, gen).result;
  assert.equal(late.assignment.toString(), 'B');
  const stale = await h.sync('g', m2.memberId, gen - 1).result;
  assert.equal(stale.errorCode, ErrorCode.ILLEGAL_GENERATION);
});

test('session timeout removes a silent member and the survivors rebalance; rebalance timeout drops laggards', async () => {
  const h = await harness();
  const m1 = await h.newMember('g', { sessionTimeoutMs: 6000, rebalanceTimeoutMs: 20_000 });
  const m2 = await h.newMember('g', { sessionTimeoutMs: 6000, rebalanceTimeoutMs: 20_000 });
  await h.advance(0);
  const gen = (await m1.join.result).generationId;
  await m2.join.result;
  const s1 = h.sync('g', m1.memberId, gen);
  const leaderId = (await m1.join.result).leader;
  const s2 = h.sync('g', m2.memberId, gen);
  await Promise.all([s1.result, s2.result]);
  assert.equal(leaderId.length > 0, true);
  // m1 keeps heartbeating, m2 goes silent.
  for (let t = 0; t < 2; t++) {
    await h.advance(2500);
    assert.equal(await h.heartbeat('g', m1.memberId, gen), ErrorCode.NONE);
  }
  await h.advance(2500);
  assert.equal(
    await h.heartbeat('g', m1.memberId, gen),
    ErrorCode.REBALANCE_IN_PROGRESS,
    'm2 expired at 6 s',
  );
  const rejoin = await h.join(h.joinReq('g', m1.memberId)).result;
  assert.equal(rejoin.generationId, gen + 1);
  assert.deepEqual(
    rejoin.members.map((m) => m.memberId),
    [m1.memberId],
  );
  assert.equal(await h.heartbeat('g', m2.memberId, gen), ErrorCode.UNKNOWN_MEMBER_ID);

  // Rebalance timeout: a third member triggers a rebalance that m1 never rejoins.
  await h.sync('g', m1.memberId, gen + 1).result;
  const m3 = await h.newMember('g', { sessionTimeoutMs: 6000, rebalanceTimeoutMs: 20_000 });
  for (let t = 0; t < 7; t++) await h.advance(3000);
  const r3 = await m3.join.result;
  assert.equal(r3.errorCode, ErrorCode.NONE);
  assert.deepEqual(
    r3.members.map((m) => m.memberId),
    [m3.memberId],
  );
  assert.equal(r3.leader, m3.memberId, 'leadership moves to a member that rejoined');
});

test('invalid session timeout, unknown member, empty group id, group.max.size', async () => {
  const h = await harness({ maxSize: 2 });
  assert.equal(
    (await h.gc.joinGroup(h.origin(), h.joinReq('g', '', { sessionTimeoutMs: 5999 }))).errorCode,
    ErrorCode.INVALID_SESSION_TIMEOUT,
  );
  assert.equal(
    (await h.gc.joinGroup(h.origin(), h.joinReq('g', '', { sessionTimeoutMs: 1_800_001 }))).errorCode,
    ErrorCode.INVALID_SESSION_TIMEOUT,
  );
  assert.equal(
    (await h.gc.joinGroup(h.origin(), h.joinReq('g', 'made-up'))).errorCode,
    ErrorCode.UNKNOWN_MEMBER_ID,
  );
  assert.equal((await h.gc.joinGroup(h.origin(), h.joinReq(''))).errorCode, ErrorCode.INVALID_GROUP_ID);
  assert.deepEqual((await h.gc.listGroups([], [])).groups, [], 'failed joins leave no group behind');
  await h.newMember('g');
  await h.newMember('g');
  assert.equal(
    (await h.gc.joinGroup(h.origin(), h.joinReq('g'))).errorCode,
    ErrorCode.GROUP_MAX_SIZE_REACHED,
  );
});

test('pending member ids expire after the session timeout', async () => {
  const h = await harness();
  const first = await h.gc.joinGroup(h.origin(), h.joinReq('g'));
  await h.advance(10_000);
  const late = await h.gc.joinGroup(h.origin(), h.joinReq('g', first.memberId));
  assert.equal(late.errorCode, ErrorCode.UNKNOWN_MEMBER_ID);
});

test('members that never send SyncGroup are removed after the rebalance timeout', async () => {
  const h = await harness();
  const m1 = await h.newMember('g', { rebalanceTimeoutMs: 10_000 });
  const m2 = await h.newMember('g', { rebalanceTimeoutMs: 10_000 });
  await h.advance(0);
  const r1 = await m1.join.result;
  await m2.join.result;
  const leader = r1.leader;
  const other = leader === m1.memberId ? m2.memberId : m1.memberId;
  await h.sync('g', leader, r1.generationId, [{ memberId: leader, assignment: Buffer.from('x') }]).result;
  // Keep the leader's session alive, never sync the other one.
  for (let t = 0; t < 4; t++) {
    await h.advance(2600);
    await h.heartbeat('g', leader, r1.generationId);
  }
  assert.equal(await h.heartbeat('g', leader, r1.generationId), ErrorCode.REBALANCE_IN_PROGRESS);
  assert.equal(await h.heartbeat('g', other, r1.generationId), ErrorCode.UNKNOWN_MEMBER_ID);
});

test('LeaveGroup: batched members, static ids, the last one leaves → Empty with a new generation', async () => {
  const h = await harness();
  const m1 = await h.newMember('g');
  // Static members get their id without MEMBER_ID_REQUIRED.
  const m2 = { join: h.join(h.joinReq('g', '', { groupInstanceId: 'inst-2' })) };
  await h.advance(0);
  const gen = (await m1.join.result).generationId;
  const r = await h.gc.leaveGroup('g', [
    { memberId: m1.memberId, groupInstanceId: null },
    { memberId: '', groupInstanceId: 'inst-2' },
    { memberId: 'ghost', groupInstanceId: null },
    { memberId: 'wrong', groupInstanceId: 'inst-2' },
  ]);
  assert.deepEqual(
    r.members.map((m) => m.errorCode),
    [ErrorCode.NONE, ErrorCode.NONE, ErrorCode.UNKNOWN_MEMBER_ID, ErrorCode.UNKNOWN_MEMBER_ID],
  );
  assert.equal((await m2.join.result).errorCode, ErrorCode.NONE);
  const [d] = await h.gc.describeGroups(['g']);
  assert.equal(d?.state, 'Empty');
  assert.equal(
    (await h.gc.leaveGroup('nope', [{ memberId: 'x', groupInstanceId: null }])).members[0]?.errorCode,
    ErrorCode.UNKNOWN_MEMBER_ID,
  );
  const commits = await h.gc.commitOffsets({
    groupId: 'g',
    generationId: -1,
    memberId: '',
    groupInstanceId: null,
    retentionTimeMs: -1,
    topics: [{ name: 't', partitions: [{ partition: 0, offset: 5n, leaderEpoch: -1, metadata: null }] }],
  });
  assert.equal(commits[0]?.partitions[0]?.errorCode, ErrorCode.NONE, 'simple commits allowed once Empty');
  assert.ok(gen >= 1);
});
