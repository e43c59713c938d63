// Fetch sessions (KIP-227) against a real broker with raw frames, as a Java-style client drives
// them: a full fetch opens a session, incremental fetches send only changes and get only
// partitions with news, long polls still wake on appends; hostile session fields get Kafka's
// error codes and leave the broker serving; topic deletion shows in an id-based session.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ErrorCode } from '../../src/protocol/errors.js';
import { deleteTopicsApi } from '../../src/protocol/messages/generated/delete-topics.js';
import { type FetchResponse, fetchApi } from '../../src/protocol/messages/generated/fetch.js';
import { metadataApi } from '../../src/protocol/messages/generated/metadata.js';
import { encodeRecordBatchSync } from '../../src/protocol/record-batch/index.js';
import { startTestBroker, type TestBroker } from '../../src/testkit/index.js';
import { scaled } from '../support/timeouts.js';
import { RawClient } from './support/raw-client.js';
import { createTopic, type FetchAt, type FetchOptions, fetchRequest, produce } from './support/wire.js';

const ZERO = 'AAAAAAAAAAAAAAAAAAAAAA';
const PARTITIONS = 20;
let broker: TestBroker;
let c: RawClient;

before(async () => {
  broker = await startTestBroker({
    overrides: { 'max.incremental.fetch.session.cache.slots': 50, 'http.listener': '127.0.0.1:0' },
  });
  c = await RawClient.connect(broker.port);
  assert.equal(await createTopic(c, 's', PARTITIONS), 0);
});
after(async () => {
  c.close();
  await broker.close();
});

const batch = (n: number) =>
  encodeRecordBatchSync(
    Array.from({ length: n }, (_, i) => ({ value: Buffer.from(`v${i}`), timestamp: BigInt(Date.now()) })),
  );

/** A fetch of topic `s` (unless `topic`) in a session, 64 KiB a partition, 1 MiB in all. */
const fetchReq = (
  sessionId: number,
  sessionEpoch: number,
  partitions: FetchAt[],
  { topic = 's', ...o }: FetchOptions & { topic?: string } = {},
) =>
  fetchRequest(topic, partitions, {
    maxBytes: 1 << 20,
    partitionMaxBytes: 1 << 16,
    sessionId,
    sessionEpoch,
    ...o,
  });

const answered = (r: FetchResponse) =>
  r.responses.flatMap((t) => t.partitions.map((p) => p.partitionIndex)).sort((a, b) => a - b);
const all = () => Array.from({ length: PARTITIONS }, (_, partition) => ({ partition, offset: 0n }));

test('a full fetch opens a session; incremental fetches answer only partitions with news', async () => {
  const full = await c.request(fetchApi, 12, fetchReq(0, 0, all()));
  assert.equal(full.errorCode, 0);
  assert.ok(full.sessionId > 0, 'a session was opened');
  assert.deepEqual(
    answered(full),
    Array.from({ length: PARTITIONS }, (_, p) => p),
  );
  const id = full.sessionId;
  // Nothing new: an empty answer in the same session.
  let r = await c.request(fetchApi, 12, fetchReq(id, 1, []));
  assert.deepEqual([r.errorCode, r.sessionId, answered(r)], [0, id, []]);
  // Records in partition 7: only it comes back, with its records.
  assert.equal((await produce(c, 's', 7, batch(3))).errorCode, 0);
  r = await c.request(fetchApi, 12, fetchReq(id, 2, []));
  assert.deepEqual(answered(r), [7]);
  assert.ok(r.responses[0]!.partitions[0]!.records!.length > 0);
  assert.equal(r.responses[0]!.partitions[0]!.highWatermark, 3n);
  // Java moves the fetch offset: 7 is sent with its new offset, and answered no more.
  r = await c.request(fetchApi, 12, fetchReq(id, 3, [{ partition: 7, offset: 3n }]));
  assert.deepEqual(answered(r), []);
  // A long poll in the session wakes when any session partition gets data.
  const waiting = c.request(fetchApi, 12, fetchReq(id, 4, [], { maxWaitMs: scaled(20_000), minBytes: 1 }));
  await new Promise((res) => setTimeout(res, 100));
  // From another connection: the broker answers one connection's requests in order.
  const producer = await RawClient.connect(broker.port);
  assert.equal((await produce(producer, 's', 13, batch(2))).errorCode, 0);
  producer.close();
  r = await waiting;
  assert.deepEqual([r.errorCode, answered(r)], [0, [13]]);
  // Forget partition 13 (and one never in the session): no error; 13's data is no longer read.
  assert.equal((await produce(c, 's', 13, batch(1))).errorCode, 0);
  r = await c.request(fetchApi, 12, fetchReq(id, 5, [], { forget: [13, 999] }));
  assert.deepEqual([r.errorCode, answered(r)], [0, []]);
  // FINAL_EPOCH closes it.
  r = await c.request(fetchApi, 12, fetchReq(id, -1, [{ partition: 0, offset: 0n }]));
  assert.deepEqual([r.errorCode, r.sessionId], [0, 0]);
  assert.equal(
    (await c.request(fetchApi, 12, fetchReq(id, 6, []))).errorCode,
    ErrorCode.FETCH_SESSION_ID_NOT_FOUND,
  );
});

test('hostile session fields get Kafka error codes and the broker keeps serving', async () => {
  const id = (await c.request(fetchApi, 12, fetchReq(0, 0, all()))).sessionId;
  assert.ok(id > 0);
  const codes: number[] = [];
  for (const [sid, epoch] of [
    [id, 9],
    [id, 0x7fffffff],
    [id + 1, 1],
    [-5, 1],
    [0, 1],
  ] as const)
    codes.push(
      (await c.request(fetchApi, 12, fetchReq(sid, epoch, [{ partition: 0, offset: 0n }]))).errorCode,
    );
  assert.deepEqual(codes, [71, 71, 70, 70, 70]);
  // Names in a session opened with names: a v13 (ids) request is FETCH_SESSION_TOPIC_ID_ERROR.
  assert.equal(
    (await c.request(fetchApi, 13, fetchReq(id, 1, []))).errorCode,
    ErrorCode.FETCH_SESSION_TOPIC_ID_ERROR,
  );
  // The session is intact after all that (epoch 1 still expected).
  const ok = await c.request(fetchApi, 12, fetchReq(id, 1, []));
  assert.deepEqual([ok.errorCode, ok.sessionId], [0, id]);
  // A huge forgotten list of partitions that are not in the session: ignored.
  const huge = await c.request(
    fetchApi,
    12,
    fetchReq(id, 2, [], { forget: Array.from({ length: 200_000 }, (_, i) => i + 1000) }),
  );
  assert.deepEqual([huge.errorCode, huge.sessionId], [0, id]);
  // A full request naming the session replaces it with a new one.
  const again = await c.request(fetchApi, 12, fetchReq(id, 0, [{ partition: 0, offset: 0n }]));
  assert.equal(again.errorCode, 0);
  assert.ok(again.sessionId > 0 && again.sessionId !== id);
  assert.equal(
    (await c.request(fetchApi, 12, fetchReq(id, 3, []))).errorCode,
    ErrorCode.FETCH_SESSION_ID_NOT_FOUND,
  );
  // Still serving.
  const plain = await c.request(fetchApi, 12, fetchReq(0, -1, [{ partition: 7, offset: 0n }]));
  assert.equal(plain.responses[0]!.partitions[0]!.errorCode, 0);
});

test('an id-based session reports a deleted topic as UNKNOWN_TOPIC_ID, every time', async () => {
  assert.equal(await createTopic(c, 'gone', 2), 0);
  const md = await c.request(metadataApi, 12, {
    topics: [{ topicId: ZERO, name: 'gone' }],
    allowAutoTopicCreation: false,
    includeClusterAuthorizedOperations: false,
    includeTopicAuthorizedOperations: false,
  });
  const topicId = md.topics[0]!.topicId;
  const parts = [
    { partition: 0, offset: 0n },
    { partition: 1, offset: 0n },
  ];
  const full = await c.request(fetchApi, 13, fetchReq(0, 0, parts, { topic: '', topicId }));
  assert.ok(full.sessionId > 0);
  const id = full.sessionId;
  assert.deepEqual(answered(await c.request(fetchApi, 13, fetchReq(id, 1, [], { topicId }))), []);
  const del = await c.request(deleteTopicsApi, 6, {
    topics: [{ name: 'gone', topicId: ZERO }],
    topicNames: [],
    timeoutMs: 5000,
  });
  assert.equal(del.responses[0]!.errorCode, 0);
  for (const epoch of [2, 3]) {
    const r = await c.request(fetchApi, 13, fetchReq(id, epoch, [], { topicId }));
    assert.equal(r.errorCode, 0);
    assert.deepEqual(
      r.responses.flatMap((t) => t.partitions.map((p) => p.errorCode)),
      [ErrorCode.UNKNOWN_TOPIC_ID, ErrorCode.UNKNOWN_TOPIC_ID],
    );
  }
});

test('the cache slots bound the sessions; the metrics report them', async () => {
  const ids: number[] = [];
  for (let i = 0; i < 60; i++)
    ids.push((await c.request(fetchApi, 12, fetchReq(0, 0, [{ partition: 1, offset: 0n }]))).sessionId);
  // 50 slots, all young consumer sessions of equal worth: the rest stay sessionless.
  assert.ok(ids.filter((id) => id === 0).length >= 10);
  const cache = broker.services.fetchSessions!;
  assert.equal(cache.size, 50);
  assert.ok(cache.totalPartitions >= 50);
  const text = await (await fetch(`http://127.0.0.1:${broker.http!.port}/metrics`)).text();
  assert.match(text, /^kafka_server_fetchsessioncache_numincrementalfetchsessions 50$/m);
  assert.match(text, /^kafka_server_fetchsessioncache_numincrementalfetchpartitionscached \d+$/m);
  assert.match(text, /^kafka_server_fetchsessioncache_incrementalfetchsessionevictions_total \d+$/m);
});
