// Fetch, ListOffsets, DeleteRecords and OffsetForLeaderEpoch semantics through the wire.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ErrorCode } from '../../src/protocol/errors.js';
import { deleteRecordsApi } from '../../src/protocol/messages/generated/delete-records.js';
import { fetchApi } from '../../src/protocol/messages/generated/fetch.js';
import { listOffsetsApi } from '../../src/protocol/messages/generated/list-offsets.js';
import { metadataApi } from '../../src/protocol/messages/generated/metadata.js';
import { offsetForLeaderEpochApi } from '../../src/protocol/messages/generated/offset-for-leader-epoch.js';
import { encodeRecordBatchSync } from '../../src/protocol/record-batch/index.js';
import { startTestBroker, type TestBroker } from '../../src/testkit/index.js';
import { RawClient } from './support/raw-client.js';
import { createTopic, type FetchAt, type FetchOptions, fetchRequest, produce } from './support/wire.js';

const ZERO = 'AAAAAAAAAAAAAAAAAAAAAA';
let broker: TestBroker;
let c: RawClient;
let topicId: string;
/** Recent timestamps: ancient ones would make every batch roll a new segment (segment.ms). */
const T0 = BigInt(Date.now() - 60_000);

before(async () => {
  broker = await startTestBroker();
  c = await RawClient.connect(broker.port);
  assert.equal(await createTopic(c, 'f', 2), 0);
  const md = await c.request(metadataApi, 12, {
    topics: [{ topicId: ZERO, name: 'f' }],
    allowAutoTopicCreation: false,
    includeClusterAuthorizedOperations: false,
    includeTopicAuthorizedOperations: false,
  });
  topicId = md.topics[0]!.topicId;
  for (let i = 0; i < 5; i++) {
    const batch = encodeRecordBatchSync(
      Array.from({ length: 10 }, (_, j) => ({
        value: Buffer.alloc(100, i * 10 + j),
        timestamp: T0 + BigInt(1000 * (i + 1) + j),
      })),
    );
    assert.equal((await produce(c, 'f', 0, batch)).errorCode, 0);
  }
});
after(async () => {
  c.close();
  await broker.close();
});

/** A fetch of topic `f` (`byId`: by its id, as v13+), 1 MiB in all. */
const fetchReq = (partitions: FetchAt[], o: FetchOptions = {}, byId = false) =>
  fetchRequest(byId ? '' : 'f', partitions, { maxBytes: 1 << 20, ...o, ...(byId ? { topicId } : {}) });

test('every requested partition is answered, with HW, LSO and log start', async () => {
  for (const v of [4, 7, 11, 12]) {
    const r = await c.request(
      fetchApi,
      v,
      fetchReq([
        { partition: 0, offset: 0n },
        { partition: 1, offset: 0n },
        { partition: 9, offset: 0n },
      ]),
    );
    const ps = r.responses[0]!.partitions;
    assert.deepEqual(
      ps.map((p) => [p.partitionIndex, p.errorCode]),
      [
        [0, 0],
        [1, 0],
        [9, 3],
      ],
    );
    assert.equal(ps[0]!.highWatermark, 50n);
    assert.equal(ps[0]!.lastStableOffset, 50n);
    assert.equal(ps[1]!.highWatermark, 0n);
    assert.ok(ps[0]!.records!.length > 5 * 1000);
    if (v >= 7) assert.equal(r.sessionId, 0);
  }
});

test('the first batch comes whole even above the byte limits; later ones respect them', async () => {
  const r = await c.request(
    fetchApi,
    11,
    fetchReq([{ partition: 0, offset: 0n, partitionMaxBytes: 10 }], { maxBytes: 10 }),
  );
  const recs = r.responses[0]!.partitions[0]!.records!;
  assert.equal(recs.readInt32BE(8) + 12, recs.length, 'exactly one whole batch');
  const two = await c.request(
    fetchApi,
    11,
    fetchReq(
      [
        { partition: 0, offset: 0n, partitionMaxBytes: 10 },
        { partition: 1, offset: 0n },
      ],
      { maxBytes: 10 },
    ),
  );
  assert.equal(two.responses[0]!.partitions[1]!.records!.length, 0);
});

test('v13 names topics by id; unknown ids get UNKNOWN_TOPIC_ID', async () => {
  const r = await c.request(fetchApi, 13, fetchReq([{ partition: 0, offset: 40n }], {}, true));
  assert.equal(r.responses[0]!.topicId, topicId);
  assert.equal(r.responses[0]!.partitions[0]!.errorCode, 0);
  assert.ok(r.responses[0]!.partitions[0]!.records!.length > 0);
  const bad = fetchReq([{ partition: 0, offset: 0n }], {}, true);
  bad.topics[0]!.topicId = 'AAAAAAAAAAAAAAAAAAAAAQ';
  assert.equal((await c.request(fetchApi, 13, bad)).responses[0]!.partitions[0]!.errorCode, 100);
});

test('sessions: (0,0) and (0,-1) are full fetches; an unknown session is FETCH_SESSION_ID_NOT_FOUND', async () => {
  assert.equal(
    (await c.request(fetchApi, 12, fetchReq([{ partition: 0, offset: 0n }], { sessionEpoch: 0 }))).errorCode,
    0,
  );
  assert.equal(
    (
      await c.request(
        fetchApi,
        12,
        fetchReq([{ partition: 0, offset: 0n }], { sessionId: 123, sessionEpoch: 1 }),
      )
    ).errorCode,
    70,
  );
});

test('out of range offsets and fenced epochs are per-partition errors', async () => {
  const r = await c.request(
    fetchApi,
    12,
    fetchReq([
      { partition: 0, offset: 99n },
      { partition: 1, offset: 0n, currentLeaderEpoch: 5 },
    ]),
  );
  assert.deepEqual(
    r.responses[0]!.partitions.map((p) => p.errorCode),
    [1, 75],
  );
});

test('long poll: parks until an append wakes it, or until MaxWaitMs', async () => {
  const t0 = Date.now();
  const empty = await c.request(
    fetchApi,
    11,
    fetchReq([{ partition: 1, offset: 0n }], { maxWaitMs: 300, minBytes: 1 }),
  );
  assert.ok(Date.now() - t0 >= 250, 'waited for MaxWaitMs');
  assert.equal(empty.responses[0]!.partitions[0]!.records!.length, 0);
  const other = await RawClient.connect(broker.port);
  const t1 = Date.now();
  const pending = other.request(
    fetchApi,
    11,
    fetchReq([{ partition: 1, offset: 0n }], { maxWaitMs: 10_000, minBytes: 1 }),
  );
  await new Promise((r) => setTimeout(r, 100));
  await produce(c, 'f', 1, encodeRecordBatchSync([{ value: Buffer.from('wake') }]));
  const woke = await pending;
  assert.ok(Date.now() - t1 < 5000, 'woken by the append, not the timeout');
  assert.ok(woke.responses[0]!.partitions[0]!.records!.length > 0);
  other.close();
});

test('read_committed fetches carry an (empty) aborted-transaction list; read_uncommitted none', async () => {
  const rc = await c.request(fetchApi, 11, fetchReq([{ partition: 0, offset: 0n }], { isolationLevel: 1 }));
  assert.deepEqual(rc.responses[0]!.partitions[0]!.abortedTransactions, []);
  const ru = await c.request(fetchApi, 11, fetchReq([{ partition: 0, offset: 0n }], { isolationLevel: 0 }));
  assert.equal(ru.responses[0]!.partitions[0]!.abortedTransactions, null);
});

test('ListOffsets: earliest, latest, by timestamp, max timestamp; v0 old-style offsets', async () => {
  const q = async (v: number, timestamp: bigint) => {
    const r = await c.request(listOffsetsApi, v, {
      replicaId: -1,
      isolationLevel: 1,
      timeoutMs: 1000,
      topics: [
        {
          name: 'f',
          partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp, maxNumOffsets: 1 }],
        },
      ],
    });
    return r.topics[0]!.partitions[0]!;
  };
  assert.equal((await q(1, -2n)).offset, 0n);
  assert.equal((await q(5, -1n)).offset, 50n);
  assert.equal((await q(5, -1n)).leaderEpoch, 0);
  assert.equal((await q(4, T0 + 3005n)).offset, 25n);
  assert.equal((await q(4, T0 + 3005n)).timestamp, T0 + 3005n);
  assert.equal((await q(4, T0 + 999_999n)).offset, -1n);
  const max = await q(7, -3n);
  assert.deepEqual([max.offset, max.timestamp], [49n, T0 + 5009n]);
  assert.deepEqual((await q(0, -1n)).oldStyleOffsets, [50n]);
  assert.equal((await q(9, -5n)).offset, -1n);
});

test('DeleteRecords moves the log start; beyond the HW is OFFSET_OUT_OF_RANGE; OffsetForLeaderEpoch', async () => {
  const del = async (offset: bigint) =>
    (
      await c.request(deleteRecordsApi, 2, {
        timeoutMs: 1000,
        topics: [{ name: 'f', partitions: [{ partitionIndex: 0, offset }] }],
      })
    ).topics[0]!.partitions[0]!;
  assert.deepEqual(await del(20n), { partitionIndex: 0, lowWatermark: 20n, errorCode: 0 });
  assert.equal((await del(999n)).errorCode, 1);
  const r = await c.request(fetchApi, 11, fetchReq([{ partition: 0, offset: 0n }]));
  assert.equal(r.responses[0]!.partitions[0]!.errorCode, 1, 'below the log start');
  assert.equal(r.responses[0]!.partitions[0]!.logStartOffset, 20n);
  const e = await c.request(offsetForLeaderEpochApi, 4, {
    replicaId: -1,
    topics: [
      {
        topic: 'f',
        partitions: [
          { partition: 0, currentLeaderEpoch: 0, leaderEpoch: 0 },
          { partition: 0, currentLeaderEpoch: 3, leaderEpoch: 0 },
        ],
      },
    ],
  });
  assert.deepEqual(
    e.topics[0]!.partitions.map((p) => [p.errorCode, p.leaderEpoch, p.endOffset]),
    [
      [0, 0, 50n],
      [75, -1, -1n],
    ],
  );
});

test('a consumer fetch carrying the last fetched epoch learns where its log diverges (Fetch v12+)', async () => {
  const [agrees, diverges, unknown] = (
    await c.request(
      fetchApi,
      12,
      fetchReq([
        { partition: 0, offset: 40n, lastFetchedEpoch: 0 },
        // Offset 60 of epoch 0 was never written here: epoch 0 ends at 50.
        { partition: 0, offset: 60n, lastFetchedEpoch: 0 },
        { partition: 0, offset: 40n, lastFetchedEpoch: 7 },
      ]),
    )
  ).responses[0]!.partitions;
  assert.equal(agrees!.errorCode, 0);
  assert.ok(agrees!.records!.length > 0);
  assert.equal(diverges!.errorCode, 0);
  assert.deepEqual(diverges!.divergingEpoch, { epoch: 0, endOffset: 50n });
  assert.equal(diverges!.records?.length ?? 0, 0);
  assert.equal(unknown!.errorCode, ErrorCode.OFFSET_OUT_OF_RANGE);
});
