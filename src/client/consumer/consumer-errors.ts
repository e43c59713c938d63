// Consumer-specific typed errors. All extend the client's KafkaClientError (stable `code`,
// `retriable`), so applications can branch on `code` the same way as for producer errors.
import { ErrorCode } from '../../protocol/errors.js';
import { errorClass, KafkaClientError, KafkaResponseError } from '../errors.js';
import type { TopicPartition } from './types.js';

/** wakeup() was called: the blocked (or next) poll()/commitSync() gives up at once. */
export class WakeupError extends KafkaClientError {
  override name = 'WakeupError';
  constructor() {
    super('WAKEUP', 'consumer woken up', false);
  }
}

/** auto.offset.reset=none and a partition has no committed offset. */
export class NoOffsetForPartitionError extends KafkaClientError {
  override name = 'NoOffsetForPartitionError';
  readonly partitions: TopicPartition[];
  constructor(partitions: TopicPartition[]) {
    super(
      'NO_OFFSET_FOR_PARTITION',
      `no committed offset and auto.offset.reset=none for ${describe(partitions)}`,
      false,
    );
    this.partitions = partitions;
  }
}

/** auto.offset.reset=none and the position is outside the log (OFFSET_OUT_OF_RANGE). */
export class OffsetOutOfRangeError extends KafkaResponseError {
  override name = 'OffsetOutOfRangeError';
  readonly offsets: { topic: string; partition: number; offset: bigint }[];
  constructor(offsets: { topic: string; partition: number; offset: bigint }[]) {
    super(
      ErrorCode.OFFSET_OUT_OF_RANGE,
      `fetch positions out of range with auto.offset.reset=none: ${offsets.map((o) => `${o.topic}-${o.partition}@${o.offset}`).join(', ')}`,
    );
    this.offsets = offsets;
  }
}

/** Where a partition's log stopped agreeing with what the consumer read (KIP-320). */
export interface LogTruncation {
  topic: string;
  partition: number;
  /** The consumer's position when the truncation was found. */
  offset: bigint;
  /** Leader epoch of that position. */
  offsetEpoch: number;
  /** First offset the leader does not share with what was read; null if the leader knows none. */
  divergentOffset: bigint | null;
  /** Leader epoch of the divergent offset, −1 if unknown. */
  divergentEpoch: number;
}

/**
 * auto.offset.reset=none and the leader's log no longer holds records the consumer already
 * returned (an unclean leader change truncated them). The partition stays stopped until the
 * application seeks (e.g. to `divergentOffset`). Like Java's LogTruncationException, a kind of
 * OffsetOutOfRangeError.
 */
export class LogTruncationError extends OffsetOutOfRangeError {
  override name = 'LogTruncationError';
  readonly truncations: LogTruncation[];
  constructor(truncations: LogTruncation[]) {
    super(truncations.map((t) => ({ topic: t.topic, partition: t.partition, offset: t.offset })));
    this.truncations = truncations;
    this.message = `log truncation detected with auto.offset.reset=none: ${truncations.map(describeTruncation).join('; ')}`;
  }
}

function describeTruncation(t: LogTruncation): string {
  const divergent =
    t.divergentOffset === null
      ? 'divergent offset unknown'
      : `divergent offset ${t.divergentOffset} (epoch ${t.divergentEpoch})`;
  return `${t.topic}-${t.partition} at offset ${t.offset} (epoch ${t.offsetEpoch}), ${divergent}`;
}

/**
 * A commit failed because the group moved on (this member was removed or a rebalance completed
 * without it): the partitions may already belong to someone else, so it must not be retried.
 */
export class CommitFailedError extends errorClass('CommitFailedError', 'COMMIT_FAILED', false) {}

/** The rebalance listener threw; the original error is the cause. */
export class RebalanceListenerError extends KafkaClientError {
  override name = 'RebalanceListenerError';
  constructor(callback: string, cause: unknown) {
    super(
      'REBALANCE_LISTENER',
      `${callback} threw: ${cause instanceof Error ? cause.message : String(cause)}`,
      false,
      { cause },
    );
  }
}

function describe(tps: TopicPartition[]): string {
  return tps.map((tp) => `${tp.topic}-${tp.partition}`).join(', ');
}
