// Raw frames against an in-process broker: KIP-848 offset fencing (OffsetCommit v9 and
// OffsetFetch v9 with member id and epoch), a classic member in a consumer group through
// JoinGroup/SyncGroup/Heartbeat/LeaveGroup and its error codes, hostile JoinGroup metadata, and
// group.consumer.migration.policy read from the broker's configuration.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Admin } from '../../../src/client/admin/admin.js';
import {
  decodeAssignment,
  encodeAssignment,
  encodeSubscription,
} from '../../../src/client/consumer/assignors/consumer-protocol.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { consumerGroupHeartbeatApi } from '../../../src/protocol/messages/generated/consumer-group-heartbeat.js';
import { findCoordinatorApi } from '../../../src/protocol/messages/generated/find-coordinator.js';
import { heartbeatApi } from '../../../src/protocol/messages/generated/heartbeat.js';
import { type JoinGroupRequest, joinGroupApi } from '../../../src/protocol/messages/generated/join-group.js';
import { leaveGroupApi } from '../../../src/protocol/messages/generated/leave-group.js';
import { listGroupsApi } from '../../../src/protocol/messages/generated/list-groups.js';
import { offsetCommitApi } from '../../../src/protocol/messages/generated/offset-commit.js';
import { offsetFetchApi } from '../../../src/protocol/messages/generated/offset-fetch.js';
import { syncGroupApi } from '../../../src/protocol/messages/generated/sync-group.js';
import { startTestBroker, type TestBroker } from '../../../src/testkit/index.js';
import { RawClient } from '../support/raw-client.js';

const TOPIC = 'wire-topic';
let broker: TestBroker;
let c: RawClient;

async function start(overrides: Record<string, string | number> = {}): Promise<TestBroker> {
  const b = await startTestBroker({
    overrides: { 'offsets.topic.num.partitions': 2, 'group.initial.rebalance.delay.ms': 0, ...overrides },
  });
  const admin = new Admin({ bootstrapServers: b.bootstrap });
  try {
    await admin.createTopics([{ name: TOPIC, numPartitions: 2, replicationFactor: 1 }]);
  } finally {
    await admin.close();
  }
  return b;
}

before(async () => {
  broker = await start();
  c = await RawClient.connect(broker.port);
  // Creates __consumer_offsets.
  await c.request(findCoordinatorApi, 4, { key: '', keyType: 0, coordinatorKeys: ['wire-group'] });
});
after(async () => {
  c?.close();
  await broker?.close();
});

const join = (raw: RawClient, groupId: string, memberId: string, epoch: number) =>
  raw.request(consumerGroupHeartbeatApi, 1, {
    groupId,
    memberId,
    memberEpoch: epoch,
    instanceId: null,
    rackId: null,
    rebalanceTimeoutMs: epoch === 0 ? 30_000 : -1,
    subscribedTopicNames: epoch === 0 ? [TOPIC] : null,
    subscribedTopicRegex: null,
    serverAssignor: null,
    topicPartitions: epoch === 0 ? [] : null,
  });

const commit = (raw: RawClient, version: number, groupId: string, memberId: string, epoch: number) =>
  raw
    .request(offsetCommitApi, version, {
      groupId,
      generationIdOrMemberEpoch: epoch,
      memberId,
      groupInstanceId: null,
      retentionTimeMs: -1n,
      topics: [
        {
          name: TOPIC,
          partitions: [
            {
              partitionIndex: 0,
              committedOffset: 5n,
              committedLeaderEpoch: -1,
              commitTimestamp: -1n,
              committedMetadata: null,
            },
          ],
        },
      ],
    })
    .then((r) => r.topics[0]!.partitions[0]!.errorCode);

const fetch = (
  raw: RawClient,
  version: number,
  groupId: string,
  memberId: string | null,
  memberEpoch: number,
) =>
  raw
    .request(offsetFetchApi, version, {
      groupId,
      topics: null,
      groups: [{ groupId, memberId, memberEpoch, topics: [{ name: TOPIC, partitionIndexes: [0] }] }],
      requireStable: true,
    })
    .then((r) => r.groups[0]!);

const subscription = (topics: string[]) =>
  encodeSubscription({ topics, userData: null, ownedPartitions: [], generationId: -1, rackId: null }, 1);

function joinReq(groupId: string, memberId: string, extra: Partial<JoinGroupRequest> = {}): JoinGroupRequest {
  return {
    groupId,
    sessionTimeoutMs: 10_000,
    rebalanceTimeoutMs: 30_000,
    memberId,
    groupInstanceId: null,
    protocolType: 'consumer',
    protocols: [{ name: 'range', metadata: subscription([TOPIC]) }],
    reason: null,
    ...extra,
  };
}

async function groupType(raw: RawClient, groupId: string): Promise<string | undefined> {
  const r = await raw.request(listGroupsApi, 5, { statesFilter: [], typesFilter: [] });
  return r.groups.find((g) => g.groupId === groupId)?.groupType;
}

test('OffsetCommit v9 and OffsetFetch v9 are fenced by member id and epoch', async () => {
  const g = 'wire-group';
  const joined = await join(c, g, 'wire-m1', 0);
  assert.equal(joined.errorCode, 0);
  const epoch = joined.memberEpoch;
  assert.equal(await commit(c, 9, g, 'wire-m1', epoch), 0);
  assert.equal(await commit(c, 9, g, 'wire-m1', epoch + 1), ErrorCode.STALE_MEMBER_EPOCH);
  assert.equal(await commit(c, 9, g, 'wire-ghost', epoch), ErrorCode.UNKNOWN_MEMBER_ID);
  assert.equal(
    await commit(c, 8, g, 'wire-m1', epoch),
    ErrorCode.UNSUPPORTED_VERSION,
    'a KIP-848 member commits with v9+',
  );
  assert.equal(
    await commit(c, 9, g, '', -1),
    ErrorCode.UNKNOWN_MEMBER_ID,
    'no simple commits while it has members',
  );
  assert.equal(await commit(c, 9, 'wire-nobody', 'x', 3), ErrorCode.GROUP_ID_NOT_FOUND);
  assert.equal(await commit(c, 8, 'wire-nobody', 'x', 3), ErrorCode.ILLEGAL_GENERATION);

  const ok = await fetch(c, 9, g, 'wire-m1', epoch);
  assert.equal(ok.errorCode, 0);
  assert.equal(ok.topics[0]?.partitions[0]?.committedOffset, 5n);
  assert.equal((await fetch(c, 9, g, 'wire-m1', epoch + 3)).errorCode, ErrorCode.STALE_MEMBER_EPOCH);
  assert.equal((await fetch(c, 9, g, 'wire-ghost', epoch)).errorCode, ErrorCode.UNKNOWN_MEMBER_ID);
  assert.equal((await fetch(c, 9, g, '', -1)).errorCode, ErrorCode.UNKNOWN_MEMBER_ID);
  assert.equal((await fetch(c, 9, g, null, -1)).topics[0]?.partitions[0]?.committedOffset, 5n, 'an admin');
  assert.equal((await fetch(c, 8, g, 'ignored', 99)).errorCode, 0, 'v8 has no member fields');
  assert.equal((await join(c, g, 'wire-m1', -1)).errorCode, 0);
});

test('a classic member in a consumer group: JoinGroup, SyncGroup, Heartbeat, OffsetCommit, LeaveGroup and their errors', async () => {
  const g = 'wire-mixed';
  const m = await join(c, g, 'wire-modern', 0);
  assert.equal(m.errorCode, 0);
  const required = await c.request(joinGroupApi, 5, joinReq(g, ''));
  assert.equal(required.errorCode, ErrorCode.MEMBER_ID_REQUIRED);
  const memberId = required.memberId;
  const j = await c.request(joinGroupApi, 5, joinReq(g, memberId));
  assert.equal(j.errorCode, 0);
  assert.equal(j.generationId, m.memberEpoch + 1, 'the member epoch is the generation');
  assert.equal(j.protocolName, 'range');
  assert.equal(j.leader, '');
  assert.deepEqual(j.members, []);
  assert.equal(await groupType(c, g), 'consumer');
  const sync = (generationId: number, protocolName: string | null = 'range') =>
    c.request(syncGroupApi, 5, {
      groupId: g,
      generationId,
      memberId,
      groupInstanceId: null,
      protocolType: 'consumer',
      protocolName,
      assignments: [],
    });
  assert.equal((await sync(j.generationId + 1)).errorCode, ErrorCode.ILLEGAL_GENERATION);
  assert.equal((await sync(j.generationId, 'roundrobin')).errorCode, ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
  const s = await sync(j.generationId);
  assert.equal(s.errorCode, 0);
  // Both partitions are still the other member's: nothing yet, in the embedded protocol.
  assert.deepEqual(decodeAssignment(s.assignment).partitions, []);
  const hb = (memberId2: string, generationId: number) =>
    c.request(heartbeatApi, 3, { groupId: g, generationId, memberId: memberId2, groupInstanceId: null });
  assert.equal((await hb(memberId, j.generationId + 1)).errorCode, ErrorCode.ILLEGAL_GENERATION);
  assert.equal((await hb('wire-modern', m.memberEpoch)).errorCode, ErrorCode.UNKNOWN_MEMBER_ID);
  assert.equal((await hb(memberId, j.generationId)).errorCode, 0);
  // The other member gives a partition up; then this one is told to rejoin for it.
  await join(c, g, 'wire-modern', m.memberEpoch);
  const acked = await c.request(consumerGroupHeartbeatApi, 1, {
    groupId: g,
    memberId: 'wire-modern',
    memberEpoch: m.memberEpoch,
    instanceId: null,
    rackId: null,
    rebalanceTimeoutMs: -1,
    subscribedTopicNames: null,
    subscribedTopicRegex: null,
    serverAssignor: null,
    topicPartitions: [{ topicId: m.assignment!.topicPartitions[0]!.topicId, partitions: [0] }],
  });
  assert.equal(acked.errorCode, 0);
  assert.equal((await hb(memberId, j.generationId)).errorCode, ErrorCode.REBALANCE_IN_PROGRESS);
  const again = await c.request(joinGroupApi, 5, joinReq(g, memberId));
  const s2 = await sync(again.generationId);
  assert.equal(decodeAssignment(s2.assignment).partitions.length, 1);
  // Its commits carry the generation, any version: a mismatch is ILLEGAL_GENERATION.
  assert.equal(await commit(c, 7, g, memberId, again.generationId), 0);
  assert.equal(await commit(c, 7, g, memberId, again.generationId - 1), ErrorCode.ILLEGAL_GENERATION);
  assert.equal(
    (await fetch(c, 9, g, memberId, again.generationId + 1)).errorCode,
    ErrorCode.ILLEGAL_GENERATION,
  );
  // Hostile or foreign JoinGroups are refused; the broker keeps serving.
  const garbage = await c.request(
    joinGroupApi,
    5,
    joinReq(g, '', { protocols: [{ name: 'range', metadata: Buffer.from([0, 3, 0x7f, 0xff, 0xff, 0xff]) }] }),
  );
  assert.equal(garbage.errorCode, ErrorCode.MEMBER_ID_REQUIRED, 'the id is handed out first');
  const garbage2 = await c.request(
    joinGroupApi,
    5,
    joinReq(g, garbage.memberId, {
      protocols: [{ name: 'range', metadata: Buffer.from([0, 3, 0x7f, 0xff, 0xff, 0xff]) }],
    }),
  );
  assert.equal(garbage2.errorCode, ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
  const connect = await c.request(joinGroupApi, 5, joinReq(g, 'x', { protocolType: 'connect' }));
  assert.equal(connect.errorCode, ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
  const left = await c.request(leaveGroupApi, 3, {
    groupId: g,
    memberId: '',
    members: [
      { memberId, groupInstanceId: null, reason: null },
      { memberId: 'wire-modern', groupInstanceId: null, reason: null },
    ],
  });
  assert.deepEqual(
    left.members.map((x) => x.errorCode),
    [0, ErrorCode.UNKNOWN_MEMBER_ID],
  );
  assert.equal(await groupType(c, g), 'consumer');
});

test('group.consumer.migration.policy from the broker config: disabled refuses the upgrade, the default allows it', async () => {
  const disabled = await start({ 'group.consumer.migration.policy': 'DISABLED' });
  try {
    for (const [b, expected] of [
      [disabled, ErrorCode.GROUP_ID_NOT_FOUND],
      [broker, ErrorCode.NONE],
    ] as const) {
      const raw = await RawClient.connect(b.port);
      try {
        await raw.request(findCoordinatorApi, 4, { key: '', keyType: 0, coordinatorKeys: ['wire-policy'] });
        const first = await raw.request(joinGroupApi, 5, joinReq('wire-policy', ''));
        const j = await raw.request(joinGroupApi, 5, joinReq('wire-policy', first.memberId));
        assert.equal(j.errorCode, 0);
        const s = await raw.request(syncGroupApi, 5, {
          groupId: 'wire-policy',
          generationId: j.generationId,
          memberId: j.memberId,
          groupInstanceId: null,
          protocolType: 'consumer',
          protocolName: 'range',
          assignments: [
            {
              memberId: j.memberId,
              assignment: encodeAssignment({
                partitions: [
                  { topic: TOPIC, partition: 0 },
                  { topic: TOPIC, partition: 1 },
                ],
                userData: null,
              }),
            },
          ],
        });
        assert.equal(s.errorCode, 0);
        const r = await join(raw, 'wire-policy', 'wire-policy-m', 0);
        assert.equal(r.errorCode, expected);
        assert.equal(await groupType(raw, 'wire-policy'), expected === 0 ? 'consumer' : 'classic');
        const hb = await raw.request(heartbeatApi, 3, {
          groupId: 'wire-policy',
          generationId: j.generationId,
          memberId: j.memberId,
          groupInstanceId: null,
        });
        assert.equal(hb.errorCode, expected === 0 ? ErrorCode.REBALANCE_IN_PROGRESS : 0);
      } finally {
        raw.close();
      }
    }
  } finally {
    await disabled.close();
  }
});
