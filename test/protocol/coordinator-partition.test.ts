import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  coordinatorPartition,
  javaStringHashCode,
  javaUtilsAbs,
} from '../../src/protocol/coordinator-partition.js';
import { KafkaError } from '../../src/protocol/errors.js';

test('CLIENTS.md §6.3 vectors (50 partitions)', () => {
  const vectors: ReadonlyArray<readonly [string, number, number]> = [
    ['my-group', -1906497762, 12],
    ['test-group', 627841412, 12],
    ['console-consumer-1', 35782224, 24],
    ['my-transactional-id', -959806496, 46],
  ];
  for (const [id, hash, partition] of vectors) {
    assert.equal(javaStringHashCode(id), hash, id);
    assert.equal(coordinatorPartition(id), partition, id);
    assert.equal(coordinatorPartition(id, 50), partition, id);
  }
});

test('String.hashCode works on UTF-16 code units, not UTF-8 bytes or code points', () => {
  assert.equal(javaStringHashCode(''), 0);
  assert.equal(javaStringHashCode('a'), 97);
  assert.equal(javaStringHashCode('é'), 0xe9);
  // U+1F600 is the surrogate pair D83D DE00 in Java: 31 * 0xd83d + 0xde00.
  assert.equal(javaStringHashCode('😀'), 31 * 0xd83d + 0xde00);
  // "polygenelubricants" is the classic string whose Java hashCode is Integer.MIN_VALUE.
  assert.equal(javaStringHashCode('polygenelubricants'), -2147483648);
});

test('Utils.abs maps INT32_MIN to 0 (unlike toPositive)', () => {
  assert.equal(javaUtilsAbs(-2147483648), 0);
  assert.equal(javaUtilsAbs(-5), 5);
  assert.equal(javaUtilsAbs(7), 7);
  assert.equal(coordinatorPartition('polygenelubricants', 50), 0);
  // -1906497762: Math.abs gives 1906497762 % 10 = 2; toPositive (& 0x7fffffff) would give 240985886 % 10 = 6.
  assert.equal(coordinatorPartition('my-group', 10), 2);
});

test('invalid partition counts throw INVALID_PARTITIONS', () => {
  for (const n of [0, -3, 2.5, Number.NaN]) {
    assert.throws(
      () => coordinatorPartition('g', n),
      (e: unknown) => e instanceof KafkaError && e.errorName === 'INVALID_PARTITIONS',
    );
  }
});
