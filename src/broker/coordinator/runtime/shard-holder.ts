// One loaded partition of an internal topic: its shard, its timers, and the bookkeeping that
// holds responses back until their records are committed.
//
// Operations run synchronously on the event loop, so two operations of a shard never
// overlap. Records are replayed as soon as an operation returns (later operations see them),
// batched with those of the other operations of the same I/O turn — and of every turn while the
// previous append is in flight — and appended one batch at a time, each batch within the
// partition's max.message.bytes. A response waits for the commit of everything written before it
// returned, including records of earlier operations it may have read, so nothing uncommitted is
// ever answered.
//
// A batch the log refused outright (AppendRefusedError: too few in-sync replicas, too large) is
// taken back: its records are undone in the shard (newest first) and exactly its operations fail;
// the operations after it continue. Where that is impossible — a record the shard cannot undo,
// the leadership lost, or a failure after which the records may still be in the log (a commit
// timeout, a disk error) — the runtime drops the shard and reloads it from the log instead.

import { ErrorCode, KafkaError } from '../../../protocol/errors.js';
import type { Clock } from './clock.js';
import type {
  CoordinatorResult,
  CoordinatorShard,
  CoordinatorTimer,
  RecordSerde,
  Undo,
} from './coordinator-shard.js';
import { KeyedTimers } from './keyed-timers.js';
import {
  type AppendAttributes,
  AppendRefusedError,
  BATCH_HEADER_BYTES,
  type PartitionWriter,
  recordBytesBound,
  type SerializedRecord,
  type TransactionalProducer,
  type TransactionMarker,
} from './partition-writer.js';

export type ShardStatus = 'loading' | 'active' | 'closed';

/** How an operation's caller learns its outcome: an error, or null and the operation's response. */
export type OperationDone<T> = (err: Error | null, value: T | undefined) => void;

interface Waiter {
  offset: bigint;
  value: unknown;
  done: OperationDone<unknown>;
}

interface PendingBatch {
  records: SerializedRecord[];
  callbacks: Array<(err: Error | null) => void>;
  /** Transactional or marker batches are written alone; plain ones are merged. */
  attributes?: AppendAttributes;
  /** Offsets the batch takes: its records, or 1 for a marker. */
  size: number;
  /** Upper bound of its encoded size (`recordBytesBound`), header included. */
  bytes: number;
  /** The partition's batch limit when the batch was started (max.message.bytes is dynamic). */
  maxBytes: number;
  /** How to take its records back out of the shard, in replay order; null when some cannot be. */
  undo: Undo[] | null;
}

export interface HolderHooks {
  /** The shard's state can no longer be trusted (failed append): drop and reload it. */
  onWriteFailure(holder: ShardHolder<never, never>, err: Error): void;
  onError(partition: number, err: unknown): void;
}

export class ShardHolder<S extends CoordinatorShard<R>, R> {
  status: ShardStatus = 'loading';
  shard: S | null = null;
  readonly timer: CoordinatorTimer<R>;
  #nextOffset = 0n;
  #committed = 0n;
  #queue: PendingBatch[] = [];
  #waiters: Waiter[] = [];
  /** The batch being appended (one at a time per partition). */
  #inFlight: PendingBatch | null = null;
  #flushScheduled = false;
  readonly #timers: KeyedTimers<R>;

  constructor(
    readonly partition: number,
    private readonly writer: PartitionWriter,
    private readonly serde: RecordSerde<R>,
    private readonly clock: Clock,
    private readonly hooks: HolderHooks,
  ) {
    this.#timers = new KeyedTimers<R>(clock, (op) => {
      if (this.status !== 'active') return;
      this.write(op).catch((err: unknown) => hooks.onError(partition, err));
    });
    this.timer = this.#timers;
  }

  /** Marks the end of loading: everything in the log up to `endOffset` is committed. */
  activate(endOffset: bigint): void {
    this.#nextOffset = endOffset;
    this.#committed = endOffset;
    this.status = 'active';
  }

  get committedOffset(): bigint {
    return this.#committed;
  }

  write<T>(op: (shard: S) => CoordinatorResult<R, T>): Promise<T> {
    return new Promise<T>((resolve, reject) =>
      this.submit(op, (err, value) => (err === null ? resolve(value as T) : reject(err))),
    );
  }

  /**
   * `write` with a callback: `done` runs once (synchronously when the operation fails at once or
   * has nothing uncommitted to wait for). One object per operation waits, no promise: with a
   * thousand commits in flight, what each keeps alive until its append is what the scavenger
   * copies.
   */
  submit<T>(op: (shard: S) => CoordinatorResult<R, T>, done: OperationDone<T>): void {
    let shard: S;
    let res: CoordinatorResult<R, T>;
    try {
      shard = this.#checkActive();
      res = op(shard);
    } catch (err) {
      done(asError(err), undefined);
      return;
    }
    const records = res.records;
    if (records.length === 0 && res.onAppended === undefined) {
      this.#waitFor(this.#nextOffset, res.response, done);
      return;
    }
    const err = this.#stage(shard, res);
    if (err !== null) done(err, undefined);
    else this.#waitFor(this.#nextOffset, res.response, done);
  }

  /** Serializes, replays and batches an operation's records; the error that fails it, or null. */
  #stage(shard: S, res: CoordinatorResult<R, unknown>): Error | null {
    const records = res.records;
    // Serialize first: a record that cannot be encoded must fail the operation before
    // anything is replayed.
    const serialized: SerializedRecord[] = new Array(records.length);
    let bytes = 0;
    try {
      for (let i = 0; i < records.length; i++) {
        const s = this.serde.serialize(records[i] as R);
        serialized[i] = s;
        bytes += recordBytesBound(s);
      }
    } catch (err) {
      return asError(err);
    }
    const batch = this.#batchFor(res.transaction, bytes);
    if (batch === null) {
      // More than one batch may hold: the log would refuse it, so it is refused here, alone.
      const err = new KafkaError(
        ErrorCode.RECORD_LIST_TOO_LARGE,
        `${records.length} records of up to ${bytes} bytes exceed the ${this.#maxBatchBytes()} bytes a batch of partition ${this.partition} may hold`,
      );
      if (res.onAppended !== undefined) this.#safely(() => res.onAppended?.(err));
      return err;
    }
    if (res.replayRecords !== false) {
      try {
        for (let i = 0; i < records.length; i++) this.#replay(shard, batch, records[i] as R, res.transaction);
      } catch (err) {
        // Half-applied records leave the shard inconsistent with its log: reload it.
        const e = asError(err);
        this.#fail(e);
        return e;
      }
    } else {
      this.#nextOffset += BigInt(records.length);
    }
    const batchRecords = batch.records;
    for (let i = 0; i < serialized.length; i++) batchRecords.push(serialized[i] as SerializedRecord);
    batch.size += serialized.length;
    batch.bytes += bytes;
    if (res.onAppended !== undefined) batch.callbacks.push(res.onAppended);
    this.#scheduleFlush();
    return null;
  }

  #replay(shard: S, batch: PendingBatch, record: R, producer: TransactionalProducer | undefined): void {
    const offset = this.#nextOffset++;
    if (batch.undo === null || shard.replayUndoable === undefined) {
      batch.undo = null;
      shard.replay(record, offset, producer);
      return;
    }
    const undo = shard.replayUndoable(record, offset, producer);
    if (undo === null) batch.undo = null;
    else batch.undo.push(undo);
  }

  /**
   * Writes a transaction marker to this partition (WriteTxnMarkers for a coordinator's own
   * topic): the shard applies it at once, the promise resolves once it is committed.
   */
  writeMarker(marker: TransactionMarker): Promise<void> {
    const shard = this.#checkActive();
    try {
      shard.replayEndTransactionMarker?.(marker.producerId, marker.producerEpoch, marker.commit);
    } catch (err) {
      this.#fail(asError(err));
      throw err;
    }
    this.#nextOffset += 1n;
    this.#queue.push({
      records: [],
      callbacks: [],
      attributes: { marker },
      size: 1,
      bytes: BATCH_HEADER_BYTES,
      maxBytes: BATCH_HEADER_BYTES,
      undo: null,
    });
    this.#scheduleFlush();
    return new Promise<void>((resolve, reject) =>
      this.#waitFor(this.#nextOffset, undefined, (err) => (err === null ? resolve() : reject(err))),
    );
  }

  /**
   * The batch to add `bytes` of records to: the last queued one if it has the same framing and
   * room for them, else a new one; null when they would not fit even in an empty batch.
   */
  #batchFor(tx: TransactionalProducer | undefined, bytes: number): PendingBatch | null {
    const last = this.#queue.at(-1);
    if (last !== undefined && last.bytes + bytes <= last.maxBytes) {
      const lastTx = last.attributes?.transaction;
      if (tx === undefined ? last.attributes === undefined : sameProducer(tx, lastTx)) return last;
    }
    const max = this.#maxBatchBytes();
    if (BATCH_HEADER_BYTES + bytes > max) return null;
    const batch: PendingBatch = {
      records: [],
      callbacks: [],
      size: 0,
      bytes: BATCH_HEADER_BYTES,
      maxBytes: max,
      undo: [],
      ...(tx !== undefined ? { attributes: { transaction: tx } } : {}),
    };
    this.#queue.push(batch);
    return batch;
  }

  /**
   * The partition's batch limit, read whenever a batch is started: a lower max.message.bytes set
   * while a batch fills applies from the next one (the log may refuse that batch meanwhile).
   */
  #maxBatchBytes(): number {
    return this.writer.maxBatchBytes?.(this.partition) ?? Number.POSITIVE_INFINITY;
  }

  /** Fails every waiter and stops the shard's timers; the holder is unusable afterwards. */
  close(reason: Error): void {
    if (this.status === 'closed') return;
    this.status = 'closed';
    this.#timers.clear();
    const callbacks = this.#queue.flatMap((b) => b.callbacks);
    this.#queue = [];
    for (const cb of callbacks) this.#safely(() => cb(reason));
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const w of waiters) this.#safely(() => w.done(reason, undefined));
    if (this.shard !== null) this.#safely(() => this.shard?.onUnloaded());
  }

  #checkActive(): S {
    if (this.status === 'loading' || this.shard === null) {
      throw new KafkaError(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, `partition ${this.partition} is loading`);
    }
    if (this.status === 'closed') {
      throw new KafkaError(ErrorCode.NOT_COORDINATOR, `partition ${this.partition} is not loaded`);
    }
    return this.shard;
  }

  /** Calls `done` with `value` once everything up to `offset` is committed. */
  #waitFor<T>(offset: bigint, value: T, done: OperationDone<T>): void {
    if (this.#committed >= offset) done(null, value);
    else this.#waiters.push({ offset, value, done: done as OperationDone<unknown> });
  }

  #scheduleFlush(): void {
    if (this.#flushScheduled || this.#inFlight !== null) return;
    this.#flushScheduled = true;
    // setImmediate, not a microtask: requests read in the same I/O turn share one append.
    setImmediate(() => {
      this.#flushScheduled = false;
      this.#flush();
    });
  }

  #flush(): void {
    if (this.status !== 'active' || this.#inFlight !== null) return;
    const batch = this.#queue.shift();
    if (batch === undefined) return;
    const end = this.#committed + BigInt(batch.size);
    this.#inFlight = batch;
    let appended: Promise<bigint>;
    try {
      appended = this.writer.append(this.partition, batch.records, this.clock.now(), batch.attributes);
    } catch (err) {
      appended = Promise.reject(err);
    }
    // The writer has the records now (encoded, or kept itself): the batch no longer holds their
    // bytes alive while the append waits for the disk and the high watermark.
    batch.records = [];
    appended.then(
      (logEnd) => this.#appended(batch, end, logEnd),
      (err: unknown) => this.#appendFailed(batch, asError(err)),
    );
  }

  #appended(batch: PendingBatch, end: bigint, logEnd: bigint): void {
    if (this.status !== 'active') return;
    this.#inFlight = null;
    if (logEnd !== end) {
      const err = new Error(`partition ${this.partition}: log end ${logEnd} after append, expected ${end}`);
      for (const cb of batch.callbacks) this.#safely(() => cb(err));
      this.#fail(err);
      return;
    }
    this.#committed = end;
    for (const cb of batch.callbacks) this.#safely(() => cb(null));
    this.#release();
    this.#scheduleFlush();
  }

  #appendFailed(batch: PendingBatch, err: Error): void {
    if (this.status !== 'active') return;
    this.#inFlight = null;
    if (this.#takeBack(batch, err)) return;
    for (const cb of batch.callbacks) this.#safely(() => cb(err));
    this.#fail(err);
  }

  /**
   * Undoes a refused batch — and the batches queued behind it, whose operations ran on top of
   * it (normally none: a refusal comes back before the next I/O turn) — then fails exactly their
   * operations and the reads waiting on them. False when the shard must be reloaded instead.
   */
  #takeBack(refused: PendingBatch, err: Error): boolean {
    const code = failureCode(err);
    if (!(err instanceof AppendRefusedError) || code === ErrorCode.NOT_COORDINATOR) return false;
    const batches = [refused, ...this.#queue];
    if (batches.some((b) => b.undo === null)) return false;
    try {
      for (let i = batches.length - 1; i >= 0; i--) {
        const undo = (batches[i] as PendingBatch).undo as Undo[];
        for (let j = undo.length - 1; j >= 0; j--) (undo[j] as Undo)();
      }
    } catch (undoErr) {
      this.hooks.onError(this.partition, undoErr);
      return false;
    }
    this.hooks.onError(this.partition, err);
    // Reset before the callbacks run: one may start a new operation (a rebalance).
    this.#queue = [];
    this.#nextOffset = this.#committed;
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const b of batches) for (const cb of b.callbacks) this.#safely(() => cb(err));
    const reason = new KafkaError(code, `write to partition ${this.partition} refused: ${err.message}`);
    for (const w of waiters) this.#safely(() => w.done(reason, undefined));
    return true;
  }

  #release(): void {
    const waiters = this.#waiters;
    let i = 0;
    while (i < waiters.length && (waiters[i] as Waiter).offset <= this.#committed) i++;
    if (i === 0) return;
    const ready = waiters.splice(0, i);
    for (let j = 0; j < ready.length; j++) {
      const w = ready[j] as Waiter;
      try {
        w.done(null, w.value);
      } catch (err) {
        this.hooks.onError(this.partition, err);
      }
    }
  }

  #fail(cause: Error): void {
    this.hooks.onError(this.partition, cause);
    this.close(
      new KafkaError(failureCode(cause), `write to partition ${this.partition} failed: ${cause.message}`),
    );
    this.hooks.onWriteFailure(this as unknown as ShardHolder<never, never>, cause);
  }

  #safely(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.hooks.onError(this.partition, err);
    }
  }
}

function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}

function sameProducer(a: TransactionalProducer, b: TransactionalProducer | undefined): boolean {
  return b !== undefined && a.producerId === b.producerId && a.producerEpoch === b.producerEpoch;
}

/**
 * The code a failed append answers with, as Kafka's coordinators map it: a lost leadership (or
 * log dir) means another broker coordinates now (NOT_COORDINATOR: the client looks it up
 * again); a batch too large for the log RECORD_LIST_TOO_LARGE (OffsetCommit answers it as
 * INVALID_COMMIT_OFFSET_SIZE, other operations as UNKNOWN_SERVER_ERROR: `errorCodeOf`); anything
 * else (too few replicas, a commit timeout) COORDINATOR_NOT_AVAILABLE.
 */
function failureCode(cause: Error): number {
  const code = cause instanceof KafkaError ? cause.code : ErrorCode.UNKNOWN_SERVER_ERROR;
  if (
    code === ErrorCode.NOT_LEADER_OR_FOLLOWER ||
    code === ErrorCode.NOT_COORDINATOR ||
    code === ErrorCode.KAFKA_STORAGE_ERROR
  ) {
    return ErrorCode.NOT_COORDINATOR;
  }
  return code === ErrorCode.MESSAGE_TOO_LARGE || code === ErrorCode.RECORD_LIST_TOO_LARGE
    ? ErrorCode.RECORD_LIST_TOO_LARGE
    : ErrorCode.COORDINATOR_NOT_AVAILABLE;
}
