// Key → partition functions that must agree bit for bit with other clients, so that a record
// keyed "k" lands on the same partition whichever producer wrote it.
//
// - Java producers and kafkajs: `toPositive(murmur2(key)) % n` (murmur2 over the key bytes).
// - librdkafka (kcat, confluent-kafka-*) default `consistent_random`: `crc32(key) % n`, unsigned.
// Null keys (and, for librdkafka, empty keys) are not hashed: the caller picks a sticky partition.
// `n` is the number of all partitions of the topic, available or not.

import * as zlib from 'node:zlib';
import { crc32 as nativeCrc32 } from '@node-rs/crc32';
import { ErrorCode, KafkaError } from './errors.js';

export type PartitionKey = Uint8Array | string;

const utf8 = new TextEncoder();

function keyBytes(key: PartitionKey): Uint8Array {
  return typeof key === 'string' ? utf8.encode(key) : key;
}

function checkPartitionCount(n: number): void {
  if (!Number.isInteger(n) || n <= 0 || n > 0x7fffffff) {
    throw new KafkaError(ErrorCode.INVALID_PARTITIONS, `Partition count must be a positive int32, got ${n}.`);
  }
}

const SEED = 0x9747b28c;
const M = 0x5bd1e995;

/**
 * Kafka's murmur2 (`Utils.murmur2`) as a signed int32. Java does the arithmetic on wrapping
 * 32-bit ints; `Math.imul` and `| 0` reproduce that exactly, `>>>` is Java's logical shift.
 */
export function murmur2(key: PartitionKey): number {
  const data = keyBytes(key);
  const len = data.length;
  let h = SEED ^ len;
  const blockEnd = len & ~3;
  for (let i = 0; i < blockEnd; i += 4) {
    let k = data[i]! | (data[i + 1]! << 8) | (data[i + 2]! << 16) | (data[i + 3]! << 24);
    k = Math.imul(k, M);
    k ^= k >>> 24;
    k = Math.imul(k, M);
    h = Math.imul(h, M) ^ k;
  }
  const rest = len & 3;
  if (rest >= 3) h ^= data[blockEnd + 2]! << 16;
  if (rest >= 2) h ^= data[blockEnd + 1]! << 8;
  if (rest >= 1) {
    h ^= data[blockEnd]!;
    h = Math.imul(h, M);
  }
  h ^= h >>> 13;
  h = Math.imul(h, M);
  h ^= h >>> 15;
  return h | 0;
}

/** Kafka's `Utils.toPositive`: clears the sign bit (not `Math.abs`, which differs for negatives). */
export function toPositive(n: number): number {
  return n & 0x7fffffff;
}

/**
 * Java's `BuiltInPartitioner.partitionForKey` (also kafkajs and librdkafka `murmur2_random`).
 * Returns null for a null key: Java then uses its sticky partitioner. An empty key is hashed.
 */
export function murmur2Partition(key: PartitionKey | null, numPartitions: number): number | null {
  checkPartitionCount(numPartitions);
  if (key === null) return null;
  return toPositive(murmur2(key)) % numPartitions;
}

// zlib.crc32 exists from Node 20.15; the package supports any Node 20, so keep a fallback.
const zlibCrc32 = (zlib as { crc32?: (data: Uint8Array) => number }).crc32;

/** Standard CRC-32 (zlib / IEEE 802.3), unsigned. librdkafka's `rd_crc32` is the same function. */
export function crc32(key: PartitionKey): number {
  const data = keyBytes(key);
  return (zlibCrc32 !== undefined ? zlibCrc32(data) : nativeCrc32(data)) >>> 0;
}

/**
 * librdkafka's `consistent_random` for keyed records: `crc32(key) % n`. Returns null for a
 * null or empty key, for which librdkafka uses its (time-based) sticky partition instead.
 */
export function crc32Partition(key: PartitionKey | null, numPartitions: number): number | null {
  checkPartitionCount(numPartitions);
  if (key === null || key.length === 0) return null;
  return crc32(key) % numPartitions;
}
