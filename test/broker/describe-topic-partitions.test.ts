// DescribeTopicPartitions (key 75) as Kafka 3.7+ serves it: sorted topics, a partition budget
// (min of ResponsePartitionLimit and max.request.partition.size.limit, at least 1), a cursor to
// page on, unknown and illegal names, and the cursor rules that answer INVALID_REQUEST.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  type DescribeTopicPartitionsRequest,
  type DescribeTopicPartitionsResponse,
  describeTopicPartitionsApi,
} from '../../src/protocol/messages/generated/describe-topic-partitions.js';
import { startTestBroker, type TestBroker } from '../../src/testkit/index.js';
import { RawClient } from './support/raw-client.js';
import { createTopic } from './support/wire.js';

const ZERO = 'AAAAAAAAAAAAAAAAAAAAAA';
let broker: TestBroker;
let c: RawClient;

before(async () => {
  broker = await startTestBroker({ overrides: { 'max.request.partition.size.limit': 7 } });
  c = await RawClient.connect(broker.port);
  assert.equal(await createTopic(c, 'dtp-b', 5), 0);
  assert.equal(await createTopic(c, 'dtp-a', 3), 0);
  assert.equal(await createTopic(c, 'dtp-c', 1), 0);
});
after(async () => {
  c.close();
  await broker.close();
});

function describe(
  topics: string[],
  limit: number,
  cursor: DescribeTopicPartitionsRequest['cursor'] = null,
): Promise<DescribeTopicPartitionsResponse> {
  return c.request(describeTopicPartitionsApi, 0, {
    topics: topics.map((name) => ({ name })),
    responsePartitionLimit: limit,
    cursor,
  });
}

const shape = (r: DescribeTopicPartitionsResponse) => ({
  topics: r.topics.map((t) => [t.name, t.errorCode, t.partitions.map((p) => p.partitionIndex)]),
  next: r.nextCursor === null ? null : [r.nextCursor.topicName, r.nextCursor.partitionIndex],
});

test('ApiVersions lists key 75 v0', async () => {
  const { apiVersionsApi } = await import('../../src/protocol/messages/generated/api-versions.js');
  const r = await c.request(apiVersionsApi, 3, { clientSoftwareName: 'test', clientSoftwareVersion: '1' });
  const e = r.apiKeys.find((k) => k.apiKey === 75);
  assert.deepEqual([e?.minVersion, e?.maxVersion], [0, 0]);
});

test('named topics, sorted, with partition details', async () => {
  const r = await describe(['dtp-c', 'dtp-a', 'dtp-c'], 100);
  assert.deepEqual(shape(r), {
    topics: [
      ['dtp-a', 0, [0, 1, 2]],
      ['dtp-c', 0, [0]],
    ],
    next: null,
  });
  const a = r.topics[0]!;
  assert.notEqual(a.topicId, ZERO);
  assert.equal(a.isInternal, false);
  assert.notEqual(a.topicAuthorizedOperations, -2147483648);
  const p = a.partitions[0]!;
  assert.deepEqual(
    [p.errorCode, p.leaderId, p.leaderEpoch, p.replicaNodes, p.isrNodes, p.offlineReplicas],
    [0, broker.nodeId, 0, [broker.nodeId], [broker.nodeId], []],
  );
  assert.deepEqual([p.eligibleLeaderReplicas, p.lastKnownElr], [[], []]);
});

test('paging through every topic with a limit of 2', async () => {
  const seen: string[] = [];
  let cursor: DescribeTopicPartitionsRequest['cursor'] = null;
  const pages: unknown[] = [];
  for (let i = 0; i < 20; i++) {
    const r = await describe([], 2, cursor);
    const s = shape(r);
    pages.push(s);
    for (const t of r.topics) for (const p of t.partitions) seen.push(`${t.name}-${p.partitionIndex}`);
    if (r.nextCursor === null) break;
    cursor = { topicName: r.nextCursor.topicName, partitionIndex: r.nextCursor.partitionIndex };
  }
  assert.deepEqual(seen, [
    'dtp-a-0',
    'dtp-a-1',
    'dtp-a-2',
    'dtp-b-0',
    'dtp-b-1',
    'dtp-b-2',
    'dtp-b-3',
    'dtp-b-4',
    'dtp-c-0',
  ]);
  assert.deepEqual(pages.slice(0, 3), [
    { topics: [['dtp-a', 0, [0, 1]]], next: ['dtp-a', 2] },
    // dtp-a's last partition, then one of dtp-b: the cursor is inside dtp-b.
    {
      topics: [
        ['dtp-a', 0, [2]],
        ['dtp-b', 0, [0]],
      ],
      next: ['dtp-b', 1],
    },
    { topics: [['dtp-b', 0, [1, 2]]], next: ['dtp-b', 3] },
  ]);
});

test('a budget spent exactly at a topic boundary points at the next topic’s partition 0', async () => {
  assert.deepEqual(shape(await describe(['dtp-a', 'dtp-b'], 3)), {
    topics: [['dtp-a', 0, [0, 1, 2]]],
    next: ['dtp-b', 0],
  });
});

test('the broker limit (max.request.partition.size.limit=7) and a minimum of 1', async () => {
  const r = await describe([], 1000);
  assert.equal(
    r.topics.reduce((n, t) => n + t.partitions.length, 0),
    7,
  );
  assert.deepEqual(shape(r).next, ['dtp-b', 4]);
  assert.deepEqual(shape(await describe(['dtp-c'], 0)), { topics: [['dtp-c', 0, [0]]], next: null });
});

test('unknown and illegal names are reported only when named', async () => {
  const r = await describe(['dtp-a', 'nope', 'bad/name'], 100);
  assert.deepEqual(shape(r).topics, [
    ['bad/name', 17, []],
    ['dtp-a', 0, [0, 1, 2]],
    ['nope', 3, []],
  ]);
  assert.equal(r.topics.find((t) => t.name === 'nope')!.topicId, ZERO);
  const all = await describe([], 100, { topicName: 'dtp-c', partitionIndex: 0 });
  assert.deepEqual(
    shape(all).topics.filter((t) => String(t[0]).startsWith('dtp-')),
    [['dtp-c', 0, [0]]],
  );
});

test('cursor rules: its topic must be listed, its partition not negative → INVALID_REQUEST', async () => {
  const missing = await describe(['dtp-a', 'dtp-c'], 100, { topicName: 'dtp-b', partitionIndex: 0 });
  assert.deepEqual(shape(missing), {
    topics: [
      ['dtp-a', 42, []],
      ['dtp-c', 42, []],
    ],
    next: null,
  });
  const negative = await describe(['dtp-b'], 100, { topicName: 'dtp-b', partitionIndex: -1 });
  assert.deepEqual(shape(negative).topics, [['dtp-b', 42, []]]);
  // Topics before the cursor's are skipped; a start past the end yields no partitions.
  assert.deepEqual(
    shape(await describe(['dtp-a', 'dtp-b'], 100, { topicName: 'dtp-b', partitionIndex: 3 })),
    {
      topics: [['dtp-b', 0, [3, 4]]],
      next: null,
    },
  );
  assert.deepEqual(shape(await describe(['dtp-b'], 100, { topicName: 'dtp-b', partitionIndex: 9 })), {
    topics: [['dtp-b', 0, []]],
    next: null,
  });
});
