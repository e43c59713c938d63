// The public shape of a partition's log, as the broker sees it. The implementation is
// `UnifiedLog` (unified-log.ts); the broker codes against this interface so the layers can move
// independently.
import type { LogConfig } from './log-config.js';
import type { VerificationGuard } from './producer-state.js';

/** Where an append comes from: Kafka's `AppendOrigin`. Only coordinators may write control batches. */
export type AppendOrigin = 'client' | 'coordinator';

export interface AppendOptions {
  /** Default `'client'`: control (transaction marker) batches are rejected with INVALID_RECORD. */
  origin?: AppendOrigin;
  /**
   * KIP-890: set when the broker verifies transactional writes. A transactional batch whose
   * transaction is not open on the partition is appended only with the guard
   * `startTransactionVerification` gave and the partition still holds; else INVALID_TXN_STATE.
   */
  verificationGuard?: VerificationGuard;
}

export interface AppendResult {
  /** Offset of the first record of the batch (the original one when `duplicate`). */
  baseOffset: bigint;
  lastOffset: bigint;
  /** The broker time written into the batch when the topic uses LogAppendTime; -1n for CreateTime. */
  logAppendTime: bigint;
  logStartOffset: bigint;
  /** True when an idempotent producer re-sent a batch that is already in the log. */
  duplicate?: boolean;
}

/** Offsets of the batches a follower appended; null when `batches` held no complete batch. */
export interface FollowerAppendResult {
  firstOffset: bigint;
  lastOffset: bigint;
}

/**
 * Upper bound of a read: `'hw'` (consumers, read_uncommitted), `'lso'` (read_committed; the
 * result then carries `abortedTransactions`), `'leo'` (followers), or an explicit exclusive
 * offset. Only batches whose last offset is below the bound are returned.
 */
export type ReadUpperBound = 'hw' | 'lso' | 'leo' | bigint;

export interface ReadOptions {
  /** Byte budget; whole batches only. */
  maxBytes: number;
  upperBound: ReadUpperBound;
  /** Return the first batch even when it alone exceeds `maxBytes` (Kafka's minOneMessage). */
  minOneBatch: boolean;
  /**
   * Where the bytes read from files (or gathered from the tail cache) go; default fresh
   * buffers. The result may be a subarray of one of them (or a tail-cache buffer, which is never
   * from here), and the log keeps no reference to any of them once the read has settled, so the
   * caller may reuse them after it is done with the result. Buffers of a read that had to be
   * retried are simply dropped.
   */
  allocate?: (size: number) => Buffer;
}

export interface AbortedTransaction {
  producerId: bigint;
  firstOffset: bigint;
}

export interface ReadResult {
  /**
   * Raw bytes of whole batches, starting at the batch that contains `fetchOffset` (its base
   * offset may be lower than the fetch offset; clients skip the earlier records). Empty when
   * nothing below the upper bound is available.
   */
  records: Buffer;
  highWatermark: bigint;
  lastStableOffset: bigint;
  logStartOffset: bigint;
  /** Only for `upperBound: 'lso'`: aborted transactions overlapping the returned range. */
  abortedTransactions?: AbortedTransaction[];
}

export interface TimestampOffset {
  offset: bigint;
  timestamp: bigint;
  /** Leader epoch of the batch holding `offset`, or -1 when unknown. */
  leaderEpoch: number;
}

/** ListOffsets special timestamps (Kafka's ListOffsetsRequest constants). */
export const LATEST_TIMESTAMP = -1n;
export const EARLIEST_TIMESTAMP = -2n;
export const MAX_TIMESTAMP = -3n;

/** Answer of OffsetForLeaderEpoch: Kafka returns (-1, -1) for an epoch it cannot place. */
export interface EpochEndOffset {
  leaderEpoch: number;
  endOffset: bigint;
}

/** One producer's state in this partition (DescribeProducers, tests). */
export interface ProducerStateView {
  producerId: bigint;
  producerEpoch: number;
  /** Last appended sequence, -1 when none is known (e.g. after a marker only). */
  lastSequence: number;
  lastTimestamp: bigint;
  coordinatorEpoch: number;
  /** First offset of the open transaction, or -1n. */
  currentTxnStartOffset: bigint;
}

export type AppendListener = (log: PartitionLog) => void;

export interface PartitionLog {
  readonly topic: string;
  readonly partition: number;
  /** Directory of this partition: `<log.dir>/<topic>-<partition>`. */
  readonly dir: string;
  /** Kafka uuid text form (22 chars, URL-safe base64), from `partition.metadata`. */
  readonly topicId: string;
  readonly config: LogConfig;

  readonly logStartOffset: bigint;
  /**
   * Offset after the last batch whose write has completed (to the page cache). Offsets of
   * appends still in flight are assigned but not yet counted here.
   */
  readonly logEndOffset: bigint;
  readonly highWatermark: bigint;
  /** First offset of the oldest open transaction, or the high watermark when none is open. */
  readonly lastStableOffset: bigint;
  /** Latest leader epoch in the epoch cache, or -1 when the cache is empty. */
  readonly latestEpoch: number;
  /** Bytes on disk over all segments' `.log` files. */
  readonly size: number;
  readonly segmentCount: number;

  /**
   * Validates one v2 batch from a Produce request (CRC, header, producer sequences), assigns its
   * offsets in place, stamps `leaderEpoch` and (when configured) LogAppendTime, and writes it.
   * Offsets are assigned synchronously, in call order; several appends may be in flight. With
   * `flush.messages=1` the promise resolves only after fsync. Throws `KafkaError`.
   */
  appendAsLeader(batch: Buffer, leaderEpoch: number, options?: AppendOptions): Promise<AppendResult>;
  /** Appends batches fetched from the leader, keeping their offsets and epochs. Throws `KafkaError`. */
  appendAsFollower(batches: Buffer): Promise<FollowerAppendResult | null>;
  /** Throws `KafkaError(OFFSET_OUT_OF_RANGE)` below the log start offset or above the log end offset. */
  read(fetchOffset: bigint, options: ReadOptions): Promise<ReadResult>;
  /**
   * Moves the high watermark (clamped to [logStartOffset, logEndOffset]); the log never moves it
   * forward by itself. Listeners registered with `onAppend` are notified when it changes.
   */
  setHighWatermark(offset: bigint): void;
  /** Called after appends complete and after high-watermark moves; returns an unsubscribe function. */
  onAppend(listener: AppendListener): () => void;
  /** ListOffsets: -1n latest (LEO), -2n earliest, -3n max timestamp, else first offset with timestamp ≥ ts. */
  offsetForTimestamp(timestamp: bigint): Promise<TimestampOffset | null>;
  /** Removes every batch at or after `offset` (replication truncation). */
  truncateTo(offset: bigint): Promise<void>;
  /** Deletes everything and restarts the log empty at `offset`. */
  truncateFullyAndStartAt(offset: bigint): Promise<void>;
  /** DeleteRecords: moves the log start offset forward (≤ high watermark); returns the new start. */
  deleteRecordsBefore(offset: bigint): Promise<bigint>;
  /** OffsetForLeaderEpoch: the end offset of `epoch` (start of the next higher epoch, or LEO). */
  endOffsetForEpoch(epoch: number): EpochEndOffset;
  /**
   * A new leader records that `epoch` starts at its log end before its first append (Kafka's
   * maybeAssignEpochStartOffset), so a follower that went on in an older epoch learns where it
   * diverged (OffsetForLeaderEpoch, the Fetch diverging epoch) even before anything is written.
   */
  assignEpochStartOffset(epoch: number): void;
  producerStates(): ProducerStateView[];
  /**
   * KIP-890, before verifying a transactional batch: `NO_GUARD` when the producer's transaction
   * is already open here at `epoch`, else the guard to append with once verified.
   */
  startTransactionVerification(producerId: bigint, epoch: number): VerificationGuard;
  /**
   * A client batch for this partition was refused before reaching the log, with retriable
   * `errorCode` (not the leader, fenced, ISR below min.insync.replicas): the producer's batches
   * pipelined right behind it get the same answer instead of OUT_OF_ORDER_SEQUENCE_NUMBER
   * (`producer-refusals.ts`).
   */
  noteRefusedBatch(batch: Buffer, errorCode: number): void;
  /** fsync of everything written so far; moves the recovery point. */
  flush(): Promise<void>;
}
