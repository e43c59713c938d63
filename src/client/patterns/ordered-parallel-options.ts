// Options of OrderedParallelConsumer, their defaults and checks, and the error it ends with when
// a record cannot be processed.

import { Consumer } from '../consumer/consumer.js';
import type { ConsumerOptions } from '../consumer/consumer-config.js';
import type { ConsumerRecord, RebalanceListener } from '../consumer/types.js';
import { ConfigError, KafkaClientError } from '../errors.js';

/**
 * What must stay in offset order: records with the same key of a partition ('key', the
 * default), all records of a partition ('partition'), or nothing ('unordered').
 */
export type OrderingMode = 'key' | 'partition' | 'unordered';

/** After the retries: end run() with the error ('stop', the default) or go on without the record. */
export type FailurePolicy = 'stop' | 'skip';

export interface RetryOptions {
  /** Attempts after the first failure, default 2 (so 3 attempts in all). */
  retries?: number;
  /** Delay before the first retry, doubled each time (±20% jitter), default 100 ms. */
  backoffMs?: number;
  /** Upper bound of the delay, default 10000 ms. */
  maxBackoffMs?: number;
}

export interface OrderedParallelOptions<K, V> {
  /**
   * The consumer to drive, or the options to create one. It needs a groupId and must not auto
   * commit (auto commit would commit past records still being processed). Created from options,
   * auto commit is turned off for you. Either way close() closes it.
   */
  consumer: Consumer<K, V> | ConsumerOptions<K, V>;
  /** What to subscribe to. */
  topics: readonly string[] | RegExp;
  /** Processes one record; a rejection is a failure (retried, then `onFailure`). */
  handler: (record: ConsumerRecord<K, V>) => Promise<void> | void;
  /** Default 'key'. */
  ordering?: OrderingMode;
  /** Handler calls running at once, default 16. */
  maxConcurrency?: number;
  /**
   * Records taken from the consumer and not yet processed (queued, running or waiting to
   * retry), default max(1000, maxConcurrency). At the bound the consumer's partitions are paused.
   */
  maxInFlightRecords?: number;
  /**
   * The ordering key of a record in 'key' mode; null = the record is ordered with its partition's
   * other keyless records. Default: the key's bytes (or the key itself when it is a string).
   */
  orderingKey?: (record: ConsumerRecord<K, V>) => string | null;
  /** How often completed work is committed (asynchronously), default 1000 ms. */
  commitIntervalMs?: number;
  retry?: RetryOptions;
  /** Default 'stop'. */
  onFailure?: FailurePolicy;
  /**
   * With onFailure 'skip': called (and awaited) before the record counts as done — the place to
   * write it to a dead-letter topic. If it throws, run() ends with that error.
   */
  onSkip?: (record: ConsumerRecord<K, V>, error: unknown, attempts: number) => Promise<void> | void;
  /**
   * How long giving up partitions (a rebalance revoke, close()) waits for their running handlers
   * before abandoning them, default 30000 ms. Keep it below max.poll.interval.ms.
   */
  revokeTimeoutMs?: number;
  /** Called after this consumer's own handling of each rebalance step. */
  rebalanceListener?: RebalanceListener;
}

export interface ResolvedOrderedParallelOptions<K, V> {
  topics: readonly string[] | RegExp;
  handler: (record: ConsumerRecord<K, V>) => Promise<void> | void;
  ordering: OrderingMode;
  maxConcurrency: number;
  maxInFlightRecords: number;
  orderingKey: (record: ConsumerRecord<K, V>) => string | null;
  commitIntervalMs: number;
  retries: number;
  backoffMs: number;
  maxBackoffMs: number;
  onFailure: FailurePolicy;
  onSkip: ((record: ConsumerRecord<K, V>, error: unknown, attempts: number) => Promise<void> | void) | null;
  revokeTimeoutMs: number;
  rebalanceListener: RebalanceListener | null;
}

/** A record failed every attempt with onFailure 'stop': run() rejects with this. */
export class RecordProcessingError extends KafkaClientError {
  override name = 'RecordProcessingError';
  readonly topic: string;
  readonly partition: number;
  readonly offset: bigint;
  readonly attempts: number;

  constructor(
    record: { topic: string; partition: number; offset: bigint },
    attempts: number,
    cause: unknown,
  ) {
    super(
      'RECORD_PROCESSING_FAILED',
      `processing ${record.topic}-${record.partition}@${record.offset} failed ${attempts} time(s): ${
        cause instanceof Error ? cause.message : String(cause)
      }`,
      false,
      { cause },
    );
    this.topic = record.topic;
    this.partition = record.partition;
    this.offset = record.offset;
    this.attempts = attempts;
  }
}

/** The default ordering key: the key's bytes, exactly (latin1 maps each byte to one char). */
export function defaultOrderingKey(record: ConsumerRecord<unknown, unknown>): string | null {
  const k = record.key;
  if (k === null || k === undefined) return null;
  if (Buffer.isBuffer(k)) return k.toString('latin1');
  if (typeof k === 'string') return k;
  return JSON.stringify(k) ?? String(k);
}

function positiveInt(name: string, v: number | undefined, def: number): number {
  if (v === undefined) return def;
  if (!Number.isInteger(v) || v < 1) throw new ConfigError(`${name} must be a positive integer, got ${v}`);
  return v;
}

function nonNegative(name: string, v: number | undefined, def: number, allowInfinity = false): number {
  if (v === undefined) return def;
  if (!(v >= 0) || (!allowInfinity && !Number.isFinite(v)))
    throw new ConfigError(`${name} must be a non-negative number, got ${v}`);
  return v;
}

export function resolveOrderedParallelOptions<K, V>(
  o: OrderedParallelOptions<K, V>,
): ResolvedOrderedParallelOptions<K, V> {
  if (typeof o.handler !== 'function') throw new ConfigError('handler must be a function');
  const ordering = o.ordering ?? 'key';
  if (!['key', 'partition', 'unordered'].includes(ordering))
    throw new ConfigError(`ordering must be key, partition or unordered, got ${String(ordering)}`);
  const onFailure = o.onFailure ?? 'stop';
  if (onFailure !== 'stop' && onFailure !== 'skip')
    throw new ConfigError(`onFailure must be stop or skip, got ${String(onFailure)}`);
  const maxConcurrency = positiveInt('maxConcurrency', o.maxConcurrency, 16);
  const maxInFlightRecords = positiveInt(
    'maxInFlightRecords',
    o.maxInFlightRecords,
    Math.max(1000, maxConcurrency),
  );
  return {
    topics: o.topics,
    handler: o.handler,
    ordering,
    maxConcurrency,
    maxInFlightRecords,
    orderingKey: o.orderingKey ?? defaultOrderingKey,
    commitIntervalMs: nonNegative('commitIntervalMs', o.commitIntervalMs, 1000),
    retries: nonNegative('retry.retries', o.retry?.retries, 2, true),
    backoffMs: nonNegative('retry.backoffMs', o.retry?.backoffMs, 100),
    maxBackoffMs: nonNegative('retry.maxBackoffMs', o.retry?.maxBackoffMs, 10_000),
    onFailure,
    onSkip: o.onSkip ?? null,
    revokeTimeoutMs: nonNegative('revokeTimeoutMs', o.revokeTimeoutMs, 30_000, true),
    rebalanceListener: o.rebalanceListener ?? null,
  };
}

/** The consumer to drive: the one given (checked) or a new one without auto commit. */
export function consumerFor<K, V>(c: Consumer<K, V> | ConsumerOptions<K, V>): Consumer<K, V> {
  if (c instanceof Consumer) {
    if (c.options.groupId === null)
      throw new ConfigError('OrderedParallelConsumer needs a consumer with a groupId (it commits offsets)');
    if (c.options.enableAutoCommit)
      throw new ConfigError(
        'OrderedParallelConsumer needs enableAutoCommit: false: auto commit would commit records still being processed',
      );
    return c;
  }
  if (c.groupId === undefined || c.groupId === '')
    throw new ConfigError('OrderedParallelConsumer needs a groupId (it commits offsets)');
  return new Consumer<K, V>({ ...c, enableAutoCommit: false });
}
