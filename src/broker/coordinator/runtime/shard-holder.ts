// One loaded partition of an internal topic: its shard, its timers, and the bookkeeping that
// holds responses back until their records are committed.
//
// Operations run synchronously on the event loop, so two operations of a shard never
// overlap. Records are replayed as soon as an operation returns (later operations see them),
// batched with those of other operations of the same I/O turn, and appended one batch at a
// time. A response waits for the commit of everything written before it returned, including
// records of earlier operations it may have read. If an append fails, the in-memory state
// contains records that never made it to the log: the runtime then drops the shard and
// reloads it from the log rather than trying to undo them.

import { ErrorCode, KafkaError } from '../../../protocol/errors.js';
import type { Clock } from './clock.js';
import type {
  CoordinatorResult,
  CoordinatorShard,
  CoordinatorTimer,
  RecordSerde,
} from './coordinator-shard.js';
import { KeyedTimers } from './keyed-timers.js';
import type {
  AppendAttributes,
  PartitionWriter,
  SerializedRecord,
  TransactionMarker,
} from './partition-writer.js';

export type ShardStatus = 'loading' | 'active' | 'closed';

interface Waiter {
  offset: bigint;
  resolve: () => void;
  reject: (err: Error) => void;
}

interface PendingBatch {
  records: SerializedRecord[];
  callbacks: Array<(err: Error | null) => void>;
  /** Transactional or marker batches are written alone; plain ones are merged. */
  attributes?: AppendAttributes;
  /** Offsets the batch takes: its records, or 1 for a marker. */
  size: number;
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
  #appending = false;
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
    const shard = this.#checkActive();
    const res = op(shard);
    if (res.records.length === 0 && res.onAppended === undefined) {
      return this.#waitFor(this.#nextOffset, res.response);
    }
    // Serialize first: a record that cannot be encoded must fail the operation before
    // anything is replayed.
    const serialized = res.records.map((r) => this.serde.serialize(r));
    if (res.replayRecords !== false) {
      try {
        for (const r of res.records) shard.replay(r, this.#nextOffset++, res.transaction);
      } catch (err) {
        // Half-applied records leave the shard inconsistent with its log: reload it.
        this.#fail(err instanceof Error ? err : new Error(String(err)));
        throw err;
      }
    } else {
      this.#nextOffset += BigInt(res.records.length);
    }
    const batch = this.#batchFor(
      res.transaction === undefined ? undefined : { transaction: res.transaction },
    );
    batch.records.push(...serialized);
    batch.size += serialized.length;
    if (res.onAppended !== undefined) batch.callbacks.push(res.onAppended);
    this.#scheduleFlush();
    return this.#waitFor(this.#nextOffset, res.response);
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
      this.#fail(err instanceof Error ? err : new Error(String(err)));
      throw err;
    }
    this.#nextOffset += 1n;
    this.#queue.push({ records: [], callbacks: [], attributes: { marker }, size: 1 });
    this.#scheduleFlush();
    return this.#waitFor(this.#nextOffset, undefined);
  }

  /** The batch to add records to: the last one if it has the same framing, else a new one. */
  #batchFor(attributes: AppendAttributes | undefined): PendingBatch {
    const last = this.#queue.at(-1);
    if (attributes === undefined && last !== undefined && last.attributes === undefined) return last;
    const tx = attributes?.transaction;
    const lastTx = last?.attributes?.transaction;
    if (
      tx !== undefined &&
      lastTx !== undefined &&
      tx.producerId === lastTx.producerId &&
      tx.producerEpoch === lastTx.producerEpoch
    ) {
      return last as PendingBatch;
    }
    const batch: PendingBatch = {
      records: [],
      callbacks: [],
      size: 0,
      ...(attributes !== undefined ? { attributes } : {}),
    };
    this.#queue.push(batch);
    return batch;
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
    for (const w of waiters) w.reject(reason);
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

  /** Resolves with `value` once everything up to `offset` is committed (one promise per operation). */
  #waitFor<T>(offset: bigint, value: T): Promise<T> {
    if (this.#committed >= offset) return Promise.resolve(value);
    return new Promise((resolve, reject) =>
      this.#waiters.push({ offset, resolve: () => resolve(value), reject }),
    );
  }

  #scheduleFlush(): void {
    if (this.#flushScheduled || this.#appending) return;
    this.#flushScheduled = true;
    // setImmediate, not a microtask: requests read in the same I/O turn share one append.
    setImmediate(() => {
      this.#flushScheduled = false;
      this.#flush();
    });
  }

  #flush(): void {
    if (this.status !== 'active' || this.#appending) return;
    const batch = this.#queue.shift();
    if (batch === undefined) return;
    const end = this.#committed + BigInt(batch.size);
    this.#appending = true;
    this.writer.append(this.partition, batch.records, this.clock.now(), batch.attributes).then(
      (logEnd) => {
        if (this.status !== 'active') return;
        this.#appending = false;
        if (logEnd !== end) {
          this.#fail(
            new Error(`partition ${this.partition}: log end ${logEnd} after append, expected ${end}`),
          );
          return;
        }
        this.#committed = end;
        for (const cb of batch.callbacks) this.#safely(() => cb(null));
        this.#release();
        this.#scheduleFlush();
      },
      (err: unknown) => {
        if (this.status !== 'active') return;
        this.#appending = false;
        const error = err instanceof Error ? err : new Error(String(err));
        for (const cb of batch.callbacks) this.#safely(() => cb(error));
        this.#fail(error);
      },
    );
  }

  #release(): void {
    let i = 0;
    while (i < this.#waiters.length && (this.#waiters[i] as Waiter).offset <= this.#committed) i++;
    const ready = this.#waiters.splice(0, i);
    for (const w of ready) w.resolve();
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

/**
 * The code a failed append answers with, as Kafka's coordinators map it: a lost leadership (or
 * log dir) means another broker coordinates now (NOT_COORDINATOR: the client looks it up
 * again); anything else (too few replicas, a commit timeout) COORDINATOR_NOT_AVAILABLE.
 */
function failureCode(cause: Error): number {
  const code = cause instanceof KafkaError ? cause.code : ErrorCode.UNKNOWN_SERVER_ERROR;
  return code === ErrorCode.NOT_LEADER_OR_FOLLOWER ||
    code === ErrorCode.NOT_COORDINATOR ||
    code === ErrorCode.KAFKA_STORAGE_ERROR
    ? ErrorCode.NOT_COORDINATOR
    : ErrorCode.COORDINATOR_NOT_AVAILABLE;
}
