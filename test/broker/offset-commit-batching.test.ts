// OffsetCommit over sockets with the coordinator's batched __consumer_offsets writes: commits of
// many groups pipelined on one connection are answered in order, each once written, share
// batches in the log, read back with OffsetFetch and again after a restart that replays
// __consumer_offsets; the last of several commits of one group and partition wins. A write the
// log refuses (min.insync.replicas above the ISR) fails exactly the commits in it, retriably,
// applies none, and the broker goes on; a commit larger than max.message.bytes is
// INVALID_COMMIT_OFFSET_SIZE while smaller ones around it are split into batches and land. One
// request mixing unknown partitions, metadata over offset.metadata.max.bytes and valid offsets,
// pipelined between commits of the same group, is answered per partition in Kafka's order.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { Admin } from '../../src/client/index.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { decodeResponse } from '../../src/protocol/messages/frame.js';
import { createTopicsApi } from '../../src/protocol/messages/generated/create-topics.js';
import { findCoordinatorApi } from '../../src/protocol/messages/generated/find-coordinator.js';
import { offsetCommitApi } from '../../src/protocol/messages/generated/offset-commit.js';
import { offsetFetchApi } from '../../src/protocol/messages/generated/offset-fetch.js';
import { startTestBroker, type TestBroker } from '../../src/testkit/index.js';
import { storedBatches } from '../interop/support/log-batches.js';
import { scaled, TestTimeoutError } from '../support/timeouts.js';
import { RawClient } from './support/raw-client.js';

const TOPIC = 'committed';
const T = { timeout: scaled(240_000) };

async function prepare(broker: TestBroker): Promise<RawClient> {
  const c = await RawClient.connect(broker.port);
  const created = await c.request(createTopicsApi, 5, {
    topics: [{ name: TOPIC, numPartitions: 4, replicationFactor: 1, assignments: [], configs: [] }],
    timeoutMs: 5000,
    validateOnly: false,
  });
  assert.ok([0, ErrorCode.TOPIC_ALREADY_EXISTS].includes(created.topics[0]?.errorCode ?? -1));
  await coordinatorReady(c, 'any-group');
  return c;
}

/** FindCoordinator until __consumer_offsets exists and its partitions are loaded. */
async function coordinatorReady(c: RawClient, groupId: string): Promise<void> {
  const deadline = Date.now() + scaled(60_000);
  for (;;) {
    const r = await c.request(findCoordinatorApi, 4, { key: '', keyType: 0, coordinatorKeys: [groupId] });
    if (r.coordinators[0]?.errorCode === ErrorCode.NONE) return;
    if (Date.now() > deadline) throw new TestTimeoutError('the group coordinator', scaled(60_000));
    await new Promise((res) => setTimeout(res, 50));
  }
}

const commitBody = (groupId: string, offsets: Array<[number, bigint]>, metadata = '') => ({
  groupId,
  generationIdOrMemberEpoch: -1,
  memberId: '',
  groupInstanceId: null,
  retentionTimeMs: -1n,
  topics: [
    {
      name: TOPIC,
      partitions: offsets.map(([partitionIndex, committedOffset]) => ({
        partitionIndex,
        committedOffset,
        committedLeaderEpoch: -1,
        commitTimestamp: -1n,
        committedMetadata: metadata,
      })),
    },
  ],
});

/** Sends every commit before reading any answer; returns each one's error codes, in order. */
async function pipelined(c: RawClient, bodies: Array<ReturnType<typeof commitBody>>): Promise<number[][]> {
  const ids = bodies.map((b) => c.sendRequest(offsetCommitApi, 8, b));
  const out: number[][] = [];
  for (const id of ids) {
    const frame = await c.nextFrame();
    assert.ok(frame !== null, 'an answer to every commit');
    const { correlationId, body } = decodeResponse(offsetCommitApi, 8, frame);
    assert.equal(correlationId, id, 'answers in request order');
    out.push(body.topics.flatMap((t) => t.partitions.map((p) => p.errorCode)));
  }
  return out;
}

/**
 * The committed offsets of each group (OffsetFetch v8, every group in one request), asked again
 * while a group's partition of __consumer_offsets is still being replayed, as clients do
 * (FindCoordinator answers before the load ends).
 */
async function committed(c: RawClient, groups: readonly string[], partitions: number[]): Promise<bigint[][]> {
  const deadline = Date.now() + scaled(60_000);
  for (;;) {
    const r = await c.request(offsetFetchApi, 8, {
      groupId: '',
      topics: [],
      groups: groups.map((groupId) => ({
        groupId,
        memberId: null,
        memberEpoch: -1,
        topics: [{ name: TOPIC, partitionIndexes: partitions }],
      })),
      requireStable: true,
    });
    if (r.groups.some((x) => x.errorCode === ErrorCode.COORDINATOR_LOAD_IN_PROGRESS)) {
      if (Date.now() > deadline) throw new TestTimeoutError('__consumer_offsets to load', scaled(60_000));
      await new Promise((res) => setTimeout(res, 50));
      continue;
    }
    return groups.map((g) => {
      const found = r.groups.find((x) => x.groupId === g);
      assert.equal(found?.errorCode, ErrorCode.NONE);
      return partitions.map(
        (p) => found?.topics[0]?.partitions.find((x) => x.partitionIndex === p)?.committedOffset ?? -2n,
      );
    });
  }
}

test(
  'commits of 100 groups pipelined on one connection: in order, batched, read back, and after a restart',
  T,
  async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'samsa-commit-batching-'));
    let broker = await startTestBroker({ dataDir, overrides: { 'offsets.topic.num.partitions': 5 } });
    try {
      let c = await prepare(broker);
      const groups = Array.from({ length: 100 }, (_, i) => `batched-${i}`);
      // Five rounds of commits per group, interleaved; each round moves every offset forward.
      const bodies = [];
      for (let round = 1; round <= 5; round++)
        for (const [i, g] of groups.entries())
          bodies.push(
            commitBody(g, [
              [i % 4, BigInt(round * 1000 + i)],
              [(i + 1) % 4, BigInt(round)],
            ]),
          );
      const codes = await pipelined(c, bodies);
      assert.deepEqual(
        codes,
        bodies.map(() => [0, 0]),
      );
      const expected = groups.map((_, i) => {
        const row = [-1n, -1n, -1n, -1n];
        row[i % 4] = BigInt(5000 + i);
        row[(i + 1) % 4] = 5n;
        return row;
      });
      assert.deepEqual(await committed(c, groups, [0, 1, 2, 3]), expected);
      let batches = 0;
      let records = 0;
      for (let p = 0; p < 5; p++) {
        for (const b of await storedBatches(dataDir, '__consumer_offsets', p)) {
          batches++;
          records += b.recordCount;
        }
      }
      assert.equal(records, 2 * bodies.length, 'every committed offset written once');
      assert.ok(batches < bodies.length, `${bodies.length} commits in ${batches} batches`);

      c.close();
      await broker.stop(); // keeps the data
      broker = await startTestBroker({ dataDir, overrides: { 'offsets.topic.num.partitions': 5 } });
      c = await prepare(broker);
      assert.deepEqual(
        await committed(c, groups, [0, 1, 2, 3]),
        expected,
        'replayed from __consumer_offsets',
      );
      c.close();
    } finally {
      await broker.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  },
);

test(
  'a write refused for min.insync.replicas fails exactly its commits, retriably, and applies none',
  T,
  async () => {
    const broker = await startTestBroker({
      overrides: { 'offsets.topic.num.partitions': 3, 'min.insync.replicas': 2 },
    });
    const admin = new Admin({ bootstrapServers: broker.bootstrap });
    try {
      const c = await prepare(broker);
      const groups = Array.from({ length: 30 }, (_, i) => `refused-${i}`);
      const runtime = broker.services.groups?.coordinator.runtime;
      const loads = () => [0, 1, 2].map((p) => runtime?.generation(p));
      const loadsBefore = loads();
      assert.ok(loadsBefore.every((g) => g !== undefined));
      const refused = await pipelined(
        c,
        groups.map((g) => commitBody(g, [[0, 7n]])),
      );
      assert.deepEqual(
        refused,
        groups.map(() => [ErrorCode.COORDINATOR_NOT_AVAILABLE]),
      );
      assert.deepEqual(
        await committed(c, groups, [0]),
        groups.map(() => [-1n]),
        'none applied',
      );
      assert.deepEqual(loads(), loadsBefore, 'the refused batches were taken back, no shard reloaded');
      await admin.incrementalAlterConfigs([
        {
          type: 'topic',
          name: '__consumer_offsets',
          ops: [{ key: 'min.insync.replicas', op: 'set', value: '1' }],
        },
      ]);
      // The config reaches the coordinator's writes through the metadata image: retry as clients do.
      const deadline = Date.now() + scaled(30_000);
      let accepted = await pipelined(
        c,
        groups.map((g) => commitBody(g, [[0, 8n]])),
      );
      while (accepted.some((x) => x[0] !== ErrorCode.NONE)) {
        assert.ok(
          accepted.every((x) => x[0] === ErrorCode.NONE || x[0] === ErrorCode.COORDINATOR_NOT_AVAILABLE),
        );
        if (Date.now() > deadline)
          throw new TestTimeoutError('commits after lowering min.insync.replicas', scaled(30_000));
        await new Promise((res) => setTimeout(res, 100));
        accepted = await pipelined(
          c,
          groups.map((g) => commitBody(g, [[0, 8n]])),
        );
      }
      assert.deepEqual(
        await committed(c, groups, [0]),
        groups.map(() => [8n]),
      );
      c.close();
    } finally {
      await admin.close();
      await broker.close();
    }
  },
);

test(
  'a commit over max.message.bytes is INVALID_COMMIT_OFFSET_SIZE; the commits around it are split and land',
  T,
  async () => {
    const broker = await startTestBroker({
      overrides: {
        'offsets.topic.num.partitions': 1,
        'message.max.bytes': 6000,
        'offset.metadata.max.bytes': 4000,
      },
    });
    try {
      const c = await prepare(broker);
      const metadata = 'm'.repeat(1500);
      const bodies = Array.from({ length: 12 }, (_, i) => commitBody(`split-${i}`, [[0, 3n]], metadata));
      bodies.splice(
        6,
        0,
        commitBody(
          'too-big',
          [0, 1, 2, 3].map((p): [number, bigint] => [p, 1n]),
          metadata,
        ),
      );
      const codes = await pipelined(c, bodies);
      assert.deepEqual(
        codes,
        bodies.map((b) => (b.groupId === 'too-big' ? [28, 28, 28, 28] : [ErrorCode.NONE])),
      );
      assert.equal(ErrorCode.INVALID_COMMIT_OFFSET_SIZE, 28);
      const groups = bodies.map((b) => b.groupId);
      assert.deepEqual(
        await committed(c, groups, [0]),
        groups.map((g) => [g === 'too-big' ? -1n : 3n]),
      );
      c.close();
    } finally {
      await broker.close();
    }
  },
);

test(
  'answers per partition in Kafka order: unknown partitions first, then the coordinator codes in request order',
  T,
  async () => {
    const broker = await startTestBroker({
      overrides: { 'offsets.topic.num.partitions': 2, 'offset.metadata.max.bytes': 100 },
    });
    try {
      const c = await prepare(broker);
      const part = (partitionIndex: number, committedOffset: bigint, committedMetadata = '') => ({
        partitionIndex,
        committedOffset,
        committedLeaderEpoch: -1,
        commitTimestamp: -1n,
        committedMetadata,
      });
      const body = {
        ...commitBody('mixed', []),
        topics: [
          {
            name: TOPIC,
            partitions: [
              part(0, 10n),
              part(9, 11n), // beyond the topic's 4 partitions
              part(1, 12n, 'é'.repeat(51)), // 102 bytes of metadata
              part(2, 13n, 'm'.repeat(100)),
            ],
          },
          { name: 'no-such-topic', partitions: [part(0, 14n)] },
        ],
      };
      // Pipelined behind commits of the same group (and before an OffsetFetch, which waits for them).
      const codes = await pipelined(c, [
        commitBody('mixed', [[3, 1n]]),
        body,
        commitBody('mixed', [[3, 2n]]),
      ]);
      assert.deepEqual(codes, [
        [ErrorCode.NONE],
        [
          ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, // TOPIC-9
          ErrorCode.NONE, // TOPIC-0
          ErrorCode.OFFSET_METADATA_TOO_LARGE, // TOPIC-1
          ErrorCode.NONE, // TOPIC-2
          ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, // no-such-topic-0
        ],
        [ErrorCode.NONE],
      ]);
      const id = c.sendRequest(offsetCommitApi, 8, body);
      const answer = decodeResponse(offsetCommitApi, 8, (await c.nextFrame()) as Buffer);
      assert.equal(answer.correlationId, id);
      assert.deepEqual(
        answer.body.topics.map((t) => [t.name, t.partitions.map((p) => p.partitionIndex)]),
        [
          [TOPIC, [9, 0, 1, 2]],
          ['no-such-topic', [0]],
        ],
        'the unknown partitions, then the coordinator results merged into their topic',
      );
      assert.deepEqual(await committed(c, ['mixed'], [0, 1, 2, 3]), [[10n, -1n, 13n, 2n]]);
      c.close();
    } finally {
      await broker.close();
    }
  },
);
