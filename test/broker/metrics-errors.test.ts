// ErrorsPerSec (request-stats.ts `countErrors`): every `errorCode` field of an answer, NONE
// included, as Kafka's errorCounts — Produce and Fetch read by their shape, every other API by a
// walk of the answer that skips record bytes; a code below -1 counts as UNKNOWN_SERVER_ERROR.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiRequestStats } from '../../src/broker/metrics/request-stats.js';
import { ErrorCode, errorName } from '../../src/protocol/errors.js';

/** The counts by error name. */
function counts(s: ApiRequestStats): Record<string, number> {
  const out: Record<string, number> = {};
  s.errors.forEach((n, at) => {
    out[errorName(at - 1)] = n;
  });
  return out;
}

test('Produce: one per partition', () => {
  const s = new ApiRequestStats();
  s.countErrors(
    {
      responses: [
        {
          name: 'a',
          partitionResponses: [{ errorCode: 0 }, { errorCode: ErrorCode.NOT_LEADER_OR_FOLLOWER }],
        },
        { name: 'b', partitionResponses: [{ errorCode: 0 }] },
      ],
    },
    0,
  );
  assert.deepEqual(counts(s), { NONE: 2, NOT_LEADER_OR_FOLLOWER: 1 });
});

test('Fetch: the top level and each partition', () => {
  const s = new ApiRequestStats();
  s.countErrors(
    {
      errorCode: 0,
      responses: [
        { topic: 't', partitions: [{ errorCode: ErrorCode.OFFSET_OUT_OF_RANGE }, { errorCode: 0 }] },
      ],
    },
    1,
  );
  assert.deepEqual(counts(s), { NONE: 2, OFFSET_OUT_OF_RANGE: 1 });
});

test('any other API: every errorCode at any depth, record bytes skipped, garbage as UNKNOWN_SERVER_ERROR', () => {
  const s = new ApiRequestStats();
  // Were record bytes walked, the errorCode property on this Buffer would be counted.
  const bytes = Object.assign(Buffer.alloc(8), { errorCode: ErrorCode.CORRUPT_MESSAGE });
  s.countErrors(
    {
      errorCode: 0,
      topics: [
        { errorCode: ErrorCode.TOPIC_ALREADY_EXISTS, errorMessage: 'x', configs: [{ errorCode: 0 }] },
        {
          errorCode: -7,
          records: bytes,
          nested: { deeper: [{ errorCode: ErrorCode.UNKNOWN_SERVER_ERROR }] },
        },
      ],
      topicConfigErrorCode: ErrorCode.INVALID_CONFIG, // another field: not an errorCode
    },
    19,
  );
  assert.deepEqual(counts(s), { NONE: 2, TOPIC_ALREADY_EXISTS: 1, UNKNOWN_SERVER_ERROR: 2 });
});
