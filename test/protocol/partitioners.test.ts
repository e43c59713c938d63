import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import { crc32 as nativeCrc32 } from '@node-rs/crc32';
import { KafkaError } from '../../src/protocol/errors.js';
import {
  crc32,
  crc32Partition,
  murmur2,
  murmur2Partition,
  toPositive,
} from '../../src/protocol/partitioners.js';

// CLIENTS.md §5.1 (Kafka's UtilsTest.testMurmur2): key, murmur2, partition of 3, of 10, and
// @platformatic/kafka's default `(h >>> 0) % 10`, which differs whenever h < 0.
const MURMUR2_VECTORS: ReadonlyArray<readonly [string, number, number, number, number]> = [
  ['21', -973932308, 0, 0, 8],
  ['foobar', -790332482, 0, 6, 4],
  ['a-little-bit-long-string', -985981536, 2, 2, 0],
  ['a-little-bit-longer-string', -1486304829, 2, 9, 7],
  ['lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8', -58897971, 2, 7, 5],
  ['abc', 479470107, 0, 7, 7],
];

test('murmur2 matches Kafka test vectors and Java partitions', () => {
  for (const [key, hash, p3, p10, platformatic10] of MURMUR2_VECTORS) {
    assert.equal(murmur2(key), hash, key);
    assert.equal(murmur2(Buffer.from(key)), hash, key);
    assert.equal(murmur2Partition(key, 3), p3, key);
    assert.equal(murmur2Partition(key, 10), p10, key);
    assert.equal((murmur2(key) >>> 0) % 10, platformatic10, key);
  }
});

test('murmur2 agrees with kafkajs (independent Long-based implementation) on random keys', () => {
  const require = createRequire(import.meta.url);
  const kafkajsMurmur2 = require('kafkajs/src/producer/partitioners/default/murmur2.js') as (
    k: Buffer,
  ) => number;
  let seed = 12345;
  const rand = () => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed >>> 16;
  };
  for (let len = 0; len < 70; len++) {
    const key = Buffer.alloc(len);
    for (let i = 0; i < len; i++) key[i] = rand() & 0xff;
    assert.equal(murmur2(key), kafkajsMurmur2(key), key.toString('hex'));
  }
});

test('murmur2Partition: null key → null (sticky), empty key is hashed', () => {
  assert.equal(murmur2Partition(null, 10), null);
  assert.equal(murmur2Partition(new Uint8Array(0), 10), toPositive(murmur2(new Uint8Array(0))) % 10);
  assert.equal(toPositive(-1), 0x7fffffff);
  assert.equal(toPositive(-2147483648), 0);
});

test('crc32 and consistent_random match CLIENTS.md §5.3', () => {
  assert.equal(crc32('foobar'), 2666930069);
  assert.equal(crc32Partition('foobar', 10), 9);
  assert.equal(crc32Partition('foobar', 3), 2);
  assert.equal(crc32('abc'), 891568578);
  assert.equal(crc32Partition('abc', 10), 8);
  assert.equal(crc32('21'), 4252452532);
  assert.equal(crc32Partition('21', 10), 2);
  assert.equal(crc32('key-1'), 250396538);
  assert.equal(crc32Partition(Buffer.from('key-1'), 10), 8);
  // crc32 of nothing is 0 (librdkafka `consistent` maps null/empty keys to partition 0).
  assert.equal(crc32(new Uint8Array(0)), 0);
});

test('crc32 agrees with @node-rs/crc32 on random data', () => {
  for (let len = 1; len < 300; len += 7) {
    const buf = Buffer.alloc(len, len * 31);
    buf[0] = len;
    assert.equal(crc32(buf), nativeCrc32(buf) >>> 0);
  }
});

test('crc32Partition: null and empty keys → null (sticky)', () => {
  assert.equal(crc32Partition(null, 4), null);
  assert.equal(crc32Partition('', 4), null);
  assert.equal(crc32Partition(new Uint8Array(0), 4), null);
});

test('invalid partition counts throw INVALID_PARTITIONS', () => {
  for (const n of [0, -1, 1.5, Number.NaN, 2 ** 31]) {
    for (const fn of [murmur2Partition, crc32Partition]) {
      assert.throws(
        () => fn('k', n),
        (e: unknown) => e instanceof KafkaError && e.errorName === 'INVALID_PARTITIONS',
      );
    }
  }
});
