// Error answers of the group APIs over the wire, against a real broker: invalid session
// timeout, wrong protocol type, MEMBER_ID_REQUIRED, stale generation, unknown member, commits
// during a rebalance and into a live group without a member, fenced static instances.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { Admin } from '../../src/client/index.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { findCoordinatorApi } from '../../src/protocol/messages/generated/find-coordinator.js';
import { heartbeatApi } from '../../src/protocol/messages/generated/heartbeat.js';
import { type JoinGroupRequest, joinGroupApi } from '../../src/protocol/messages/generated/join-group.js';
import { offsetCommitApi } from '../../src/protocol/messages/generated/offset-commit.js';
import { syncGroupApi } from '../../src/protocol/messages/generated/sync-group.js';
import { startTestBroker } from '../../src/testkit/index.js';
import { RawClient } from '../broker/support/raw-client.js';
import { scaled } from '../support/timeouts.js';

const join = (memberId: string, extra: Partial<JoinGroupRequest> = {}): JoinGroupRequest => ({
  groupId: 'eg',
  sessionTimeoutMs: 10_000,
  rebalanceTimeoutMs: 10_000,
  memberId,
  groupInstanceId: null,
  protocolType: 'consumer',
  protocols: [{ name: 'range', metadata: Buffer.from([0, 0, 0, 0, 0, 0, 255, 255, 255, 255]) }],
  reason: null,
  ...extra,
});

const commit = (generationIdOrMemberEpoch: number, memberId: string) => ({
  groupId: 'eg',
  generationIdOrMemberEpoch,
  memberId,
  groupInstanceId: null,
  retentionTimeMs: -1n,
  topics: [
    {
      name: 't',
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
});

test('group API errors over the wire', { timeout: scaled(180_000) }, async () => {
  const broker = await startTestBroker({ overrides: { 'group.initial.rebalance.delay.ms': 0 } });
  // The commits name an existing topic (an unknown one is answered UNKNOWN_TOPIC_OR_PARTITION first).
  const admin = new Admin({ bootstrapServers: broker.bootstrap });
  await admin.createTopics([{ name: 't', numPartitions: 1, replicationFactor: 1 }]);
  await admin.close();
  const clients: RawClient[] = [];
  const client = async () => {
    const c = await RawClient.connect(broker.port);
    clients.push(c);
    return c;
  };
  after(async () => {
    for (const c of clients) c.close();
    await broker.close();
  });
  const a = await client();
  const fc = await a.request(findCoordinatorApi, 3, { key: 'eg', keyType: 0, coordinatorKeys: [] });
  assert.equal(fc.errorCode, ErrorCode.NONE);
  assert.equal(fc.nodeId, broker.nodeId);
  assert.equal(fc.port, broker.port);
  const batched = await a.request(findCoordinatorApi, 4, {
    key: '',
    keyType: 0,
    coordinatorKeys: ['eg', 'other'],
  });
  assert.deepEqual(
    batched.coordinators.map((c) => [c.key, c.errorCode]),
    [
      ['eg', 0],
      ['other', 0],
    ],
  );

  assert.equal(
    (await a.request(joinGroupApi, 3, join('', { sessionTimeoutMs: 1000 }))).errorCode,
    ErrorCode.INVALID_SESSION_TIMEOUT,
  );
  // (Another group: a pending member id would hold the rebalances below until it expires.)
  const required = await a.request(joinGroupApi, 4, join('', { groupId: 'eg-v4' }));
  assert.equal(required.errorCode, ErrorCode.MEMBER_ID_REQUIRED);
  assert.ok(required.memberId.length > 0);

  const ja = await a.request(joinGroupApi, 3, join(''));
  assert.equal(ja.errorCode, ErrorCode.NONE);
  assert.equal(ja.leader, ja.memberId);
  assert.equal(
    (await a.request(joinGroupApi, 3, join('', { protocolType: 'connect' }))).errorCode,
    ErrorCode.INCONSISTENT_GROUP_PROTOCOL,
  );
  const sa = await a.request(syncGroupApi, 3, {
    groupId: 'eg',
    generationId: ja.generationId,
    memberId: ja.memberId,
    groupInstanceId: null,
    protocolType: null,
    protocolName: null,
    assignments: [{ memberId: ja.memberId, assignment: Buffer.from('x') }],
  });
  assert.equal(sa.errorCode, ErrorCode.NONE);
  assert.equal(sa.assignment.toString(), 'x');

  const hb = (c: RawClient, generationId: number, memberId: string, groupInstanceId: string | null = null) =>
    c
      .request(heartbeatApi, 3, { groupId: 'eg', generationId, memberId, groupInstanceId })
      .then((r) => r.errorCode);
  assert.equal(await hb(a, ja.generationId, ja.memberId), ErrorCode.NONE);
  assert.equal(await hb(a, ja.generationId - 1, ja.memberId), ErrorCode.ILLEGAL_GENERATION);
  assert.equal(await hb(a, ja.generationId, 'nobody'), ErrorCode.UNKNOWN_MEMBER_ID);
  const codeOf = (r: { topics: Array<{ partitions: Array<{ errorCode: number }> }> }) =>
    r.topics[0]?.partitions[0]?.errorCode;
  assert.equal(
    codeOf(await a.request(offsetCommitApi, 2, commit(ja.generationId, ja.memberId))),
    ErrorCode.NONE,
  );
  assert.equal(
    codeOf(await a.request(offsetCommitApi, 0, commit(-1, ''))),
    ErrorCode.UNKNOWN_MEMBER_ID,
    'no simple commits into a live group',
  );

  // A second member joins: the group rebalances; its JoinGroup waits for a's.
  const b = await client();
  const jbPending = b.request(joinGroupApi, 3, join(''));
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(await hb(a, ja.generationId, ja.memberId), ErrorCode.REBALANCE_IN_PROGRESS);
  assert.equal(
    codeOf(await a.request(offsetCommitApi, 2, commit(ja.generationId, ja.memberId))),
    ErrorCode.NONE,
    'commits of the old generation still allowed while preparing',
  );
  const ja2 = await a.request(joinGroupApi, 3, join(ja.memberId));
  const jb = await jbPending;
  assert.equal(ja2.generationId, ja.generationId + 1);
  assert.equal(jb.generationId, ja2.generationId);
  assert.equal(
    codeOf(await a.request(offsetCommitApi, 2, commit(ja2.generationId, ja.memberId))),
    ErrorCode.REBALANCE_IN_PROGRESS,
    'awaiting the assignment',
  );
  assert.equal(
    codeOf(await a.request(offsetCommitApi, 2, commit(ja.generationId, ja.memberId))),
    ErrorCode.ILLEGAL_GENERATION,
  );

  // Static membership: a restarted instance fences the old member id.
  const s1 = await client();
  const static1 = await s1.request(joinGroupApi, 5, join('', { groupId: 'static', groupInstanceId: 'i1' }));
  assert.equal(static1.errorCode, ErrorCode.NONE);
  await s1.request(syncGroupApi, 3, {
    groupId: 'static',
    generationId: static1.generationId,
    memberId: static1.memberId,
    groupInstanceId: 'i1',
    protocolType: null,
    protocolName: null,
    assignments: [{ memberId: static1.memberId, assignment: Buffer.from('p') }],
  });
  const static2 = await s1.request(joinGroupApi, 5, join('', { groupId: 'static', groupInstanceId: 'i1' }));
  assert.equal(static2.errorCode, ErrorCode.NONE);
  assert.equal(static2.generationId, static1.generationId, 'no rebalance');
  const fenced = await s1.request(heartbeatApi, 3, {
    groupId: 'static',
    generationId: static1.generationId,
    memberId: static1.memberId,
    groupInstanceId: 'i1',
  });
  assert.equal(fenced.errorCode, ErrorCode.FENCED_INSTANCE_ID);
});
