// Partition choice. Keyed records: Java's murmur2 (default, same partitions as the Java client
// and kafkajs) or librdkafka's CRC-32 (same partitions as kcat/confluent-kafka), or a user
// function. Null keys (and keys when partitionerIgnoreKeys is set): Java's sticky partitioner
// (KIP-480/794) — stay on one partition until batch.size bytes went to it, then move to a random
// other partition that has a leader, so batches fill up instead of spreading thin.
import { crc32Partition, murmur2Partition } from '../../protocol/partitioners.js';

export interface PartitionerContext {
  topic: string;
  /** Serialized key, null for none. */
  key: Buffer | null;
  numPartitions: number;
  /** Partitions that currently have a leader. */
  availablePartitions: readonly number[];
}

/** Returns a partition, or null/undefined to use the sticky partition. */
export type PartitionerFn = (ctx: PartitionerContext) => number | null | undefined;

export type PartitionerOption = 'murmur2' | 'crc32' | PartitionerFn;

interface StickyState {
  partition: number;
  bytes: number;
}

export class Partitioner {
  /** A user function; null for the built-in hashes, which are called without a context object. */
  readonly #user: PartitionerFn | null;
  /** Built-in hash; null means "no usable key" (librdkafka's CRC-32 treats an empty key so). */
  readonly #hash: (key: Buffer, n: number) => number | null;
  readonly #batchSize: number;
  readonly #ignoreKeys: boolean;
  #sticky = new Map<string, StickyState>();

  constructor(option: PartitionerOption, batchSize: number, ignoreKeys: boolean) {
    this.#batchSize = batchSize;
    this.#ignoreKeys = ignoreKeys;
    this.#user = typeof option === 'function' ? option : null;
    this.#hash = option === 'crc32' ? crc32Partition : murmur2Partition;
  }

  /** The partition for a record; `size` feeds the sticky byte count. */
  partition(
    topic: string,
    key: Buffer | null,
    numPartitions: number,
    available: readonly number[],
    size: number,
  ): number {
    const user = this.#user;
    if (user !== null) {
      if (!this.#ignoreKeys) {
        const p = user({ topic, key, numPartitions, availablePartitions: available });
        if (p !== null && p !== undefined) return p;
      }
    } else if (key !== null && !this.#ignoreKeys) {
      const p = this.#hash(key, numPartitions);
      if (p !== null) return p;
    }
    return this.#stickyPartition(topic, numPartitions, available, size);
  }

  #stickyPartition(topic: string, n: number, available: readonly number[], size: number): number {
    if (n === 1) return 0; // nothing to stick to or switch between
    let s = this.#sticky.get(topic);
    if (s === undefined || s.partition >= n) {
      s = { partition: pickRandom(n, available, -1), bytes: 0 };
      this.#sticky.set(topic, s);
    } else if (s.bytes >= this.#batchSize) {
      s.partition = pickRandom(n, available, s.partition);
      s.bytes = 0;
    }
    s.bytes += size;
    return s.partition;
  }
}

/** Uniform choice among available partitions (all if none has a leader), avoiding `previous`. */
function pickRandom(n: number, available: readonly number[], previous: number): number {
  const from = available.length > 0 ? available : null;
  const count = from === null ? n : from.length;
  if (count === 1) return from === null ? 0 : from[0]!;
  for (;;) {
    const i = Math.floor(Math.random() * count);
    const p = from === null ? i : from[i]!;
    if (p !== previous) return p;
  }
}
