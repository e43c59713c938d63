// The fetching side of fetch sessions (Kafka's FetchSessionHandler logic): full then incremental
// requests, what travels in each, and the resets after session errors.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FetchSessionHandler, type SessionPartition } from '../../src/net/fetch-session-handler.js';
import { ErrorCode } from '../../src/protocol/errors.js';

const ID_T = 'AAAAAAAAAAAAAAAAAAAAAg';
const ID_T2 = 'AAAAAAAAAAAAAAAAAAAAAw';

function p(partition: number, fetchOffset = 0n, topic = 't', topicId = ID_T): SessionPartition {
  return {
    topic,
    topicId,
    partition,
    fetchOffset,
    currentLeaderEpoch: 0,
    lastFetchedEpoch: -1,
    logStartOffset: -1n,
    partitionMaxBytes: 100,
  };
}

const ok = (sessionId: number, answered: number[] = []) => ({
  errorCode: 0,
  sessionId,
  responses: answered.length
    ? [{ topic: 't', topicId: ID_T, partitions: answered.map((i) => ({ partitionIndex: i })) }]
    : [],
});
const sentOf = (r: { topics: { partitions: { partition: number; fetchOffset: bigint }[] }[] }) =>
  r.topics.flatMap((t) => t.partitions.map((x) => [x.partition, x.fetchOffset]));

test('full request first, then only changed partitions; missing ones are forgotten', () => {
  const h = new FetchSessionHandler({ enabled: true });
  const full = h.build([p(0), p(1), p(2)], 12);
  assert.deepEqual([full.sessionId, full.sessionEpoch, full.full], [0, 0, true]);
  assert.equal(full.sent, 3);
  assert.equal(h.handleResponse(ok(77, [0, 1, 2])), 'use');
  assert.equal(h.sessionId, 77);
  const inc = h.build([p(0, 5n), p(1), p(3)], 12);
  assert.deepEqual([inc.sessionId, inc.sessionEpoch, inc.full], [77, 1, false]);
  assert.deepEqual(sentOf(inc), [
    [0, 5n],
    [3, 0n],
  ]);
  assert.deepEqual(inc.forgottenTopicsData, [
    { topic: 't', topicId: 'AAAAAAAAAAAAAAAAAAAAAA', partitions: [2] },
  ]);
  assert.equal(h.handleResponse(ok(77, [0])), 'use');
  const idle = h.build([p(0, 5n), p(1), p(3)], 12);
  assert.equal(idle.sessionEpoch, 2);
  assert.equal(idle.sent, 0);
});

test('session errors and transport failures start over with a full request', () => {
  const h = new FetchSessionHandler({ enabled: true });
  h.build([p(0)], 13);
  h.handleResponse(ok(5, [0]));
  h.build([p(0)], 13);
  assert.equal(
    h.handleResponse({ errorCode: ErrorCode.INVALID_FETCH_SESSION_EPOCH, sessionId: 0, responses: [] }),
    'drop',
  );
  // Closes the old session with the new full request.
  let r = h.build([p(0)], 13);
  assert.deepEqual([r.sessionId, r.sessionEpoch, r.full], [5, 0, true]);
  h.handleResponse(ok(6, [0]));
  h.build([p(0)], 13);
  assert.equal(
    h.handleResponse({ errorCode: ErrorCode.FETCH_SESSION_ID_NOT_FOUND, sessionId: 0, responses: [] }),
    'drop',
  );
  r = h.build([p(0)], 13);
  assert.deepEqual([r.sessionId, r.sessionEpoch], [0, 0], 'nothing to close: the broker has no such session');
  h.handleResponse(ok(8, [0]));
  h.build([p(0)], 13);
  h.handleError();
  r = h.build([p(0)], 13);
  assert.deepEqual([r.sessionId, r.sessionEpoch], [8, 0]);
  // An answer naming a partition outside the session is not trusted.
  h.handleResponse(ok(9, [0]));
  h.build([p(0)], 13);
  assert.equal(h.handleResponse(ok(9, [4])), 'drop');
  assert.equal(h.build([p(0)], 13).sessionEpoch, 0);
});

test('a broker answering SessionId 0 keeps the client sessionless; so do v<7 and enabled: false', () => {
  const h = new FetchSessionHandler({ enabled: true });
  h.build([p(0)], 12);
  h.handleResponse(ok(0, [0]));
  assert.equal(h.build([p(0)], 12).sessionEpoch, 0);
  const old = new FetchSessionHandler({ enabled: true }).build([p(0)], 6);
  assert.deepEqual([old.sessionId, old.sessionEpoch], [0, -1]);
  const off = new FetchSessionHandler({ enabled: false });
  off.build([p(0)], 13);
  off.handleResponse(ok(3, [0]));
  assert.deepEqual([off.build([p(0)], 13).sessionEpoch, off.sessionId], [-1, 0]);
});

test('topic ids: a re-created topic is forgotten by its old id and sent with the new; naming changes start over', () => {
  const h = new FetchSessionHandler({ enabled: true });
  h.build([p(0)], 13);
  h.handleResponse(ok(3, [0]));
  const r = h.build([p(0, 0n, 't', ID_T2)], 13);
  assert.deepEqual(r.forgottenTopicsData, [{ topic: '', topicId: ID_T, partitions: [0] }]);
  assert.deepEqual(
    r.topics.map((t) => t.topicId),
    [ID_T2],
  );
  h.handleResponse({ errorCode: 0, sessionId: 3, responses: [] });
  const byName = h.build([p(0, 0n, 't', ID_T2)], 12);
  assert.deepEqual([byName.sessionId, byName.sessionEpoch, byName.full], [3, 0, true]);
});

test('closeRequest: FINAL_EPOCH for the open session, then nothing', () => {
  const h = new FetchSessionHandler({ enabled: true });
  assert.equal(h.closeRequest(), null);
  h.build([p(0)], 12);
  h.handleResponse(ok(4, [0]));
  const c = h.closeRequest()!;
  assert.deepEqual([c.sessionId, c.sessionEpoch], [4, -1]);
  assert.equal(h.closeRequest(), null);
});
