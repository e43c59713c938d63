// The broker's fetch session cache and contexts (KIP-227) without a broker: session creation,
// incremental add/update/forget, epochs, Kafka's eviction order, the session errors, and which
// partitions an incremental answer keeps.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  type FetchContext,
  type FetchTarget,
  newFetchContext,
  respondInContext,
} from '../../../src/broker/apis/fetch-session-context.js';
import type { MetadataView } from '../../../src/broker/metadata/cluster-image.js';
import { type CachedPartition, FetchSessionCache } from '../../../src/broker/replica/fetch-session-cache.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import type {
  FetchRequest,
  FetchResponse,
  FetchResponsePartitionData,
} from '../../../src/protocol/messages/generated/fetch.js';

const ZERO = 'AAAAAAAAAAAAAAAAAAAAAA';
const ID_A = 'AAAAAAAAAAAAAAAAAAAAAg';
const image = {
  topicById: (id: string) => (id === ID_A ? { name: 'a' } : undefined),
} as unknown as MetadataView;

function parts(n: number): Iterable<readonly [string, CachedPartition]> {
  return Array.from({ length: n }, (_, i) => [
    `t\u0000${i}`,
    {
      topic: 't',
      topicId: ZERO,
      partition: i,
      fetchOffset: 0n,
      maxBytes: 1,
      currentLeaderEpoch: -1,
      lastFetchedEpoch: -1,
      fetcherLogStartOffset: -1n,
      highWatermark: 0n,
      lastStableOffset: 0n,
      localLogStartOffset: 0n,
    },
  ]);
}

function req(
  sessionId: number,
  sessionEpoch: number,
  fetch: { topic?: string; id?: string; p: number; offset?: bigint }[],
  forget: { topic?: string; id?: string; p: number }[] = [],
): FetchRequest {
  return {
    clusterId: null,
    replicaId: -1,
    replicaState: { replicaId: -1, replicaEpoch: -1n },
    maxWaitMs: 0,
    minBytes: 0,
    maxBytes: 1 << 20,
    isolationLevel: 0,
    sessionId,
    sessionEpoch,
    topics: fetch.map((f) => ({
      topic: f.topic ?? '',
      topicId: f.id ?? ZERO,
      partitions: [
        {
          partition: f.p,
          currentLeaderEpoch: -1,
          fetchOffset: f.offset ?? 0n,
          lastFetchedEpoch: -1,
          logStartOffset: -1n,
          partitionMaxBytes: 1000,
          replicaDirectoryId: ZERO,
        },
      ],
    })),
    forgottenTopicsData: forget.map((f) => ({
      topic: f.topic ?? '',
      topicId: f.id ?? ZERO,
      partitions: [f.p],
    })),
    rackId: '',
  };
}

function answer(index: number, o: Partial<FetchResponsePartitionData> = {}): FetchResponsePartitionData {
  return {
    partitionIndex: index,
    errorCode: 0,
    highWatermark: 10n,
    lastStableOffset: 10n,
    logStartOffset: 0n,
    divergingEpoch: { epoch: -1, endOffset: -1n },
    currentLeader: { leaderId: -1, leaderEpoch: -1 },
    snapshotId: { endOffset: -1n, epoch: -1 },
    abortedTransactions: null,
    preferredReadReplica: -1,
    records: Buffer.alloc(0),
    ...o,
  };
}

/** The answer the handler would read: one per target partition, `o` per partition index. */
function readTargets(
  targets: readonly FetchTarget[],
  o: Record<number, Partial<FetchResponsePartitionData>> = {},
): FetchResponse['responses'] {
  return targets.map((t) => ({
    topic: t.topic,
    topicId: t.topicId,
    partitions: t.partitions.map((p) => answer(p.index, o[p.index])),
  }));
}

const names = (r: FetchResponse['responses']) => r.flatMap((t) => t.partitions.map((p) => p.partitionIndex));

function targetsOf(request: FetchRequest, context: FetchContext): FetchTarget[] {
  if (context.kind === 'incremental') return context.targets;
  return request.topics.map((t) => ({
    topic: t.topic,
    topicId: t.topicId,
    unknownId: false,
    partitions: t.partitions.map((p) => ({
      index: p.partition,
      fetchOffset: p.fetchOffset,
      maxBytes: p.partitionMaxBytes,
      currentLeaderEpoch: p.currentLeaderEpoch,
      lastFetchedEpoch: p.lastFetchedEpoch,
      logStartOffset: p.logStartOffset,
    })),
  }));
}

/** Runs one request through context → read → answer, as `01-fetch.ts` does. */
function roundTrip(
  cache: FetchSessionCache,
  r: FetchRequest,
  version = 12,
  o: Record<number, Partial<FetchResponsePartitionData>> = {},
  now = 0,
) {
  const context = newFetchContext(cache, image, r, version, false, now);
  const targets = targetsOf(r, context);
  return { context, ...respondInContext(context, cache, targets, readTargets(targets, o), now) };
}

test('a full fetch with epoch 0 opens a session; -1 stays sessionless; the next epoch is 1', () => {
  const cache = new FetchSessionCache({ maxEntries: 10 });
  assert.equal(roundTrip(cache, req(0, -1, [{ topic: 't', p: 0 }])).sessionId, 0);
  assert.equal(cache.size, 0);
  const full = roundTrip(
    cache,
    req(0, 0, [
      { topic: 't', p: 0 },
      { topic: 't', p: 1 },
    ]),
  );
  assert.equal(full.errorCode, 0);
  assert.ok(full.sessionId > 0);
  assert.deepEqual(names(full.responses), [0, 1]);
  assert.equal(cache.size, 1);
  assert.equal(cache.totalPartitions, 2);
  assert.equal(cache.get(full.sessionId)!.epoch, 1);
});

test('incremental: unchanged partitions are left out; new data, HW, log start, errors and added ones are sent', () => {
  const cache = new FetchSessionCache({ maxEntries: 10 });
  const id = roundTrip(
    cache,
    req(0, 0, [
      { topic: 't', p: 0 },
      { topic: 't', p: 1 },
      { topic: 't', p: 2 },
    ]),
  ).sessionId;
  // Nothing changed: nothing sent, but every partition of the session was read.
  let r = roundTrip(cache, req(id, 1, []));
  assert.equal(r.context.kind, 'incremental');
  assert.equal(r.errorCode, 0);
  assert.equal(r.sessionId, id);
  assert.deepEqual(names(r.responses), []);
  // Records for 0, a new HW for 1, a new partition 3 (never sent: no HW cached).
  r = roundTrip(cache, req(id, 2, [{ topic: 't', p: 3 }]), 12, {
    0: { records: Buffer.alloc(5) },
    1: { highWatermark: 11n },
  });
  assert.deepEqual(names(r.responses).sort(), [0, 1, 3]);
  // Log start and an error; after the error is gone the partition is sent once more.
  r = roundTrip(cache, req(id, 3, []), 12, {
    1: { highWatermark: 11n, logStartOffset: 4n },
    2: { errorCode: 6 },
  });
  assert.deepEqual(names(r.responses).sort(), [1, 2]);
  r = roundTrip(cache, req(id, 4, []), 12, { 1: { highWatermark: 11n, logStartOffset: 4n } });
  assert.deepEqual(names(r.responses), [2]);
  r = roundTrip(cache, req(id, 5, []), 12, { 1: { highWatermark: 11n, logStartOffset: 4n } });
  assert.deepEqual(names(r.responses), []);
});

test('incremental: updates change the fetch offset read; forgotten partitions leave; partitions with records go last', () => {
  const cache = new FetchSessionCache({ maxEntries: 10 });
  const id = roundTrip(
    cache,
    req(0, 0, [
      { topic: 't', p: 0 },
      { topic: 't', p: 1 },
      { topic: 't', p: 2 },
    ]),
  ).sessionId;
  const context = newFetchContext(
    cache,
    image,
    req(
      id,
      1,
      [{ topic: 't', p: 1, offset: 7n }],
      [
        { topic: 't', p: 2 },
        { topic: 'nope', p: 9 },
      ],
    ),
    12,
    false,
    0,
  );
  assert.equal(context.kind, 'incremental');
  if (context.kind !== 'incremental') return;
  assert.deepEqual(
    context.targets.flatMap((t) => t.partitions.map((p) => [p.index, p.fetchOffset])),
    [
      [0, 0n],
      [1, 7n],
    ],
  );
  respondInContext(
    context,
    cache,
    context.targets,
    readTargets(context.targets, { 0: { records: Buffer.alloc(1) } }),
    0,
  );
  const order = newFetchContext(cache, image, req(id, 2, []), 12, false, 0);
  assert.ok(order.kind === 'incremental');
  assert.deepEqual(
    order.targets.flatMap((t) => t.partitions.map((p) => p.index)),
    [1, 0],
  );
  assert.equal(cache.totalPartitions, 2);
});

test('forgetting every partition closes the session and answers sessionless', () => {
  const cache = new FetchSessionCache({ maxEntries: 10 });
  const id = roundTrip(cache, req(0, 0, [{ topic: 't', p: 0 }])).sessionId;
  const r = roundTrip(cache, req(id, 1, [], [{ topic: 't', p: 0 }]));
  assert.equal(r.context.kind, 'sessionless');
  assert.equal(r.sessionId, 0);
  assert.equal(cache.size, 0);
});

test('session errors: unknown id, wrong epoch, names vs ids; a full request closes the session it names', () => {
  const cache = new FetchSessionCache({ maxEntries: 10 });
  assert.equal(roundTrip(cache, req(12345, 1, [])).errorCode, ErrorCode.FETCH_SESSION_ID_NOT_FOUND);
  assert.equal(roundTrip(cache, req(0, 3, [])).errorCode, ErrorCode.FETCH_SESSION_ID_NOT_FOUND);
  const id = roundTrip(cache, req(0, 0, [{ topic: 't', p: 0 }])).sessionId;
  const wrong = roundTrip(cache, req(id, 7, []));
  assert.equal(wrong.errorCode, ErrorCode.INVALID_FETCH_SESSION_EPOCH);
  assert.deepEqual(wrong.responses, []);
  assert.equal(cache.get(id)!.epoch, 1, 'a refused request changes nothing');
  assert.equal(roundTrip(cache, req(id, 1, []), 13).errorCode, ErrorCode.FETCH_SESSION_TOPIC_ID_ERROR);
  // A full request naming the session replaces it.
  const again = roundTrip(cache, req(id, 0, [{ topic: 't', p: 0 }]));
  assert.notEqual(again.sessionId, id);
  assert.equal(cache.get(id), undefined);
  assert.equal(cache.size, 1);
  // FINAL_EPOCH closes without opening.
  assert.equal(roundTrip(cache, req(again.sessionId, -1, [])).sessionId, 0);
  assert.equal(cache.size, 0);
});

test('a duplicate request taken while another of the same epoch waited is INVALID_FETCH_SESSION_EPOCH', () => {
  const cache = new FetchSessionCache({ maxEntries: 10 });
  const id = roundTrip(cache, req(0, 0, [{ topic: 't', p: 0 }])).sessionId;
  const first = newFetchContext(cache, image, req(id, 1, []), 12, false, 0);
  const second = roundTrip(cache, req(id, 2, []));
  assert.equal(second.errorCode, 0);
  const late = respondInContext(first, cache, [], [], 0);
  assert.equal(late.errorCode, ErrorCode.INVALID_FETCH_SESSION_EPOCH);
  assert.equal(late.sessionId, id);
});

test('topic ids: sessions keyed by id, forgotten by id, unknown ids stay and answer UNKNOWN_TOPIC_ID', () => {
  const cache = new FetchSessionCache({ maxEntries: 10 });
  const GONE = 'AAAAAAAAAAAAAAAAAAAAAw';
  const id = roundTrip(
    cache,
    req(0, 0, [
      { id: ID_A, p: 0 },
      { id: GONE, p: 0 },
    ]),
    13,
  ).sessionId;
  const c = newFetchContext(cache, image, req(id, 1, []), 13, false, 0);
  assert.ok(c.kind === 'incremental');
  assert.deepEqual(
    c.targets.map((t) => [t.topic, t.unknownId]),
    [
      ['a', false],
      ['', true],
    ],
  );
  const c2 = newFetchContext(cache, image, req(id, 2, [], [{ id: GONE, p: 0 }]), 13, false, 0);
  assert.ok(c2.kind === 'incremental');
  assert.deepEqual(
    c2.targets.map((t) => t.topicId),
    [ID_A],
  );
  assert.equal(roundTrip(cache, req(id, 3, []), 12).errorCode, ErrorCode.FETCH_SESSION_TOPIC_ID_ERROR);
});

test('eviction: a full cache takes a stale session, else one of lower worth; ties and young sessions stay', () => {
  const cache = new FetchSessionCache({ maxEntries: 2, evictionMs: 1000 });
  const a = cache.maybeCreate(0, false, false, 5, () => parts(5));
  const b = cache.maybeCreate(10, false, false, 3, () => parts(3));
  assert.ok(a > 0 && b > 0);
  // Young consumer sessions: no other consumer may evict them, whatever its size.
  assert.equal(
    cache.maybeCreate(20, false, false, 100, () => parts(100)),
    0,
  );
  // A follower (privileged) evicts the least valuable unprivileged session at any age.
  const f = cache.maybeCreate(30, true, false, 1, () => parts(1));
  assert.ok(f > 0);
  assert.equal(cache.get(b), undefined, 'the smaller consumer session went');
  assert.equal(cache.evictions, 1);
  // Once older than evictionMs (and touched since), a bigger consumer session may evict a smaller one.
  cache.touch(cache.get(a)!, 1500);
  cache.touch(cache.get(f)!, 1500);
  assert.equal(
    cache.maybeCreate(1600, false, false, 5, () => parts(5)),
    0,
    'a tie does not evict',
  );
  const big = cache.maybeCreate(1600, false, false, 6, () => parts(6));
  assert.ok(big > 0);
  assert.equal(cache.get(a), undefined);
  assert.ok(cache.get(f), 'the aged privileged session outranks any consumer session');
  // Unused for longer than evictionMs: the least recently used goes, whoever asks.
  cache.touch(cache.get(big)!, 5000);
  const late = cache.maybeCreate(5000, false, false, 1, () => parts(1));
  assert.ok(late > 0);
  assert.equal(cache.get(f), undefined, 'the stale one went');
  assert.equal(cache.size, 2);
  assert.equal(cache.totalPartitions, 7);
});

test('a cache with no slots keeps every fetcher sessionless', () => {
  const cache = new FetchSessionCache({ maxEntries: 0 });
  assert.equal(roundTrip(cache, req(0, 0, [{ topic: 't', p: 0 }])).sessionId, 0);
});
