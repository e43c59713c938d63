// Runs one shard per partition of an internal topic (__consumer_offsets for groups,
// __transaction_state for transactions). Knows nothing about groups or transactions: the
// coordinator supplies a shard factory and a record serde.

import { ErrorCode, KafkaError } from '../../../protocol/errors.js';
import type { Clock } from './clock.js';
import type { CoordinatorResult, CoordinatorShard, RecordSerde, ShardContext } from './coordinator-shard.js';
import type { PartitionLoader, PartitionWriter, TransactionMarker } from './partition-writer.js';
import { type OperationDone, ShardHolder } from './shard-holder.js';

const notCoordinator = (partition: number) =>
  new KafkaError(ErrorCode.NOT_COORDINATOR, `not the coordinator for partition ${partition}`);

export interface CoordinatorRuntimeOptions<S extends CoordinatorShard<R>, R> {
  writer: PartitionWriter;
  loader: PartitionLoader;
  serde: RecordSerde<R>;
  clock: Clock;
  newShard(ctx: ShardContext<R>): S;
  /** Failures nobody awaits (timer operations, failed loads); for logs and metrics. */
  onError?(partition: number, err: unknown): void;
}

export class CoordinatorRuntime<S extends CoordinatorShard<R>, R> {
  readonly #opts: CoordinatorRuntimeOptions<S, R>;
  readonly #holders = new Map<number, ShardHolder<S, R>>();
  /** Holder of each load, to tell a shard from the one a reload replaced (`generation`). */
  readonly #generations = new WeakMap<ShardHolder<S, R>, number>();
  #loadCount = 0;
  #closed = false;

  constructor(opts: CoordinatorRuntimeOptions<S, R>) {
    this.#opts = opts;
  }

  /**
   * Becomes coordinator for `partition`: replays its log into a fresh shard. Operations on
   * it fail with COORDINATOR_LOAD_IN_PROGRESS until the promise resolves.
   */
  async load(partition: number): Promise<void> {
    if (this.#closed) throw new KafkaError(ErrorCode.NOT_COORDINATOR, 'runtime closed');
    const existing = this.#holders.get(partition);
    if (existing !== undefined && existing.status !== 'closed') return;
    const opts = this.#opts;
    const holder = new ShardHolder<S, R>(partition, opts.writer, opts.serde, opts.clock, {
      onWriteFailure: () => {
        if (this.#holders.get(partition) !== holder) return;
        this.#holders.delete(partition);
        this.load(partition).catch((err: unknown) => this.#onError(partition, err));
      },
      onError: (p, err) => this.#onError(p, err),
    });
    this.#holders.set(partition, holder);
    this.#generations.set(holder, ++this.#loadCount);
    const shard = opts.newShard({ partition, clock: opts.clock, timer: holder.timer });
    holder.shard = shard;
    try {
      const end = await opts.loader.load(
        partition,
        (records) => {
          if (holder.status !== 'loading') return;
          for (const rec of records) {
            const decoded = opts.serde.deserialize(rec);
            if (decoded !== null) shard.replay(decoded, rec.offset, rec.producer);
          }
        },
        (marker) => {
          if (holder.status === 'loading')
            shard.replayEndTransactionMarker?.(marker.producerId, marker.producerEpoch, marker.commit);
        },
      );
      if (holder.status !== 'loading') return; // unloaded meanwhile
      holder.activate(end);
      shard.onLoaded();
    } catch (err) {
      if (this.#holders.get(partition) === holder) this.#holders.delete(partition);
      holder.close(new KafkaError(ErrorCode.NOT_COORDINATOR, `load of partition ${partition} failed`));
      throw err;
    }
  }

  /** Stops being coordinator for `partition`; waiting operations fail with NOT_COORDINATOR. */
  unload(partition: number): void {
    const holder = this.#holders.get(partition);
    if (holder === undefined) return;
    this.#holders.delete(partition);
    holder.close(new KafkaError(ErrorCode.NOT_COORDINATOR, `partition ${partition} unloaded`));
  }

  /** Runs a write operation; resolves with its response once its records are committed. */
  write<T>(partition: number, op: (shard: S) => CoordinatorResult<R, T>): Promise<T> {
    try {
      return this.#holder(partition).write(op);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /**
   * `write` with a callback instead of a promise (`ShardHolder.submit`): for the hot paths that
   * answer many operations in flight at once (OffsetCommit).
   */
  submit<T>(partition: number, op: (shard: S) => CoordinatorResult<R, T>, done: OperationDone<T>): void {
    const holder = this.#holders.get(partition);
    if (holder === undefined) done(notCoordinator(partition), undefined);
    else holder.submit(op, done);
  }

  /**
   * Writes a COMMIT/ABORT marker to `partition` through its shard (the transaction coordinator
   * completing a transaction that included this partition); resolves once committed.
   */
  completeTransaction(partition: number, marker: TransactionMarker): Promise<void> {
    try {
      return this.#holder(partition).writeMarker(marker);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /** A read: sees the latest state, answers once everything it could have seen is committed. */
  read<T>(partition: number, op: (shard: S) => T): Promise<T> {
    return this.write(partition, (shard) => ({ records: [], response: op(shard) }));
  }

  /** Runs `op` on every active shard (ListGroups); loading shards are reported as such. */
  async readAll<T>(op: (shard: S) => T): Promise<{ results: T[]; loading: number[] }> {
    const loading: number[] = [];
    const pending: Promise<T>[] = [];
    for (const [partition, holder] of this.#holders) {
      if (holder.status === 'loading') loading.push(partition);
      else if (holder.status === 'active') pending.push(this.read(partition, op));
    }
    return { results: await Promise.all(pending), loading };
  }

  /** 'loading' | 'active', or undefined when this runtime does not coordinate `partition`. */
  status(partition: number): 'loading' | 'active' | undefined {
    const s = this.#holders.get(partition)?.status;
    return s === 'closed' ? undefined : s;
  }

  /**
   * Which load of `partition` is current (a number that changes with every load, also after an
   * unload and a new election), or undefined when not loaded: work started for one load (a
   * transaction's markers) stops when it is no longer the current one.
   */
  generation(partition: number): number | undefined {
    const holder = this.#holders.get(partition);
    return holder === undefined || holder.status === 'closed' ? undefined : this.#generations.get(holder);
  }

  partitions(): number[] {
    return [...this.#holders.keys()].sort((a, b) => a - b);
  }

  close(): void {
    this.#closed = true;
    for (const p of [...this.#holders.keys()]) this.unload(p);
  }

  #holder(partition: number): ShardHolder<S, R> {
    const holder = this.#holders.get(partition);
    if (holder === undefined) throw notCoordinator(partition);
    return holder;
  }

  #onError(partition: number, err: unknown): void {
    this.#opts.onError?.(partition, err);
  }
}
