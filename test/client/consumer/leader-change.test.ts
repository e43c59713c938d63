// The consumer's side of leader changes (KIP-320), without a broker: the position's leader and
// validation state, the rule applied to an OffsetsForLeaderEpoch answer (Java's
// maybeCompleteValidation), the validator's requests and its handling of leader errors, the
// fetcher's CurrentLeaderEpoch/LastFetchedEpoch and DivergingEpoch handling, and metadata that
// never moves a partition back to an older leader epoch.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { BrokerPool } from '../../../src/client/broker-pool.js';
import { resolveClientOptions } from '../../../src/client/config.js';
import { resolveConsumerOptions } from '../../../src/client/consumer/consumer-config.js';
import { LogTruncationError, OffsetOutOfRangeError } from '../../../src/client/consumer/consumer-errors.js';
import { Fetcher } from '../../../src/client/consumer/fetcher.js';
import { completeValidation, PositionValidator } from '../../../src/client/consumer/position-validation.js';
import { PartitionState, SubscriptionState } from '../../../src/client/consumer/subscription-state.js';
import { ConnectionError, UnsupportedVersionError } from '../../../src/client/errors.js';
import { Metadata } from '../../../src/client/metadata.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import type { FetchRequest, FetchResponse } from '../../../src/protocol/messages/generated/fetch.js';
import type { MetadataResponse } from '../../../src/protocol/messages/generated/metadata.js';
import type {
  OffsetForLeaderEpochRequest,
  OffsetForLeaderEpochResponse,
} from '../../../src/protocol/messages/generated/offset-for-leader-epoch.js';
import { encodeRecordBatchSync } from '../../../src/protocol/record-batch/encode.js';

const TOPIC = 't';

function consumerOptions(reset: 'earliest' | 'latest' | 'none') {
  return resolveConsumerOptions({
    bootstrapServers: '127.0.0.1:1',
    autoOffsetReset: reset,
    retryBackoffMs: 10,
    requestTimeoutMs: 5000,
  });
}

/** A partition read up to `position` under leader epoch `epoch`, last checked against `leader`. */
function positioned(position: bigint, epoch: number, leader = { id: 1, epoch }): PartitionState {
  const s = new PartitionState(TOPIC, 0);
  s.seek(position, epoch);
  s.leader = leader;
  return s;
}

test('a new leader puts a position with an epoch into validation and drops what the old leader sent', () => {
  const s = positioned(100n, 3);
  s.fetchOffset = 150n; // data up to 150 buffered from the old leader
  const before = s.epoch;
  assert.equal(s.updateLeader({ id: 1, epoch: 3 }), false, 'same leader: nothing to do');
  assert.equal(s.updateLeader({ id: 2, epoch: 4 }), true);
  assert.equal(s.awaitingValidation, true);
  assert.equal(s.hasValidPosition, false, 'not fetched while awaiting validation');
  assert.equal(s.fetchOffset, 100n, 'fetching restarts at the position');
  assert.ok(s.epoch > before, 'buffered and in-flight data of the old leader is stale');
  assert.equal(s.updateLeader({ id: 2, epoch: 4 }), false, 'entered once');
  assert.equal(s.updateLeader(undefined), false, 'no leader: wait');

  const unknown = positioned(100n, -1);
  assert.equal(
    unknown.updateLeader({ id: 2, epoch: 4 }),
    false,
    'no epoch on the position: nothing to check',
  );
  assert.equal(unknown.hasValidPosition, true);
  assert.deepEqual(unknown.leader, { id: 2, epoch: 4 });

  const noEpochFromBroker = positioned(100n, 3);
  assert.equal(noEpochFromBroker.updateLeader({ id: 2, epoch: -1 }), false, 'an old broker gives no epoch');
});

test('committed and reset positions are validated when they carry an epoch; a seek is not', () => {
  const s = new PartitionState(TOPIC, 0);
  s.seekUnvalidated(42n, 5, { id: 2, epoch: 7 });
  assert.equal(s.awaitingValidation, true);
  assert.equal(s.positionLeaderEpoch, 5);
  s.seek(10n);
  assert.equal(s.awaitingValidation, false, "the application's seek needs no check");
  s.seekUnvalidated(42n, -1, { id: 2, epoch: 7 });
  assert.equal(s.awaitingValidation, false, 'no epoch committed: nothing to check');
  s.seekUnvalidated(42n, 5, undefined);
  assert.equal(s.awaitingValidation, false, 'no leader known yet');
  assert.equal(s.updateLeader({ id: 3, epoch: 8 }), true, '…checked as soon as metadata names one');
});

test("the validation rule follows Java's: end offset ≥ position is valid, below it is a truncation", () => {
  const ok = positioned(100n, 3);
  ok.awaitingValidation = true;
  assert.equal(completeValidation(ok, { leaderEpoch: 3, endOffset: 100n }, 'none'), null);
  assert.equal(ok.awaitingValidation, false);
  assert.equal(ok.position, 100n);

  for (const policy of ['earliest', 'latest'] as const) {
    const s = positioned(100n, 3);
    s.awaitingValidation = true;
    assert.equal(completeValidation(s, { leaderEpoch: 2, endOffset: 80n }, policy), null);
    assert.equal(
      s.position,
      80n,
      `${policy}: back to the first offset known to diverge, not to the policy's end`,
    );
    assert.equal(s.positionLeaderEpoch, 2);
    assert.equal(s.reset, null);
    assert.equal(s.hasValidPosition, true);
  }

  const none = positioned(100n, 3);
  none.awaitingValidation = true;
  assert.deepEqual(completeValidation(none, { leaderEpoch: 2, endOffset: 80n }, 'none'), {
    topic: TOPIC,
    partition: 0,
    offset: 100n,
    offsetEpoch: 3,
    divergentOffset: 80n,
    divergentEpoch: 2,
  });
  assert.equal(none.position, 100n);
  assert.equal(none.awaitingValidation, true, 'stays stopped until the application seeks');

  const unknownEpoch = positioned(100n, 3);
  unknownEpoch.awaitingValidation = true;
  assert.equal(completeValidation(unknownEpoch, { leaderEpoch: -1, endOffset: -1n }, 'earliest'), null);
  assert.equal(unknownEpoch.reset, 'earliest', 'the leader knows nothing of the epoch: reset by the policy');
  const unknownNone = positioned(100n, 3);
  unknownNone.awaitingValidation = true;
  assert.equal(
    completeValidation(unknownNone, { leaderEpoch: -1, endOffset: -1n }, 'none')?.divergentOffset,
    null,
  );
});

test('LogTruncationError names the partition and the offsets and is an OffsetOutOfRangeError', () => {
  const e = new LogTruncationError([
    { topic: 'orders', partition: 2, offset: 100n, offsetEpoch: 3, divergentOffset: 80n, divergentEpoch: 2 },
  ]);
  assert.ok(e instanceof OffsetOutOfRangeError);
  assert.equal(e.retriable, false);
  assert.match(e.message, /orders-2 at offset 100 \(epoch 3\), divergent offset 80 \(epoch 2\)/);
  assert.deepEqual(e.offsets, [{ topic: 'orders', partition: 2, offset: 100n }]);
});

/** Metadata stand-in: the leader the test says, counting refresh requests. */
class FakeMetadata {
  leader: { id: number; epoch: number } | undefined = { id: 2, epoch: 4 };
  updates = 0;
  leaderAndEpoch = () => this.leader;
  leaderFor = () => this.leader?.id;
  topic = () => undefined;
  requestUpdate = () => {
    this.updates++;
  };
}

/** Broker pool stand-in: every link answers through `answer`, recording what was asked. */
function fakePool<Req, Res>(answer: (req: Req) => Res | Promise<Res>) {
  const asked: { node: number; req: Req; minVersion: number | undefined }[] = [];
  const pool = {
    link: (node: number) => ({
      request: async (
        _api: unknown,
        given: Req | ((v: number) => Req),
        opts: { minVersion?: number } = {},
      ) => {
        // A body built per version (the fetcher's, for its session) is built at the newest one.
        const body = typeof given === 'function' ? (given as (v: number) => Req)(17) : given;
        asked.push({ node, req: body, minVersion: opts.minVersion });
        return answer(body);
      },
    }),
  } as unknown as BrokerPool;
  return { pool, asked };
}

function epochAnswer(errorCode: number, leaderEpoch = -1, endOffset = -1n): OffsetForLeaderEpochResponse {
  return {
    throttleTimeMs: 0,
    topics: [{ topic: TOPIC, partitions: [{ errorCode, partition: 0, leaderEpoch, endOffset }] }],
  };
}

function validatorFor(
  reset: 'earliest' | 'latest' | 'none',
  answer: (
    req: OffsetForLeaderEpochRequest,
  ) => OffsetForLeaderEpochResponse | Promise<OffsetForLeaderEpochResponse>,
) {
  const subs = new SubscriptionState();
  subs.manualAssign();
  const [s] = subs.setAssignment([{ topic: TOPIC, partition: 0 }]);
  s!.seek(100n, 3);
  s!.leader = { id: 1, epoch: 3 };
  const metadata = new FakeMetadata();
  const { pool, asked } = fakePool(answer);
  let done = 0;
  const v = new PositionValidator(
    pool,
    metadata as unknown as Metadata,
    subs,
    consumerOptions(reset),
    () => done++,
  );
  const settle = async () => {
    const target = done + 1;
    while (done < target) await new Promise((r) => setImmediate(r));
  };
  return { s: s!, v, metadata, asked, settle };
}

test('the validator asks the new leader with its epoch and the position epoch, then resumes fetching', async () => {
  const { s, v, asked, settle } = validatorFor('none', () => epochAnswer(0, 3, 120n));
  v.update();
  assert.equal(s.awaitingValidation, true);
  await settle();
  assert.equal(asked.length, 1);
  assert.equal(asked[0]!.node, 2, 'sent to the new leader');
  assert.equal(asked[0]!.minVersion, 3, 'v3+ only, as Java requires');
  assert.deepEqual(asked[0]!.req, {
    replicaId: -1,
    topics: [{ topic: TOPIC, partitions: [{ partition: 0, currentLeaderEpoch: 4, leaderEpoch: 3 }] }],
  });
  assert.equal(s.awaitingValidation, false);
  assert.equal(s.hasValidPosition, true);
  v.takeError();
  v.update();
  assert.equal(asked.length, 1, 'nothing more to ask');
});

test('FENCED_LEADER_EPOCH refreshes metadata and retries; UNKNOWN_LEADER_EPOCH only retries', async () => {
  const answers = [
    epochAnswer(ErrorCode.FENCED_LEADER_EPOCH),
    epochAnswer(ErrorCode.UNKNOWN_LEADER_EPOCH),
    epochAnswer(0, 3, 100n),
  ];
  const { s, v, metadata, asked, settle } = validatorFor('none', () => answers.shift()!);
  const t0 = Date.now();
  v.update();
  await settle();
  assert.equal(metadata.updates, 1);
  assert.equal(s.awaitingValidation, true);
  assert.ok(
    s.validationRetryAt >= t0 + 10 && s.validationRetryAt < t0 + 5000,
    'retried after retry.backoff.ms, not after request.timeout.ms',
  );
  await new Promise((r) => setTimeout(r, 20));
  v.update();
  await settle();
  assert.equal(metadata.updates, 1, 'the broker is behind: no refresh');
  assert.equal(s.awaitingValidation, true);
  await new Promise((r) => setTimeout(r, 20));
  v.update();
  await settle();
  assert.equal(asked.length, 3);
  assert.equal(s.awaitingValidation, false);
  v.takeError();
});

test('a truncation with auto.offset.reset=none is raised once, with the partition stopped', async () => {
  const { s, v, settle } = validatorFor('none', () => epochAnswer(0, 2, 80n));
  v.update();
  await settle();
  assert.throws(
    () => v.takeError(),
    (e: unknown) =>
      e instanceof LogTruncationError &&
      e.truncations[0]!.divergentOffset === 80n &&
      /t-0 at offset 100/.test(e.message),
  );
  v.takeError(); // once
  assert.equal(s.hasValidPosition, false);
  assert.equal(s.position, 100n);
  s.seek(80n);
  assert.equal(s.hasValidPosition, true, 'a seek by the application resumes it');
});

test('with a reset policy the position moves back to the divergent offset; a stale answer is ignored', async () => {
  const { s, v, settle } = validatorFor('latest', () => epochAnswer(0, 2, 80n));
  v.update();
  await settle();
  v.takeError();
  assert.equal(s.position, 80n);
  assert.equal(s.positionLeaderEpoch, 2);
  assert.equal(s.hasValidPosition, true);

  let release: (r: OffsetForLeaderEpochResponse) => void = () => {};
  const late = validatorFor('latest', () => new Promise<OffsetForLeaderEpochResponse>((r) => (release = r)));
  late.v.update();
  late.s.seek(500n); // the application seeks while the request is out
  release(epochAnswer(0, 2, 80n));
  await late.settle();
  assert.equal(late.s.position, 500n, 'the answer was for the old position');
});

test('a leader without OffsetForLeaderEpoch v3 is trusted, as Java does', async () => {
  const { s, v, settle } = validatorFor('none', () => {
    throw new UnsupportedVersionError('OffsetForLeaderEpoch v3+ not supported');
  });
  v.update();
  await settle();
  v.takeError();
  assert.equal(s.awaitingValidation, false);
});

// ---- fetcher ------------------------------------------------------------------------------

function batch(baseOffset: bigint, count: number, epoch: number): Buffer {
  return encodeRecordBatchSync(
    Array.from({ length: count }, (_, i) => ({ value: Buffer.from(`v${Number(baseOffset) + i}`) })),
    { baseOffset, partitionLeaderEpoch: epoch },
  );
}

function fetchAnswer(p: Partial<FetchResponse['responses'][number]['partitions'][number]>): FetchResponse {
  return {
    throttleTimeMs: 0,
    errorCode: 0,
    sessionId: 0,
    nodeEndpoints: [],
    responses: [
      {
        topic: TOPIC,
        topicId: 'AAAAAAAAAAAAAAAAAAAAAA',
        partitions: [
          {
            partitionIndex: 0,
            errorCode: 0,
            highWatermark: 1000n,
            lastStableOffset: 1000n,
            logStartOffset: 0n,
            divergingEpoch: { epoch: -1, endOffset: -1n },
            currentLeader: { leaderId: -1, leaderEpoch: -1 },
            snapshotId: { endOffset: -1n, epoch: -1 },
            abortedTransactions: null,
            preferredReadReplica: -1,
            records: null,
            ...p,
          },
        ],
      },
    ],
  };
}

/** A fetcher over a fake leader whose answers the test gives one at a time, in request order. */
function fetcherFor(reset: 'earliest' | 'latest' | 'none') {
  const subs = new SubscriptionState();
  subs.manualAssign();
  const [s] = subs.setAssignment([{ topic: TOPIC, partition: 0 }]);
  s!.seek(0n);
  const metadata = new FakeMetadata();
  metadata.leader = { id: 1, epoch: 3 };
  const waiting: { resolve: (r: FetchResponse) => void; reject: (e: Error) => void }[] = [];
  const { pool, asked } = fakePool<FetchRequest, FetchResponse>(
    () => new Promise<FetchResponse>((resolve, reject) => waiting.push({ resolve, reject })),
  );
  let notified = 0;
  const f = new Fetcher(
    pool,
    metadata as unknown as Metadata,
    subs,
    consumerOptions(reset),
    () => notified++,
  );
  /**
   * Answers the oldest unanswered request (waiting for it to be sent), or fails it with an
   * Error, and lets the fetcher apply that.
   */
  const reply = async (res: FetchResponse | Error) => {
    const deadline = Date.now() + 5000;
    while (waiting.length === 0) {
      assert.ok(Date.now() < deadline, 'timed out waiting for a fetch request');
      await new Promise((r) => setTimeout(r, 1));
    }
    const w = waiting.shift()!;
    if (res instanceof Error) w.reject(res);
    else w.resolve(res);
    for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
  };
  return { s: s!, f, metadata, asked, reply, notified: () => notified };
}

function sentPartition(req: FetchRequest) {
  return req.topics[0]!.partitions[0]!;
}

test('fetch sends the validated leader epoch and the epoch of the last fetched batch', async () => {
  const { s, f, asked, reply } = fetcherFor('none');
  f.maybeFetch();
  await reply(fetchAnswer({ records: Buffer.concat([batch(0n, 3, 2), batch(3n, 2, 3)]) }));
  assert.equal(sentPartition(asked[0]!.req).currentLeaderEpoch, 3);
  assert.equal(sentPartition(asked[0]!.req).lastFetchedEpoch, -1, 'a seek has no epoch');
  assert.equal(sentPartition(asked[1]!.req).fetchOffset, 5n);
  assert.equal(sentPartition(asked[1]!.req).lastFetchedEpoch, 3);
  const records = await f.collect(10, null, null);
  assert.equal(records.length, 5);
  assert.equal(s.position, 5n);
  assert.equal(s.positionLeaderEpoch, 3);
  f.close();
});

test('a new leader seen while fetching stops the partition for validation and wakes poll()', () => {
  const { s, f, metadata, asked, notified } = fetcherFor('none');
  s.seek(10n, 3);
  s.leader = { id: 1, epoch: 3 };
  metadata.leader = { id: 2, epoch: 4 };
  f.maybeFetch();
  assert.equal(asked.length, 0, 'nothing fetched from the new leader before validation');
  assert.equal(s.awaitingValidation, true);
  assert.equal(notified(), 1);
  f.maybeFetch();
  assert.equal(notified(), 1, 'woken once, not on every pass');
  f.close();
});

const offsetsOf = (records: { offset: bigint }[]) => records.map((r) => Number(r.offset));

test('a Fetch failing while earlier records are buffered: they are polled, the retry asks past them', async () => {
  const { s, f, asked, reply } = fetcherFor('none');
  f.maybeFetch();
  await reply(fetchAnswer({ records: batch(0n, 5, 3) }));
  assert.equal(sentPartition(asked[1]!.req).fetchOffset, 5n, 'the next Fetch left with records buffered');
  assert.deepEqual(offsetsOf(await f.collect(2, null, null)), [0, 1]);
  await reply(new ConnectionError('injected: connection lost'));
  assert.deepEqual(offsetsOf(await f.collect(10, null, null)), [2, 3, 4], 'buffered records survive');
  s.backoffUntil = 0; // skip retry.backoff.ms
  f.maybeFetch();
  assert.equal(sentPartition(asked[2]!.req).fetchOffset, 5n, 'retried from the end of the buffered data');
  await reply(fetchAnswer({ records: batch(5n, 3, 3) }));
  assert.deepEqual(offsetsOf(await f.collect(10, null, null)), [5, 6, 7]);
  assert.equal(s.position, 8n);
  f.close();
});

test('a leader change while records are buffered and a Fetch is in flight: both dropped, resumed at the position', async () => {
  const { s, f, metadata, asked, reply } = fetcherFor('none');
  f.maybeFetch();
  await reply(fetchAnswer({ records: batch(0n, 5, 3) }));
  assert.deepEqual(offsetsOf(await f.collect(2, null, null)), [0, 1]);
  assert.equal(asked.length, 2, 'a Fetch for offset 5 is in flight');
  metadata.leader = { id: 2, epoch: 4 };
  // Noticed once the in-flight Fetch returns (a partition in flight is not looked at).
  await reply(fetchAnswer({ records: batch(5n, 5, 3) }));
  assert.equal(s.awaitingValidation, true);
  assert.deepEqual(await f.collect(10, null, null), [], "nothing more from the old leader's data");
  assert.equal(s.position, 2n, 'the position stays after the last record returned');
  assert.equal(asked.length, 2, 'nothing asked of the new leader before validation');
  completeValidation(s, { leaderEpoch: 4, endOffset: 100n }, 'none');
  f.maybeFetch();
  assert.equal(asked[2]!.node, 2);
  assert.equal(sentPartition(asked[2]!.req).fetchOffset, 2n);
  assert.equal(sentPartition(asked[2]!.req).currentLeaderEpoch, 4);
  await reply(fetchAnswer({ records: batch(2n, 6, 4) }));
  assert.deepEqual(offsetsOf(await f.collect(10, null, null)), [2, 3, 4, 5, 6, 7], 'in order, none twice');
  f.close();
});

test('UNKNOWN_LEADER_EPOCH backs off without a metadata refresh; FENCED_LEADER_EPOCH refreshes', async () => {
  const { s, f, metadata, reply } = fetcherFor('none');
  f.maybeFetch();
  await reply(fetchAnswer({ errorCode: ErrorCode.UNKNOWN_LEADER_EPOCH }));
  assert.equal(metadata.updates, 0);
  assert.ok(s.backoffUntil > 0);
  await reply(fetchAnswer({ errorCode: ErrorCode.FENCED_LEADER_EPOCH }));
  assert.equal(metadata.updates, 1);
  f.close();
});

test('a diverging epoch below the position is a truncation: raised with none, reset to it otherwise', async () => {
  for (const reset of ['none', 'earliest'] as const) {
    const { s, f, asked, reply } = fetcherFor(reset);
    f.maybeFetch();
    await reply(fetchAnswer({ records: batch(0n, 10, 3) }));
    assert.equal((await f.collect(100, null, null)).length, 10);
    assert.equal(sentPartition(asked[1]!.req).lastFetchedEpoch, 3);
    await reply(fetchAnswer({ divergingEpoch: { epoch: 3, endOffset: 6n } }));
    if (reset === 'none') {
      await assert.rejects(
        f.collect(100, null, null),
        (e: unknown) =>
          e instanceof LogTruncationError &&
          e.truncations[0]!.offset === 10n &&
          e.truncations[0]!.divergentOffset === 6n,
      );
      assert.equal(s.hasValidPosition, false);
      assert.equal(asked.length, 2, 'stopped: not fetched again');
    } else {
      assert.equal(s.position, 6n, 'back to where the logs diverge, as Java does');
      assert.equal(s.hasValidPosition, true);
      assert.equal(sentPartition(asked[2]!.req).fetchOffset, 6n);
    }
    f.close();
  }
});

test('a diverging epoch above the position drops only unreturned data and refetches from the position', async () => {
  const { s, f, asked, reply } = fetcherFor('none');
  f.maybeFetch();
  await reply(fetchAnswer({ records: batch(0n, 10, 3) }));
  assert.equal((await f.collect(4, null, null)).length, 4); // position 4, data up to 10 buffered
  await reply(fetchAnswer({ divergingEpoch: { epoch: 2, endOffset: 8n } }));
  assert.equal(s.position, 4n);
  assert.equal(sentPartition(asked[2]!.req).fetchOffset, 4n);
  assert.equal(sentPartition(asked[2]!.req).lastFetchedEpoch, 2, 'an epoch the leader has');
  assert.deepEqual(await f.collect(100, null, null), [], 'the buffered data was dropped');
  f.close();
});

// ---- metadata -----------------------------------------------------------------------------

function metadataAnswer(
  leader: number,
  leaderEpoch: number,
  topicId = 'AAAAAAAAAAAAAAAAAAAAAQ',
): MetadataResponse {
  return {
    throttleTimeMs: 0,
    brokers: [1, 2, 3].map((nodeId) => ({ nodeId, host: '127.0.0.1', port: 1, rack: null })),
    clusterId: 'c',
    controllerId: 1,
    topics: [
      {
        errorCode: 0,
        name: TOPIC,
        topicId,
        isInternal: false,
        partitions: [
          {
            errorCode: 0,
            partitionIndex: 0,
            leaderId: leader,
            leaderEpoch,
            replicaNodes: [1, 2, 3],
            isrNodes: [1, 2, 3],
            offlineReplicas: [],
          },
        ],
        topicAuthorizedOperations: -2147483648,
      },
    ],
    clusterAuthorizedOperations: -2147483648,
  };
}

test('metadata never moves a partition back to an older leader epoch, unless the topic was recreated', () => {
  const pool = {
    options: resolveClientOptions({ bootstrapServers: '127.0.0.1:1', metadataMaxAgeMs: 0 }),
    updateBrokers() {},
  };
  const m = new Metadata(pool as unknown as BrokerPool, { allowAutoTopicCreation: false });
  try {
    m.apply(metadataAnswer(2, 5));
    assert.deepEqual(m.leaderAndEpoch(TOPIC, 0), { id: 2, epoch: 5 });
    m.apply(metadataAnswer(1, 4)); // a broker that has not heard of epoch 5 yet
    assert.deepEqual(m.leaderAndEpoch(TOPIC, 0), { id: 2, epoch: 5 });
    m.apply(metadataAnswer(3, 6));
    assert.deepEqual(m.leaderAndEpoch(TOPIC, 0), { id: 3, epoch: 6 });
    m.apply(metadataAnswer(1, 0, 'AAAAAAAAAAAAAAAAAAAAAg'));
    assert.deepEqual(m.leaderAndEpoch(TOPIC, 0), { id: 1, epoch: 0 }, 'a new topic id starts afresh');
  } finally {
    m.close();
  }
});
