// Group types on the wire, raw frames against an in-process broker, as Kafka 4 answers them:
// DescribeGroups describes classic groups only (a consumer group, mixed or not, is Dead with no
// error below v6 and GROUP_ID_NOT_FOUND with Kafka's message from v6), ListGroups reports each
// group's type and filters by type and state (v4/v5), ConsumerGroupDescribe v1 tells a classic
// member of a consumer group (MemberType 0) from a ConsumerGroupHeartbeat one (1) and refuses a
// classic or unknown id with Kafka's message; our Admin client describes both kinds (and only
// classic ones from a broker without the consumer protocol). Malformed or hostile frames of these
// APIs close that one connection (or are answered), and the broker keeps serving.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Admin } from '../../../src/client/admin/admin.js';
import {
  encodeAssignment,
  encodeSubscription,
} from '../../../src/client/consumer/assignors/consumer-protocol.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { consumerGroupDescribeApi } from '../../../src/protocol/messages/generated/consumer-group-describe.js';
import { consumerGroupHeartbeatApi } from '../../../src/protocol/messages/generated/consumer-group-heartbeat.js';
import { describeGroupsApi } from '../../../src/protocol/messages/generated/describe-groups.js';
import { findCoordinatorApi } from '../../../src/protocol/messages/generated/find-coordinator.js';
import { joinGroupApi } from '../../../src/protocol/messages/generated/join-group.js';
import { listGroupsApi } from '../../../src/protocol/messages/generated/list-groups.js';
import { syncGroupApi } from '../../../src/protocol/messages/generated/sync-group.js';
import { startTestBroker, type TestBroker } from '../../../src/testkit/index.js';
import { RawClient } from '../support/raw-client.js';

const TOPIC = 'describe-topic';
const SESSION_MS = 600_000;
let broker: TestBroker;
let c: RawClient;

before(async () => {
  broker = await startTestBroker({
    // Nobody heartbeats after joining: sessions outlast the file on a loaded machine.
    overrides: {
      'offsets.topic.num.partitions': 2,
      'group.initial.rebalance.delay.ms': 0,
      'group.consumer.session.timeout.ms': SESSION_MS,
    },
  });
  const admin = new Admin({ bootstrapServers: broker.bootstrap });
  try {
    await admin.createTopics([{ name: TOPIC, numPartitions: 4, replicationFactor: 1 }]);
  } finally {
    await admin.close();
  }
  c = await RawClient.connect(broker.port);
  await c.request(findCoordinatorApi, 4, { key: '', keyType: 0, coordinatorKeys: ['any'] });
  // A consumer group (one ConsumerGroupHeartbeat member, Stable), a mixed one (that plus a
  // classic member through JoinGroup: Reconciling, its first member has not yet given up the
  // partitions the classic one is to get), and a classic group (one classic member, Stable).
  assert.equal((await heartbeat('cg', 'cg-m1')).errorCode, 0);
  assert.equal((await heartbeat('mixed', 'mixed-m1')).errorCode, 0);
  await classicJoin('mixed');
  await classicJoin('classic');
});
after(async () => {
  c?.close();
  await broker?.close();
});

const heartbeat = (groupId: string, memberId: string) =>
  c.request(consumerGroupHeartbeatApi, 1, {
    groupId,
    memberId,
    memberEpoch: 0,
    instanceId: null,
    rackId: null,
    rebalanceTimeoutMs: 30_000,
    subscribedTopicNames: [TOPIC],
    subscribedTopicRegex: null,
    serverAssignor: null,
    topicPartitions: [],
  });

/** A classic consumer joins (and syncs, as its own leader when the group is classic). */
async function classicJoin(groupId: string): Promise<string> {
  const metadata = encodeSubscription(
    { topics: [TOPIC], userData: null, ownedPartitions: [], generationId: -1, rackId: null },
    1,
  );
  const req = {
    groupId,
    sessionTimeoutMs: SESSION_MS,
    rebalanceTimeoutMs: 30_000,
    memberId: '',
    groupInstanceId: null,
    protocolType: 'consumer',
    protocols: [{ name: 'range', metadata }],
    reason: null,
  };
  const first = await c.request(joinGroupApi, 5, req);
  assert.equal(first.errorCode, ErrorCode.MEMBER_ID_REQUIRED);
  const j = await c.request(joinGroupApi, 5, { ...req, memberId: first.memberId });
  assert.equal(j.errorCode, 0);
  const s = await c.request(syncGroupApi, 5, {
    groupId,
    generationId: j.generationId,
    memberId: j.memberId,
    groupInstanceId: null,
    protocolType: 'consumer',
    protocolName: 'range',
    assignments:
      j.leader === j.memberId
        ? [
            {
              memberId: j.memberId,
              assignment: encodeAssignment({
                partitions: [0, 1, 2, 3].map((partition) => ({ topic: TOPIC, partition })),
                userData: null,
              }),
            },
          ]
        : [],
  });
  assert.equal(s.errorCode, 0);
  return j.memberId;
}

const describeGroups = (version: number, groups: string[]) =>
  c.request(describeGroupsApi, version, { groups, includeAuthorizedOperations: true });

test('DescribeGroups v0-5: a consumer group, mixed or not, and an unknown id are Dead with no error', async () => {
  for (const version of [0, 3, 5]) {
    const r = await describeGroups(version, ['cg', 'mixed', 'nowhere', 'classic']);
    assert.deepEqual(
      r.groups.map((g) => [g.groupId, g.errorCode, g.groupState, g.protocolType, g.members.length]),
      [
        ['cg', 0, 'Dead', '', 0],
        ['mixed', 0, 'Dead', '', 0],
        ['nowhere', 0, 'Dead', '', 0],
        ['classic', 0, 'Stable', 'consumer', 1],
      ],
      `v${version}`,
    );
  }
});

test('DescribeGroups v6: GROUP_ID_NOT_FOUND with Kafka 4 messages; a classic group as before', async () => {
  const r = await describeGroups(6, ['cg', 'mixed', 'nowhere', 'classic']);
  assert.deepEqual(
    r.groups.map((g) => [g.groupId, g.errorCode, g.errorMessage, g.groupState, g.members.length]),
    [
      ['cg', ErrorCode.GROUP_ID_NOT_FOUND, 'Group cg is not a classic group.', 'Dead', 0],
      ['mixed', ErrorCode.GROUP_ID_NOT_FOUND, 'Group mixed is not a classic group.', 'Dead', 0],
      ['nowhere', ErrorCode.GROUP_ID_NOT_FOUND, 'Group nowhere not found.', 'Dead', 0],
      ['classic', 0, null, 'Stable', 1],
    ],
  );
  const classic = r.groups[3]!;
  assert.equal(classic.protocolData, 'range');
  assert.ok(classic.members[0]!.memberAssignment.length > 0, 'a Stable group shows the assignment');
  // Authorized operations only for a group that was described.
  assert.equal(r.groups[0]!.authorizedOperations, -2147483648);
  assert.notEqual(classic.authorizedOperations, -2147483648);
});

test('ListGroups: the type of every group (v5), TypesFilter and StatesFilter case-insensitive', async () => {
  const list = async (version: number, statesFilter: string[], typesFilter: string[]) =>
    (await c.request(listGroupsApi, version, { statesFilter, typesFilter })).groups
      .map((g) => `${g.groupId}:${g.groupType}:${g.groupState}:${g.protocolType}`)
      .sort();
  assert.deepEqual(await list(5, [], []), [
    'cg:consumer:Stable:consumer',
    'classic:classic:Stable:consumer',
    'mixed:consumer:Reconciling:consumer',
  ]);
  assert.deepEqual(await list(5, [], ['Consumer']), [
    'cg:consumer:Stable:consumer',
    'mixed:consumer:Reconciling:consumer',
  ]);
  assert.deepEqual(await list(5, [], ['CLASSIC']), ['classic:classic:Stable:consumer']);
  assert.deepEqual(await list(5, [], ['share']), [], 'a type no group has');
  assert.deepEqual(await list(5, ['STABLE'], ['consumer', 'classic']), [
    'cg:consumer:Stable:consumer',
    'classic:classic:Stable:consumer',
  ]);
  assert.deepEqual(await list(5, ['empty', 'RECONCILING'], []), ['mixed:consumer:Reconciling:consumer']);
  assert.deepEqual(await list(5, [' stable '], ['consumer']), ['cg:consumer:Stable:consumer']);
  // v4 filters by state only; the type is not on the wire.
  assert.deepEqual(await list(4, ['stable'], ['consumer']), [
    'cg::Stable:consumer',
    'classic::Stable:consumer',
  ]);
});

test('ConsumerGroupDescribe v1: MemberType 0 for a classic member, 1 for the others; v0 has none', async () => {
  const v1 = await c.request(consumerGroupDescribeApi, 1, {
    groupIds: ['mixed', 'cg'],
    includeAuthorizedOperations: false,
  });
  const mixed = v1.groups[0]!;
  assert.equal(mixed.errorCode, 0);
  assert.equal(mixed.groupState, 'Reconciling');
  assert.equal(mixed.assignorName, 'uniform');
  assert.equal(mixed.groupEpoch, 2, 'one epoch per member that joined');
  assert.equal(mixed.assignmentEpoch, 2);
  const byType = new Map(mixed.members.map((m) => [m.memberType, m]));
  assert.deepEqual([...byType.keys()].sort(), [0, 1]);
  assert.equal(byType.get(1)!.memberId, 'mixed-m1');
  const classicMember = byType.get(0)!;
  assert.equal(classicMember.clientId, 'raw-test');
  assert.deepEqual(classicMember.subscribedTopicNames, [TOPIC]);
  const owned = mixed.members.flatMap((m) => m.targetAssignment.topicPartitions.flatMap((t) => t.partitions));
  assert.deepEqual(owned.sort(), [0, 1, 2, 3], 'the target splits the four partitions between both');
  assert.deepEqual(
    v1.groups[1]!.members.map((m) => m.memberType),
    [1],
  );
  const v0 = await c.request(consumerGroupDescribeApi, 0, {
    groupIds: ['mixed'],
    includeAuthorizedOperations: false,
  });
  assert.deepEqual(
    v0.groups[0]!.members.map((m) => m.memberType),
    [-1, -1],
    'v0 carries no member type (the decoder default)',
  );
});

test('ConsumerGroupDescribe: a classic group, an unknown id and an empty id', async () => {
  const r = await c.request(consumerGroupDescribeApi, 1, {
    groupIds: ['classic', 'nowhere', ''],
    includeAuthorizedOperations: true,
  });
  assert.deepEqual(
    r.groups.map((g) => [g.groupId, g.errorCode, g.errorMessage, g.members.length, g.authorizedOperations]),
    [
      ['classic', ErrorCode.GROUP_ID_NOT_FOUND, 'Group classic is not a consumer group.', 0, -2147483648],
      ['nowhere', ErrorCode.GROUP_ID_NOT_FOUND, 'Group nowhere not found.', 0, -2147483648],
      ['', ErrorCode.INVALID_GROUP_ID, null, 0, -2147483648],
    ],
  );
});

// ---- malformed and hostile frames ----

/** A request frame: request header v1 (v2 with `flexible`: an empty tag section), then `body`. */
function frame(apiKey: number, version: number, flexible: boolean, body: Buffer, size?: number): Buffer {
  const client = Buffer.from('bad');
  const header = Buffer.alloc(8 + 2 + client.length + (flexible ? 1 : 0));
  header.writeInt16BE(apiKey, 0);
  header.writeInt16BE(version, 2);
  header.writeInt32BE(7, 4);
  header.writeInt16BE(client.length, 8);
  client.copy(header, 10);
  const all = Buffer.concat([header, body]);
  const prefix = Buffer.alloc(4);
  prefix.writeInt32BE(size ?? all.length);
  return Buffer.concat([prefix, all]);
}

async function expectClosed(bytes: Buffer, what: string): Promise<void> {
  const bad = await RawClient.connect(broker.port);
  try {
    bad.send(bytes);
    assert.equal(await bad.nextFrame(3000), null, `${what}: no response`);
    assert.equal(await bad.waitClosed(), true, `${what}: connection closed`);
  } finally {
    bad.close();
  }
  // Everyone else is still served.
  const r = await describeGroups(6, ['classic']);
  assert.equal(r.groups[0]?.errorCode, 0, `after ${what}`);
}

test('malformed ConsumerGroupDescribe and DescribeGroups frames close that connection only', async () => {
  // ConsumerGroupDescribe v1 (flexible): compact array of compact strings, a bool, tags.
  const good69 = Buffer.from([2, 3, 0x61, 0x62, 0, 0]); // ["ab"], false, no tags
  await expectClosed(frame(69, 1, true, good69.subarray(0, 3)), 'ConsumerGroupDescribe cut short');
  await expectClosed(frame(69, 1, true, Buffer.from([0, 0, 0])), 'ConsumerGroupDescribe with null GroupIds');
  await expectClosed(
    frame(69, 1, true, Buffer.from([0xff, 0xff, 0xff, 0xff, 0x07, 0, 0])),
    'ConsumerGroupDescribe claiming 2^31-2 group ids',
  );
  await expectClosed(
    frame(69, 1, true, Buffer.from([2, 0, 0, 0])),
    'ConsumerGroupDescribe with a null group id',
  );
  await expectClosed(frame(69, 2, true, good69), 'ConsumerGroupDescribe v2, which does not exist');
  // DescribeGroups v5 (classic encoding): int32 array length, int16 string lengths, a bool.
  await expectClosed(
    frame(15, 5, false, Buffer.from([0, 0, 0, 1, 0xff, 0xff, 0])),
    'DescribeGroups v5 with a null group id',
  );
  await expectClosed(
    frame(15, 5, false, Buffer.from([0x7f, 0xff, 0xff, 0xff, 0, 1, 0x61, 0])),
    'DescribeGroups v5 claiming 2^31-1 groups',
  );
  // v6 is flexible: compact encodings.
  await expectClosed(
    frame(15, 6, true, Buffer.from([2, 40, 0x61])),
    'DescribeGroups v6 with a string cut short',
  );
  await expectClosed(frame(15, 7, true, Buffer.from([1, 0, 0])), 'DescribeGroups v7, which does not exist');
  // The same bytes, well formed, are answered.
  const ok = await RawClient.connect(broker.port);
  try {
    ok.send(frame(69, 1, true, good69));
    assert.ok((await ok.nextFrame()) !== null, 'a well-formed frame is answered');
  } finally {
    ok.close();
  }
});

test('hostile but well-formed describes are answered: thousands of ids, long ids, odd bytes', async () => {
  const ids = Array.from({ length: 2000 }, (_, i) => `g-${i}-${'x'.repeat(i % 300)}`);
  const many = await c.request(consumerGroupDescribeApi, 1, {
    groupIds: ids,
    includeAuthorizedOperations: true,
  });
  assert.equal(many.groups.length, ids.length);
  assert.ok(
    many.groups.every((g, i) => g.groupId === ids[i] && g.errorCode === ErrorCode.GROUP_ID_NOT_FOUND),
  );
  const long = 'L'.repeat(32_767);
  const d = await describeGroups(6, [long, '\u0000\uffff', '']);
  assert.deepEqual(
    d.groups.map((g) => [g.groupId.length, g.errorCode]),
    [
      [32_767, ErrorCode.GROUP_ID_NOT_FOUND],
      [2, ErrorCode.GROUP_ID_NOT_FOUND],
      [0, ErrorCode.GROUP_ID_NOT_FOUND],
    ],
  );
  assert.equal((await describeGroups(6, ['classic'])).groups[0]?.errorCode, 0);
});

test('the Admin client describes both kinds; without the consumer protocol it asks DescribeGroups alone', async () => {
  const admin = new Admin({ bootstrapServers: broker.bootstrap });
  try {
    const [mixed, classic, nowhere] = await admin.describeGroups(['mixed', 'classic', 'nowhere']);
    assert.deepEqual(
      [mixed!.type, mixed!.state, mixed!.groupEpoch, mixed!.members.map((m) => m.upgraded).sort()],
      ['consumer', 'Reconciling', 2, [false, true]],
    );
    assert.deepEqual(
      [classic!.type, classic!.state, classic!.groupEpoch, classic!.members[0]!.assignment.length],
      ['classic', 'Stable', null, 4],
    );
    assert.deepEqual([nowhere!.state, nowhere!.members], ['Dead', []]);
    assert.deepEqual(
      (await admin.listGroups({ types: ['consumer'] })).map((g) => `${g.groupId}:${g.type}`),
      ['cg:consumer', 'mixed:consumer'],
    );
  } finally {
    await admin.close();
  }
  const old = await startTestBroker({ overrides: { 'group.coordinator.rebalance.protocols': 'classic' } });
  const oldAdmin = new Admin({ bootstrapServers: old.bootstrap });
  try {
    await oldAdmin.createTopics([{ name: TOPIC, numPartitions: 1, replicationFactor: 1 }]);
    await oldAdmin.alterConsumerGroupOffsets('offsets-only', [{ topic: TOPIC, partition: 0, offset: 0n }]);
    const [g, none] = await oldAdmin.describeGroups(['offsets-only', 'none']);
    assert.deepEqual([g!.type, g!.state, none!.state], ['classic', 'Empty', 'Dead']);
  } finally {
    await oldAdmin.close();
    await old.close();
  }
});
