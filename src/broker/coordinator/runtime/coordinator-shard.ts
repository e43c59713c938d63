// The contract between the generic runtime and one coordinator's state machine (group
// coordinator now, transaction coordinator later). Modelled on Kafka's coordinator-common:
// an operation returns the records to append plus its response; the response only leaves
// once the records are committed; durable state changes only by replaying records, so a
// shard loaded from the log is the same as the shard that wrote it.
import type { Clock } from './clock.js';
import type { SerializedRecord, TransactionalProducer } from './partition-writer.js';

export interface CoordinatorResult<R, T> {
  records: readonly R[];
  response: T;
  /**
   * False when the operation already made its change in memory and the records only persist
   * it (Kafka does the same for classic groups, whose join state is transient). Default true.
   */
  replayRecords?: boolean;
  /**
   * Runs on the shard once the records are committed (`null`) or failed to be written,
   * before the response is released. Used where one operation completes other waiters
   * (the leader's SyncGroup releases every member's assignment).
   */
  onAppended?: (err: Error | null) => void;
  /**
   * Writes the records as one transactional batch of this producer (TxnOffsetCommit): the
   * shard receives them through `replay(record, offset, producer)` and they stay pending until
   * `replayEndTransactionMarker` decides them.
   */
  transaction?: TransactionalProducer;
}

/** Takes one replayed record back out of a shard's state. */
export type Undo = () => void;

export interface CoordinatorShard<R> {
  /** Applies one committed (or about to be committed) record. The only way durable state changes. */
  replay(record: R, offset: bigint, producer?: TransactionalProducer): void;
  /**
   * `replay` for a record just written by an operation, returning how to take it back, or null
   * when this record cannot be taken back. When the log refuses a batch, the runtime undoes its
   * records (newest first) and fails exactly its operations; if any record of it returned null
   * (or the shard has no such method) the shard is reloaded from the log instead. An undo runs
   * only while every record replayed after it has been undone already.
   */
  replayUndoable?(record: R, offset: bigint, producer?: TransactionalProducer): Undo | null;
  /** A COMMIT/ABORT marker for `producerId` (written by the runtime or read at load). */
  replayEndTransactionMarker?(producerId: bigint, producerEpoch: number, commit: boolean): void;
  /** Called once the partition is fully loaded, before the first operation (start timers here). */
  onLoaded(): void;
  /** Called when the shard is dropped: partition moved, broker stopping or a failed write. */
  onUnloaded(): void;
}

export interface RecordSerde<R> {
  serialize(record: R): SerializedRecord;
  /** Null for a record type this coordinator does not know: it is skipped, as Kafka does. */
  deserialize(record: SerializedRecord): R | null;
}

/** Keyed one-shot timers whose callbacks run as write operations on the shard. */
export interface CoordinatorTimer<R> {
  /** Schedules `op` after `delayMs`, replacing any timer with the same key. */
  schedule(key: string, delayMs: number, op: () => CoordinatorResult<R, unknown>): void;
  cancel(key: string): void;
  isScheduled(key: string): boolean;
  readonly size: number;
}

export interface ShardContext<R> {
  readonly partition: number;
  readonly clock: Clock;
  readonly timer: CoordinatorTimer<R>;
}

export function result<R, T>(records: readonly R[], response: T): CoordinatorResult<R, T> {
  return { records, response };
}
