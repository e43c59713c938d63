import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { OffsetCommitRequest } from '../../../src/broker/coordinator/group/index.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { harness, settle } from './group-harness.js';

const commitReq = (
  groupId: string,
  generationId: number,
  memberId: string,
  offset = 10n,
  extra: Partial<OffsetCommitRequest> = {},
): OffsetCommitRequest => ({
  groupId,
  generationId,
  memberId,
  groupInstanceId: null,
  retentionTimeMs: -1,
  topics: [
    {
      name: 't',
      partitions: [
        { partition: 0, offset, leaderEpoch: 3, metadata: 'meta' },
        { partition: 1, offset: offset + 1n, leaderEpoch: -1, metadata: null },
      ],
    },
  ],
  ...extra,
});
const codes = (r: Array<{ partitions: Array<{ errorCode: number }> }>) =>
  r.flatMap((t) => t.partitions.map((p) => p.errorCode));

async function stableGroup(h: Awaited<ReturnType<typeof harness>>, groupId: string, extra = {}) {
  const m = await h.newMember(groupId, extra);
  await h.advance(0);
  const j = await m.join.result;
  await h.sync(groupId, m.memberId, j.generationId, [{ memberId: m.memberId, assignment: Buffer.from('a') }])
    .result;
  return { memberId: m.memberId, generationId: j.generationId };
}

test('commits are fenced by generation and member; simple commits only while Empty', async () => {
  const h = await harness();
  assert.deepEqual(
    codes(await h.gc.commitOffsets(commitReq('new', 1, 'x'))),
    [22, 22],
    'unknown group with a generation',
  );
  const { memberId, generationId } = await stableGroup(h, 'g');
  assert.deepEqual(codes(await h.gc.commitOffsets(commitReq('g', generationId, memberId))), [0, 0]);
  assert.deepEqual(codes(await h.gc.commitOffsets(commitReq('g', generationId + 1, memberId))), [
    ErrorCode.ILLEGAL_GENERATION,
    22,
  ]);
  assert.deepEqual(codes(await h.gc.commitOffsets(commitReq('g', generationId, 'intruder'))), [
    ErrorCode.UNKNOWN_MEMBER_ID,
    25,
  ]);
  assert.deepEqual(
    codes(await h.gc.commitOffsets(commitReq('g', -1, ''))),
    [ErrorCode.UNKNOWN_MEMBER_ID, 25],
    'simple commit into a live group',
  );
  // During CompletingRebalance (new generation, assignment not yet known) commits are refused.
  const m2 = await h.newMember('g');
  const rejoin = await h.join(h.joinReq('g', memberId)).result;
  await m2.join.result;
  assert.deepEqual(codes(await h.gc.commitOffsets(commitReq('g', rejoin.generationId, memberId))), [
    ErrorCode.REBALANCE_IN_PROGRESS,
    27,
  ]);
  const big = commitReq('g', -1, '', 1n, { groupId: 'simple' });
  (big.topics[0]?.partitions[0] as { metadata: string }).metadata = 'x'.repeat(4097);
  assert.deepEqual(codes(await h.gc.commitOffsets(big)), [ErrorCode.OFFSET_METADATA_TOO_LARGE, 0]);
});

test('OffsetFetch: requested partitions, unknown ones as -1, the all-topics form', async () => {
  const h = await harness();
  await h.gc.commitOffsets(commitReq('g', -1, ''));
  const f = await h.gc.fetchOffsets('g', [
    { name: 't', partitions: [0, 1, 7] },
    { name: 'u', partitions: [0] },
  ]);
  assert.equal(f.errorCode, 0);
  assert.deepEqual(
    f.topics.map((t) => t.partitions.map((p) => [p.partition, p.offset, p.leaderEpoch, p.metadata])),
    [
      [
        [0, 10n, 3, 'meta'],
        [1, 11n, -1, ''],
        [7, -1n, -1, ''],
      ],
      [[0, -1n, -1, '']],
    ],
  );
  const all = await h.gc.fetchOffsets('g', null);
  assert.deepEqual(
    all.topics.map((t) => [t.name, t.partitions.map((p) => p.partition)]),
    [['t', [0, 1]]],
  );
  assert.deepEqual((await h.gc.fetchOffsets('none', null)).topics, []);
});

test('groups, generations and offsets survive a restart from the log (Kafka record format)', async () => {
  const h = await harness();
  const { memberId, generationId } = await stableGroup(h, 'g', { groupInstanceId: null });
  await h.gc.commitOffsets(commitReq('g', generationId, memberId, 42n));
  await h.gc.commitOffsets(commitReq('g', generationId, memberId, 43n));
  await h.gc.commitOffsets(commitReq('solo', -1, '', 7n, { retentionTimeMs: 60_000 }));
  await h.restart();
  const [d] = await h.gc.describeGroups(['g']);
  assert.equal(d?.state, 'Stable');
  assert.deepEqual(
    d?.members.map((m) => [m.memberId, m.assignment.toString()]),
    [[memberId, 'a']],
  );
  const f = await h.gc.fetchOffsets('g', [{ name: 't', partitions: [0, 1] }]);
  assert.deepEqual(
    f.topics[0]?.partitions.map((p) => p.offset),
    [43n, 44n],
  );
  // The member carries on in the same generation; it is expired if silent.
  assert.equal(await h.heartbeat('g', memberId, generationId), ErrorCode.NONE);
  assert.deepEqual(codes(await h.gc.commitOffsets(commitReq('g', generationId, memberId, 50n))), [0, 0]);
  await h.advance(10_001);
  assert.equal(await h.heartbeat('g', memberId, generationId), ErrorCode.UNKNOWN_MEMBER_ID);
  const listed = await h.gc.listGroups([], []);
  assert.deepEqual(listed.groups.map((g) => [g.groupId, g.state, g.protocolType]).sort(), [
    ['g', 'Empty', 'consumer'],
    ['solo', 'Empty', ''],
  ]);
  assert.deepEqual((await h.gc.listGroups(['stable'], [])).groups, []);
});

test('offset retention: from the commit for simple groups, from emptiness for consumer groups', async () => {
  const h = await harness({ offsetsRetentionMs: 60_000, offsetsRetentionCheckIntervalMs: 10_000 });
  await h.gc.commitOffsets(commitReq('simple', -1, ''));
  const { memberId, generationId } = await stableGroup(h, 'g', { sessionTimeoutMs: 30_000 });
  await h.gc.commitOffsets(commitReq('g', generationId, memberId));
  for (let i = 0; i < 7; i++) {
    await h.advance(10_000);
    await h.heartbeat('g', memberId, generationId);
  }
  assert.deepEqual(
    (await h.gc.fetchOffsets('simple', null)).topics,
    [],
    'simple group offsets expired after 60 s',
  );
  assert.equal((await h.gc.fetchOffsets('g', null)).topics.length, 1, 'active group keeps its offsets');
  assert.deepEqual((await h.gc.describeGroups(['simple']))[0]?.state, 'Dead', 'and the group is gone');
  await h.gc.leaveGroup('g', [{ memberId, groupInstanceId: null }]);
  await h.advance(50_000);
  assert.equal(
    (await h.gc.fetchOffsets('g', null)).topics.length,
    1,
    'retention counts from when the group emptied',
  );
  await h.advance(20_000);
  assert.deepEqual((await h.gc.fetchOffsets('g', null)).topics, []);
  await h.restart();
  assert.deepEqual((await h.gc.listGroups([], [])).groups, [], 'the deletions are in the log');
});

test('DeleteGroups and OffsetDelete', async () => {
  const h = await harness();
  const { memberId, generationId } = await stableGroup(h, 'live');
  await h.gc.commitOffsets(commitReq('live', generationId, memberId));
  await h.gc.commitOffsets(commitReq('idle', -1, ''));
  await h.gc.commitOffsets({
    ...commitReq('live', generationId, memberId),
    topics: [{ name: 'other', partitions: [{ partition: 0, offset: 1n, leaderEpoch: -1, metadata: null }] }],
  });
  const del = await h.gc.deleteGroups(['live', 'idle', 'missing', '']);
  assert.deepEqual(
    del.map((d) => d.errorCode),
    [ErrorCode.NON_EMPTY_GROUP, 0, ErrorCode.GROUP_ID_NOT_FOUND, ErrorCode.INVALID_GROUP_ID],
  );
  assert.deepEqual((await h.gc.fetchOffsets('idle', null)).topics, []);
  const od = await h.gc.deleteOffsets('live', [
    { name: 't', partitions: [0] },
    { name: 'other', partitions: [0] },
  ]);
  assert.deepEqual(
    od.topics.map((t) => t.partitions[0]?.errorCode),
    [ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC, 0],
  );
  const left = await h.gc.fetchOffsets('live', null);
  assert.deepEqual(
    left.topics.map((t) => t.name),
    ['t'],
  );
  assert.equal((await h.gc.deleteOffsets('missing', [])).errorCode, ErrorCode.GROUP_ID_NOT_FOUND);
  await settle();
});

test('static member restarting within its session takes its slot back without a rebalance; the old id is fenced', async () => {
  const h = await harness();
  const a = h.join(h.joinReq('g', '', { groupInstanceId: 'a' }));
  const b = h.join(h.joinReq('g', '', { groupInstanceId: 'b' }));
  await h.advance(0);
  const [ra, rb] = await Promise.all([a.result, b.result]);
  const gen = ra.generationId;
  await Promise.all([
    h.sync('g', ra.memberId, gen, [
      { memberId: ra.memberId, assignment: Buffer.from('A') },
      { memberId: rb.memberId, assignment: Buffer.from('B') },
    ]).result,
    h.sync('g', rb.memberId, gen).result,
  ]);
  const follower = ra.leader === ra.memberId ? rb : ra;
  const instance = follower === ra ? 'a' : 'b';
  const back = await h.join(h.joinReq('g', '', { groupInstanceId: instance }), h.origin('restarted')).result;
  assert.equal(back.errorCode, ErrorCode.NONE);
  assert.equal(back.generationId, gen, 'no new generation');
  assert.notEqual(back.memberId, follower.memberId);
  const s = await h.gc.syncGroup({
    groupId: 'g',
    generationId: gen,
    memberId: back.memberId,
    groupInstanceId: instance,
    protocolType: 'consumer',
    protocolName: 'range',
    assignments: [],
  });
  assert.equal(s.assignment.toString(), follower === ra ? 'A' : 'B');
  assert.equal(await h.heartbeat('g', follower.memberId, gen, instance), ErrorCode.FENCED_INSTANCE_ID);
  assert.deepEqual(
    codes(await h.gc.commitOffsets({ ...commitReq('g', gen, follower.memberId), groupInstanceId: instance })),
    [82, 82],
  );
  assert.equal((await h.gc.describeGroups(['g']))[0]?.state, 'Stable');
  // Restart keeps the new member id.
  await h.restart();
  assert.equal(await h.heartbeat('g', back.memberId, gen, instance), ErrorCode.NONE);
  // SyncGroup with a mismatched protocol name.
  const bad = await h.gc.syncGroup({
    groupId: 'g',
    generationId: gen,
    memberId: back.memberId,
    groupInstanceId: instance,
    protocolType: 'consumer',
    protocolName: 'roundrobin',
    assignments: [],
  });
  assert.equal(bad.errorCode, ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
});

test('operations on a loading or foreign partition answer COORDINATOR_LOAD_IN_PROGRESS / NOT_COORDINATOR', async () => {
  const h = await harness();
  const p = h.gc.partitionFor('g');
  h.gc.onResignation(p);
  assert.equal(await h.heartbeat('g', 'm', 1), ErrorCode.NOT_COORDINATOR);
  assert.equal(h.gc.availability('g'), ErrorCode.NOT_COORDINATOR);
  const loading = h.gc.onElection(p);
  const [j, f] = await Promise.all([
    h.gc.joinGroup(h.origin(), h.joinReq('g')),
    h.gc.fetchOffsets('g', null),
  ]);
  assert.equal(j.errorCode, ErrorCode.COORDINATOR_LOAD_IN_PROGRESS);
  assert.equal(f.errorCode, ErrorCode.COORDINATOR_LOAD_IN_PROGRESS);
  await loading;
  assert.equal(h.gc.availability('g'), ErrorCode.NONE);
});
