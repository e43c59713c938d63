// The broker restarts (clean, then SIGKILL) under an active group: committed offsets, group
// metadata, member ids and generations survive, and a kafkajs consumer resumes from its
// committed offsets without consuming anything twice.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { Kafka, logLevel } from 'kafkajs';
import { ErrorCode } from '../../src/protocol/errors.js';
import { findCoordinatorApi } from '../../src/protocol/messages/generated/find-coordinator.js';
import { heartbeatApi } from '../../src/protocol/messages/generated/heartbeat.js';
import { joinGroupApi } from '../../src/protocol/messages/generated/join-group.js';
import { offsetCommitApi } from '../../src/protocol/messages/generated/offset-commit.js';
import { offsetFetchApi } from '../../src/protocol/messages/generated/offset-fetch.js';
import { syncGroupApi } from '../../src/protocol/messages/generated/sync-group.js';
import { RawClient } from '../broker/support/raw-client.js';
import { scaled } from '../support/timeouts.js';
import { waitFor } from './support/consumer-procs.js';
import { BrokerProcess } from './support/groups-broker.js';

test('groups and offsets survive clean and SIGKILL restarts', { timeout: scaled(600_000) }, async () => {
  const broker = await BrokerProcess.create({ 'group.initial.rebalance.delay.ms': 0 });
  after(() => broker.destroy());
  await broker.start();
  const kafka = new Kafka({
    brokers: [broker.bootstrap],
    logLevel: logLevel.NOTHING,
    retry: { retries: 30, initialRetryTime: 200, maxRetryTime: 1000 },
  });
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic: 'r', numPartitions: 3 }] });
  const producer = kafka.producer();
  await producer.connect();
  const send = (n: number, from: number) =>
    producer.send({
      topic: 'r',
      messages: Array.from({ length: n }, (_, i) => ({ key: String(from + i), value: String(from + i) })),
    });
  await send(300, 0);

  // A raw member with a long session: its id and generation must outlive the restarts.
  const raw = async () => {
    const c = await RawClient.connect(broker.port);
    await c.request(findCoordinatorApi, 0, { key: 'raw', keyType: 0, coordinatorKeys: [] });
    return c;
  };
  let rc = await raw();
  const joined = await rc.request(joinGroupApi, 3, {
    groupId: 'raw',
    sessionTimeoutMs: 60_000,
    rebalanceTimeoutMs: 60_000,
    memberId: '',
    groupInstanceId: null,
    protocolType: 'consumer',
    protocols: [{ name: 'range', metadata: Buffer.from([0, 0, 0, 0, 0, 0, 255, 255, 255, 255]) }],
    reason: null,
  });
  await rc.request(syncGroupApi, 3, {
    groupId: 'raw',
    generationId: joined.generationId,
    memberId: joined.memberId,
    groupInstanceId: null,
    protocolType: null,
    protocolName: null,
    assignments: [{ memberId: joined.memberId, assignment: Buffer.from('mine') }],
  });
  const rawCommit = (offset: bigint) =>
    rc.request(offsetCommitApi, 2, {
      groupId: 'raw',
      generationIdOrMemberEpoch: joined.generationId,
      memberId: joined.memberId,
      groupInstanceId: null,
      retentionTimeMs: -1n,
      topics: [
        {
          name: 'r',
          partitions: [
            {
              partitionIndex: 1,
              committedOffset: offset,
              committedLeaderEpoch: -1,
              commitTimestamp: -1n,
              committedMetadata: 'm',
            },
          ],
        },
      ],
    });
  // After a restart the coordinator may still be loading its partition: OffsetFetch answers
  // COORDINATOR_LOAD_IN_PROGRESS (offset -1) until it is done, and clients retry, as here.
  const rawFetch = async () => {
    const deadline = Date.now() + scaled(60_000);
    for (;;) {
      const p = (
        await rc.request(offsetFetchApi, 1, {
          groupId: 'raw',
          topics: [{ name: 'r', partitionIndexes: [1] }],
          groups: [],
          requireStable: false,
        })
      ).topics[0]?.partitions[0];
      if (p?.errorCode !== ErrorCode.COORDINATOR_LOAD_IN_PROGRESS || Date.now() > deadline) {
        assert.equal(p?.errorCode, ErrorCode.NONE, 'OffsetFetch');
        return p?.committedOffset;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const rawHeartbeat = async () =>
    (
      await rc.request(heartbeatApi, 0, {
        groupId: 'raw',
        generationId: joined.generationId,
        memberId: joined.memberId,
        groupInstanceId: null,
      })
    ).errorCode;

  const seen: string[] = [];
  const consumer = kafka.consumer({ groupId: 'g', sessionTimeout: 30_000, heartbeatInterval: 1000 });
  await consumer.connect();
  await consumer.subscribe({ topic: 'r', fromBeginning: true });
  await consumer.run({ eachMessage: async ({ message }) => void seen.push(String(message.value)) });
  await waitFor(() => seen.length === 300, 30_000, 'first 300');

  let next = 300;
  for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
    assert.equal((await rawCommit(BigInt(next)))[`topics`][0]?.partitions[0]?.errorCode, ErrorCode.NONE);
    await waitFor(() => seen.length === next, 10_000, 'caught up');
    await new Promise((r) => setTimeout(r, 1500)); // let kafkajs commit
    const before = await admin.fetchOffsets({ groupId: 'g', topics: ['r'] });
    rc.close();
    await broker.stop(signal);
    await broker.start();
    rc = await raw();
    assert.equal(await rawFetch(), BigInt(next), `raw offset after ${signal}`);
    assert.equal(await rawHeartbeat(), ErrorCode.NONE, `member and generation after ${signal}`);
    const afterRestart = await admin.fetchOffsets({ groupId: 'g', topics: ['r'] });
    assert.deepEqual(afterRestart, before, `consumer offsets after ${signal}`);
    await send(100, next);
    next += 100;
    await waitFor(() => seen.length >= next, 40_000, `consumer resumes after ${signal}`);
  }
  await new Promise((r) => setTimeout(r, 500));
  assert.equal(seen.length, next, 'nothing consumed twice');
  assert.equal(new Set(seen).size, next);
  const d = (await admin.describeGroups(['raw'])).groups[0];
  assert.equal(d?.state, 'Stable');
  assert.equal(d?.members[0]?.memberAssignment.toString(), 'mine');
  rc.close();
  await consumer.disconnect();
  await producer.disconnect();
  await admin.disconnect();
});
