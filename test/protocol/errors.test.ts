import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  ALL_ERRORS,
  ErrorCode,
  errorInfo,
  errorName,
  isKnownErrorCode,
  isRetriable,
  KafkaError,
} from '../../src/protocol/errors.js';

test('codes are contiguous from -1 to 133 with unique names', () => {
  const codes = ALL_ERRORS.map((e) => e.code);
  assert.deepEqual(
    codes,
    Array.from({ length: 135 }, (_, i) => i - 1),
  );
  assert.equal(new Set(ALL_ERRORS.map((e) => e.name)).size, ALL_ERRORS.length);
  for (const e of ALL_ERRORS) assert.equal(ErrorCode[e.name], e.code);
});

test('spot-check names and codes from Errors.java', () => {
  assert.equal(ErrorCode.UNKNOWN_SERVER_ERROR, -1);
  assert.equal(ErrorCode.NONE, 0);
  assert.equal(ErrorCode.NOT_LEADER_OR_FOLLOWER, 6);
  assert.equal(ErrorCode.UNSUPPORTED_VERSION, 35);
  assert.equal(ErrorCode.PRODUCER_FENCED, 90);
  assert.equal(ErrorCode.TRANSACTION_ABORTABLE, 120);
  assert.equal(ErrorCode.STREAMS_INVALID_TOPOLOGY, 130);
  assert.equal(errorName(79), 'MEMBER_ID_REQUIRED');
});

test('retriable flags follow RetriableException subclasses', () => {
  const retriable = ALL_ERRORS.filter((e) => e.retriable).map((e) => e.code);
  assert.deepEqual(
    retriable,
    [
      2, 3, 5, 6, 7, 9, 13, 14, 15, 16, 19, 20, 41, 51, 56, 70, 71, 72, 74, 75, 78, 80, 83, 84, 88, 89, 100,
      103, 106, 122, 123, 133,
    ],
  );
  // Common traps: these look transient but Kafka makes the caller act (rejoin, abort, re-init).
  for (const code of [22, 25, 27, 45, 47, 59, 79, 90, 110, 113, 120]) assert.equal(isRetriable(code), false);
});

test('every entry has a non-empty message', () => {
  for (const e of ALL_ERRORS) assert.ok(e.message.length > 5, e.name);
});

test('unknown codes map to UNKNOWN_SERVER_ERROR but keep the number', () => {
  assert.equal(isKnownErrorCode(9999), false);
  assert.equal(isKnownErrorCode(-2), false);
  const info = errorInfo(9999);
  assert.equal(info.name, 'UNKNOWN_SERVER_ERROR');
  assert.equal(info.code, 9999);
  assert.equal(info.retriable, false);
  assert.match(info.message, /9999/);
});

test('KafkaError carries code, name and retriable flag', () => {
  const e = KafkaError.fromCode(ErrorCode.NOT_COORDINATOR);
  assert.ok(e instanceof Error);
  assert.ok(e instanceof KafkaError);
  assert.equal(e.code, 16);
  assert.equal(e.errorName, 'NOT_COORDINATOR');
  assert.equal(e.retriable, true);
  assert.equal(e.name, 'KafkaError');
  assert.equal(e.message, errorInfo(16).message);
  const custom = KafkaError.fromCode(ErrorCode.CORRUPT_MESSAGE, 'bad crc in batch 3');
  assert.equal(custom.message, 'bad crc in batch 3');
  const cause = new Error('root');
  assert.equal(new KafkaError(42, 'x', { cause }).cause, cause);
});
