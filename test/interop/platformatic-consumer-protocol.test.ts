// KIP-848 end to end: @platformatic/kafka 1.35 consumers with `groupProtocol: 'consumer'`
// (ConsumerGroupHeartbeat, OffsetCommit/OffsetFetch v9 with member epochs) against an
// in-process broker: two members share the partitions, one leaves, the other gets everything,
// the one that left rejoins and they share again, and after commits nothing is read twice; its admin
// lists the group as a consumer group. Plus raw-frame heartbeat errors.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  Admin,
  Consumer,
  type MessagesStream,
  Producer,
  stringDeserializers,
  stringSerializers,
} from '@platformatic/kafka';
import { Admin as SamsaAdmin } from '../../src/client/admin/admin.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { consumerGroupDescribeApi } from '../../src/protocol/messages/generated/consumer-group-describe.js';
import {
  type ConsumerGroupHeartbeatRequest,
  consumerGroupHeartbeatApi,
} from '../../src/protocol/messages/generated/consumer-group-heartbeat.js';
import { findCoordinatorApi } from '../../src/protocol/messages/generated/find-coordinator.js';
import { startTestBroker, type TestBroker } from '../../src/testkit/index.js';
import { RawClient } from '../broker/support/raw-client.js';
import { scaled, TestTimeoutError } from '../support/timeouts.js';

const TOPIC = 'kip848-topic';
let broker: TestBroker;
let admin: Admin;
let producer: Producer<string, string, string, string>;

before(async () => {
  broker = await startTestBroker({
    overrides: { 'group.consumer.heartbeat.interval.ms': 300, 'offsets.topic.num.partitions': 4 },
  });
  const bootstrapBrokers = [broker.bootstrap];
  admin = new Admin({ clientId: 'k-admin', bootstrapBrokers });
  producer = new Producer({ clientId: 'k-producer', bootstrapBrokers, serializers: stringSerializers });
  await admin.createTopics({ topics: [TOPIC], partitions: 4, replicas: 1 });
});
after(async () => {
  await Promise.all([admin.close(), producer.close()]);
  await broker.close();
});

async function waitFor(what: string, cond: () => boolean | Promise<boolean>, ms = 60_000): Promise<void> {
  const limit = scaled(ms);
  const deadline = Date.now() + limit;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new TestTimeoutError(what, limit);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function newConsumer(name: string): Consumer<string, string, string, string> {
  return new Consumer({
    clientId: name,
    groupId: 'kip848-group',
    groupProtocol: 'consumer',
    bootstrapBrokers: [broker.bootstrap],
    deserializers: stringDeserializers,
    autocommit: false,
    maxWaitTime: 100,
  });
}

/** 40 records, ten per partition, valued `${prefix}0` … `${prefix}39`. */
const batch = (prefix: string) =>
  Array.from({ length: 40 }, (_, i) => ({
    topic: TOPIC,
    partition: i % 4,
    key: `k${i}`,
    value: `${prefix}${i}`,
  }));

type PConsumer = Consumer<string, string, string, string>;
const owned = (c: PConsumer) => c.assignments?.[0]?.partitions.length ?? 0;
const share = (x: PConsumer, y: PConsumer, what: string) =>
  waitFor(what, () => owned(x) === 2 && owned(y) === 2);

/** Waits until the group's committed offsets reach `n` records read (our admin, OffsetFetch). */
async function committed(n: number): Promise<void> {
  const ours = new SamsaAdmin({ bootstrapServers: broker.bootstrap });
  try {
    await waitFor(`commits of the first ${n} records`, async () => {
      const offsets = await ours.listConsumerGroupOffsets('kip848-group');
      return offsets.reduce((sum, o) => sum + Number(o.offset), 0) === n;
    });
  } finally {
    await ours.close();
  }
}

test('two consumer-protocol members share the partitions; one leaves, the other gets all; b rejoins and they share again; nothing read twice after commits', async () => {
  const seen = new Map<string, number>();
  const record = (stream: MessagesStream<string, string, string, string>, who: string[]) => {
    stream.on('data', (m) => {
      seen.set(m.value, (seen.get(m.value) ?? 0) + 1);
      who.push(m.value);
      void m.commit();
    });
  };
  // Closed in the end whatever happens (a member left open keeps the test process alive).
  const open = new Set<{ close(): Promise<void> }>();
  // A stream may still report its last fetch failing once its consumer is closed; any other
  // stream error fails the test.
  const errors: unknown[] = [];
  const start = async (c: PConsumer, who: string[]) => {
    const stream = await c.consume({ topics: [TOPIC], mode: 'committed', fallbackMode: 'earliest' });
    open.add(stream).add(c);
    stream.on('error', (e) => {
      if (open.has(stream)) errors.push(e);
    });
    record(stream, who);
    return stream;
  };
  const stop = async (...xs: { close(): Promise<void> }[]) => {
    for (const x of xs) {
      open.delete(x);
      await x.close();
    }
  };
  try {
    const a = newConsumer('kip848-a');
    const b = newConsumer('kip848-b');
    const gotA: string[] = [];
    const gotB: string[] = [];
    await start(a, gotA);
    await waitFor('member a to own all 4 partitions', () => owned(a) === 4);
    const sb = await start(b, gotB);
    await share(a, b, 'a and b to share the partitions');
    await producer.send({ messages: batch('v') });
    await waitFor('the first 40 messages', () => seen.size === 40);
    assert.ok(gotA.length > 0 && gotB.length > 0, `both read: a=${gotA.length} b=${gotB.length}`);
    // Once the commits are in, b leaves: a gets every partition.
    await committed(40);
    await stop(sb, b);
    await waitFor('a to own all 4 partitions again', () => owned(a) === 4);
    await producer.send({ messages: batch('w') });
    await waitFor('all 80 messages', () => seen.size === 80);
    // b rejoins (a new instance, as after a restart): the partitions are shared again, and it
    // starts after what was committed.
    await committed(80);
    const b2 = newConsumer('kip848-b');
    const gotB2: string[] = [];
    await start(b2, gotB2);
    await share(a, b2, 'a and the rejoined b to share the partitions');
    await producer.send({ messages: batch('x') });
    await waitFor('all 120 messages', () => seen.size === 120);
    assert.ok(gotB2.length > 0 && gotB2.every((v) => v.startsWith('x')), `the rejoined b read ${gotB2}`);
    await committed(120);
    const twice = [...seen].filter(([, n]) => n > 1).map(([v]) => v);
    assert.deepEqual(twice, [], 'nothing read twice');
    assert.deepEqual(errors, [], 'no stream of a member still in the group failed');
    const listed = await admin.listGroups({ types: ['consumer'] });
    assert.equal(listed.get('kip848-group')?.groupType, 'consumer');
  } finally {
    for (const x of [...open].reverse()) await stop(x).catch(() => {});
  }
});

test('raw frames: heartbeat errors and a hostile regex leave the broker serving', async () => {
  const c = await RawClient.connect(broker.port);
  try {
    const fc = await c.request(findCoordinatorApi, 4, {
      key: '',
      keyType: 0,
      coordinatorKeys: ['raw-group'],
    });
    assert.equal(fc.coordinators[0]?.errorCode, 0);
    const hb = (req: Partial<ConsumerGroupHeartbeatRequest> & { memberEpoch: number }) =>
      c.request(consumerGroupHeartbeatApi, 1, {
        groupId: 'raw-group',
        memberId: 'raw-m1',
        instanceId: null,
        rackId: null,
        rebalanceTimeoutMs: -1,
        subscribedTopicNames: null,
        subscribedTopicRegex: null,
        serverAssignor: null,
        topicPartitions: null,
        ...req,
      });
    // Malformed first heartbeat (no rebalance timeout, no owned list).
    assert.equal(
      (await hb({ memberEpoch: 0, subscribedTopicNames: [TOPIC] })).errorCode,
      ErrorCode.INVALID_REQUEST,
    );
    // Hostile regex (catastrophic backtracking in JS) and a huge one.
    const hostile = await hb({
      memberEpoch: 0,
      rebalanceTimeoutMs: 1000,
      topicPartitions: [],
      subscribedTopicRegex: '(a+)+$',
    });
    assert.equal(hostile.errorCode, ErrorCode.INVALID_REGULAR_EXPRESSION);
    const huge = await hb({
      memberEpoch: 0,
      rebalanceTimeoutMs: 1000,
      topicPartitions: [],
      subscribedTopicRegex: 'a'.repeat(30_000),
    });
    assert.equal(huge.errorCode, ErrorCode.INVALID_REGULAR_EXPRESSION);
    // Unknown member of an unknown group, then a real join and a wrong epoch.
    assert.equal((await hb({ memberEpoch: 5 })).errorCode, ErrorCode.GROUP_ID_NOT_FOUND);
    const joined = await hb({
      memberEpoch: 0,
      rebalanceTimeoutMs: 1000,
      topicPartitions: [],
      subscribedTopicRegex: 'kip848-.*',
    });
    assert.equal(joined.errorCode, 0);
    assert.equal(joined.memberEpoch, 1);
    assert.equal(joined.assignment?.topicPartitions[0]?.partitions.length, 4);
    assert.equal((await hb({ memberEpoch: 9 })).errorCode, ErrorCode.FENCED_MEMBER_EPOCH);
    assert.equal(
      (await hb({ memberId: 'raw-ghost', memberEpoch: 1 })).errorCode,
      ErrorCode.UNKNOWN_MEMBER_ID,
    );
    const d = await c.request(consumerGroupDescribeApi, 0, {
      groupIds: ['raw-group'],
      includeAuthorizedOperations: false,
    });
    assert.equal(d.groups[0]?.errorCode, 0);
    assert.equal(d.groups[0]?.members[0]?.subscribedTopicRegex, 'kip848-.*');
    assert.equal((await hb({ memberEpoch: -1 })).errorCode, 0);
    // Still serving.
    const again = await c.request(findCoordinatorApi, 4, {
      key: '',
      keyType: 0,
      coordinatorKeys: ['raw-group'],
    });
    assert.equal(again.coordinators[0]?.errorCode, 0);
  } finally {
    c.close();
  }
});
