// The transaction coordinator as the API handlers see it: routes a transactional id to its
// partition of __transaction_state (Kafka's abs(hashCode) % partitions), runs the state machine
// on that shard through the coordinator runtime, allocates producer ids, and drives the
// markers of decided transactions (write to every partition, retry what failed, then complete).
// Transaction protocol v2 (KIP-890 part 2): EndTxn v5 answers the producer id and epoch the
// producer continues with; the brokers add a v2 client's partitions for it (`addImplicitly`).
import { coordinatorPartition } from '../../../protocol/coordinator-partition.js';
import { ErrorCode } from '../../../protocol/errors.js';
import { type Clock, systemClock } from '../runtime/clock.js';
import { errorCodeOf } from '../runtime/coordinator-error.js';
import { CoordinatorRuntime } from '../runtime/coordinator-runtime.js';
import type { PartitionLoader, PartitionWriter } from '../runtime/partition-writer.js';
import { DEFAULT_TXN_CONFIG, type TxnConfig } from './txn-config.js';
import {
  type DescribedTxn,
  type EndTxnResult,
  type InitProducerIdResult,
  type ListedTxn,
  type ListFilter,
  type MarkerJob,
  type ProducerIdAndEpoch,
  TxnCoordinatorShard,
} from './txn-coordinator-shard.js';
import type { EndTxnAnswer } from './txn-end.js';
import type { TopicPartitionSet, TxnRecord } from './txn-metadata.js';
import { txnRecordSerdeFor } from './txn-serde.js';

/** One marker for every partition of a transaction. */
export interface TxnMarker {
  producerId: bigint;
  producerEpoch: number;
  coordinatorEpoch: number;
  commit: boolean;
}

export interface TxnMarkerWriter {
  /**
   * Writes `marker` to each partition. Resolves with the partitions to try again later
   * (transient errors); partitions that no longer exist, or that reject the marker as stale,
   * count as done, as in Kafka's marker channel.
   */
  write(marker: TxnMarker, partitions: readonly TopicPartitionSet[]): Promise<TopicPartitionSet[]>;
}

export interface TransactionCoordinatorOptions {
  config?: Partial<TxnConfig>;
  writer: PartitionWriter;
  loader: PartitionLoader;
  markers: TxnMarkerWriter;
  /** A producer id never handed out before (durable blocks in the broker). */
  producerIds: () => Promise<bigint>;
  clock?: Clock;
  /** Epoch of this coordinator for a partition (its leader epoch): markers carry it. */
  coordinatorEpochOf?: (partition: number) => number;
  /** EndTxn and a fencing InitProducerId wait this long for the markers before answering. */
  completionWaitMs?: number;
  markerRetryBackoffMs?: number;
  /**
   * Verification (TxnOffsetCommit) of a transactional id whose partition another broker
   * coordinates; absent: NOT_COORDINATOR.
   */
  verifyRemotely?(
    partition: number,
    transactionalId: string,
    producerId: bigint,
    epoch: number,
    partitions: readonly TopicPartitionSet[],
  ): Promise<number>;
  /**
   * Protocol v2: adds partitions to a transaction whose partition another broker coordinates
   * (AddPartitionsToTxn v5 to it); absent: NOT_COORDINATOR.
   */
  addRemotely?(
    partition: number,
    transactionalId: string,
    producerId: bigint,
    epoch: number,
    partitions: readonly TopicPartitionSet[],
  ): Promise<number>;
  onError?(partition: number, err: unknown): void;
}

/** Kafka's add.partitions.to.txn.retry.backoff.ms / .max.ms: how a v2 add waits out a Prepare* state. */
const ADD_RETRY_BACKOFF_MS = 20;
const ADD_RETRY_MAX_MS = 100;

const initError = (errorCode: number): InitProducerIdResult => ({
  errorCode,
  producerId: -1n,
  producerEpoch: -1,
});

export class TransactionCoordinator {
  readonly config: TxnConfig;
  readonly runtime: CoordinatorRuntime<TxnCoordinatorShard, TxnRecord>;
  readonly #opts: TransactionCoordinatorOptions;
  readonly #clock: Clock;
  /** Marker jobs running, by transactional id, with the load of the shard that started them. */
  readonly #inflight = new Map<string, { run: Promise<void>; generation: number | undefined }>();

  constructor(opts: TransactionCoordinatorOptions) {
    const config = { ...DEFAULT_TXN_CONFIG, ...opts.config };
    this.config = config;
    this.#opts = opts;
    this.#clock = opts.clock ?? systemClock;
    this.runtime = new CoordinatorRuntime<TxnCoordinatorShard, TxnRecord>({
      writer: opts.writer,
      loader: opts.loader,
      serde: txnRecordSerdeFor(config.transactionVersion),
      clock: this.#clock,
      newShard: (ctx) =>
        new TxnCoordinatorShard(ctx, config, { onPrepared: (job) => this.#onPrepared(ctx.partition, job) }),
      onError: opts.onError,
    });
  }

  partitionFor(transactionalId: string): number {
    return coordinatorPartition(transactionalId, this.config.numPartitions);
  }

  onElection(partition: number): Promise<void> {
    return this.runtime.load(partition);
  }

  onResignation(partition: number): void {
    this.runtime.unload(partition);
  }

  /** Resolves once the markers of `transactionalId`'s decided transaction are written (if any). */
  whenCompleted(transactionalId: string): Promise<void> {
    return this.#inflight.get(transactionalId)?.run ?? Promise.resolve();
  }

  async initProducerId(
    transactionalId: string,
    timeoutMs: number,
    expected: ProducerIdAndEpoch | null,
  ): Promise<InitProducerIdResult> {
    if (transactionalId === '') return initError(ErrorCode.INVALID_REQUEST);
    if (timeoutMs <= 0 || timeoutMs > this.config.maxTimeoutMs)
      return initError(ErrorCode.INVALID_TRANSACTION_TIMEOUT);
    const partition = this.partitionFor(transactionalId);
    let newProducerId: bigint | null = null;
    // Besides allocating an id, loop at most once more after waiting for a fencing abort's
    // markers: the client then gets its new epoch now instead of retrying on
    // CONCURRENT_TRANSACTIONS.
    let waited = false;
    for (let attempt = 0; attempt < 4; attempt++) {
      let res: InitProducerIdResult;
      try {
        res = await this.runtime.write(partition, (s) =>
          s.initProducerId(transactionalId, timeoutMs, expected, newProducerId),
        );
      } catch (err) {
        return initError(errorCodeOf(err));
      }
      if (res.needsProducerId === true) {
        newProducerId = await this.#opts.producerIds();
        continue;
      }
      if (res.errorCode !== ErrorCode.CONCURRENT_TRANSACTIONS || waited) return res;
      waited = true;
      if (!(await this.#waitForMarkers(transactionalId))) return res;
    }
    return initError(ErrorCode.CONCURRENT_TRANSACTIONS);
  }

  /** AddPartitionsToTxn / AddOffsetsToTxn on this broker's shard (`clientTransactionVersion` 2: for a v2 client). */
  addPartitions(
    transactionalId: string,
    producerId: bigint,
    epoch: number,
    partitions: readonly TopicPartitionSet[],
    clientTransactionVersion = 0,
  ): Promise<number> {
    return this.#onPartitionOf(transactionalId, (p) =>
      this.runtime.write(p, (s) =>
        s.addPartitions(transactionalId, producerId, epoch, partitions, clientTransactionVersion),
      ),
    );
  }

  /**
   * Protocol v2: the partitions a Produce v12 / TxnOffsetCommit v5 writes to join the producer's
   * transaction, asked of the coordinating broker when that is another one. A transaction still
   * completing (CONCURRENT_TRANSACTIONS) is asked again every 20 ms for up to 100 ms, as Kafka's
   * brokers do: a producer's next transaction often starts while the markers of the last one
   * are being written. `retryConcurrent: false`: the caller retries itself (Produce takes a new
   * verification guard for each attempt).
   */
  async addImplicitly(
    transactionalId: string,
    producerId: bigint,
    epoch: number,
    partitions: readonly TopicPartitionSet[],
    o: { retryConcurrent?: boolean } = {},
  ): Promise<number> {
    const started = this.#clock.now();
    for (;;) {
      const code = await this.#onPartitionOf(transactionalId, (p) => {
        const remote = this.#opts.addRemotely;
        if (this.runtime.status(p) === undefined && remote !== undefined)
          return remote(p, transactionalId, producerId, epoch, partitions);
        return this.runtime.write(p, (s) =>
          s.addPartitions(transactionalId, producerId, epoch, partitions, 2),
        );
      });
      if (
        code !== ErrorCode.CONCURRENT_TRANSACTIONS ||
        o.retryConcurrent === false ||
        this.#clock.now() - started >= ADD_RETRY_MAX_MS
      )
        return code;
      await new Promise<void>((resolve) => this.#clock.setTimer(ADD_RETRY_BACKOFF_MS, resolve));
    }
  }

  /**
   * NONE when the producer's open transaction includes every partition (KIP-890 verification);
   * asked of the coordinating broker when this one does not coordinate the id (TxnOffsetCommit
   * reaches the group's coordinator, which may be another broker).
   */
  verify(
    transactionalId: string,
    producerId: bigint,
    epoch: number,
    partitions: readonly TopicPartitionSet[],
  ): Promise<number> {
    return this.#onPartitionOf(transactionalId, (p) => {
      const remote = this.#opts.verifyRemotely;
      if (this.runtime.status(p) === undefined && remote !== undefined)
        return remote(p, transactionalId, producerId, epoch, partitions);
      return this.runtime.read(p, (s) => s.verify(transactionalId, producerId, epoch, partitions));
    });
  }

  /** Runs `op` on the id's partition; an empty id is INVALID_REQUEST, a runtime error its code. */
  #onPartitionOf(transactionalId: string, op: (partition: number) => Promise<number>): Promise<number> {
    if (transactionalId === '') return Promise.resolve(ErrorCode.INVALID_REQUEST);
    return op(this.partitionFor(transactionalId)).catch(errorCodeOf);
  }

  /** EndTxn v0-4 (protocol v1): the error code. */
  async endTxn(transactionalId: string, producerId: bigint, epoch: number, commit: boolean): Promise<number> {
    const r = await this.endTransaction(transactionalId, {
      producerId,
      producerEpoch: epoch,
      commit,
      clientTransactionVersion: 0,
      v2Enabled: this.config.transactionVersion >= 2,
    });
    return r.errorCode;
  }

  /**
   * EndTxn of either protocol (`txn-end.ts`). The answer waits for the markers (bounded): the
   * decision is durable once Prepare* is written, and answering after the markers spares the
   * client a round of CONCURRENT_TRANSACTIONS on its next transaction and makes its records
   * visible at once.
   */
  async endTransaction(
    transactionalId: string,
    req: {
      producerId: bigint;
      producerEpoch: number;
      commit: boolean;
      clientTransactionVersion: number;
      v2Enabled: boolean;
    },
  ): Promise<EndTxnAnswer> {
    const failed = (errorCode: number): EndTxnAnswer => ({ errorCode, producerId: -1n, producerEpoch: -1 });
    if (transactionalId === '') return failed(ErrorCode.INVALID_REQUEST);
    const partition = this.partitionFor(transactionalId);
    let newProducerId: bigint | null = null;
    let res: EndTxnResult;
    for (;;) {
      try {
        res = await this.runtime.write(partition, (s) => s.endTxn(transactionalId, req, newProducerId));
      } catch (err) {
        return failed(errorCodeOf(err));
      }
      if (res.needsProducerId !== true || newProducerId !== null) break;
      newProducerId = await this.#opts.producerIds();
    }
    if (res.needsProducerId === true) return failed(ErrorCode.CONCURRENT_TRANSACTIONS);
    if (res.errorCode === ErrorCode.NONE) await this.#waitForMarkers(transactionalId);
    return { errorCode: res.errorCode, producerId: res.producerId, producerEpoch: res.producerEpoch };
  }

  async describe(transactionalIds: readonly string[]): Promise<DescribedTxn[]> {
    return Promise.all(
      transactionalIds.map((id) =>
        this.runtime
          .read(this.partitionFor(id), (s) => s.describe(id))
          .catch((err: unknown) => ({
            errorCode: errorCodeOf(err),
            transactionalId: id,
            state: '' as const,
            timeoutMs: 0,
            startTimestamp: -1,
            producerId: -1n,
            producerEpoch: -1,
            partitions: [],
          })),
      ),
    );
  }

  /** Transactions of every loaded shard; COORDINATOR_LOAD_IN_PROGRESS while any shard loads. */
  async list(filter: ListFilter): Promise<{ errorCode: number; transactions: ListedTxn[] }> {
    const { results, loading } = await this.runtime.readAll((s) => s.list(filter));
    return {
      errorCode: loading.length > 0 ? ErrorCode.COORDINATOR_LOAD_IN_PROGRESS : ErrorCode.NONE,
      transactions: results.flat(),
    };
  }

  close(): void {
    this.runtime.close();
  }

  /** Waits (bounded) for running markers of `id`; false when none were running. */
  async #waitForMarkers(id: string): Promise<boolean> {
    const job = this.#inflight.get(id)?.run;
    if (job === undefined) return false;
    await new Promise<void>((resolve) => {
      const t = this.#clock.setTimer(this.#opts.completionWaitMs ?? 5000, resolve);
      job.then(
        () => {
          t.cancel();
          resolve();
        },
        () => resolve(),
      );
    });
    return true;
  }

  #onPrepared(partition: number, job: MarkerJob): void {
    const id = job.transactionalId;
    const generation = this.runtime.generation(partition);
    // The same load asking twice (a reload does not: a job of an earlier load stops by itself,
    // and this one writes the markers with the coordinator epoch of the new leadership).
    if (this.#inflight.get(id)?.generation === generation) return;
    const entry = {
      run: this.#sendMarkers(partition, job, generation).finally(() => {
        if (this.#inflight.get(id) === entry) this.#inflight.delete(id);
      }),
      generation,
    };
    this.#inflight.set(id, entry);
  }

  /**
   * Kafka's marker channel: retry until every partition has the marker, then complete. The job
   * belongs to one load of the partition: once it is unloaded (leadership lost) or reloaded, the
   * coordinator of that later load resumes the Prepare* state it finds in the log.
   */
  async #sendMarkers(partition: number, job: MarkerJob, generation: number | undefined): Promise<void> {
    const current = (): boolean => this.runtime.generation(partition) === generation;
    const marker: TxnMarker = {
      producerId: job.producerId,
      producerEpoch: job.producerEpoch,
      coordinatorEpoch: this.#opts.coordinatorEpochOf?.(partition) ?? 0,
      commit: job.commit,
    };
    let remaining: TopicPartitionSet[] = job.partitions;
    while (remaining.length > 0) {
      if (!current()) return; // the next coordinator resumes it
      try {
        remaining = await this.#opts.markers.write(marker, remaining);
      } catch (err) {
        this.#opts.onError?.(partition, err);
      }
      if (remaining.length > 0) await this.#sleep();
    }
    if (!current()) return;
    try {
      await this.runtime.write(partition, (s) => s.complete(job));
    } catch (err) {
      // A failed write reloads the shard (or another broker leads now): the load that follows
      // finds the Prepare* state and resumes the job.
      this.#opts.onError?.(partition, err);
    }
  }

  #sleep(): Promise<void> {
    return new Promise((resolve) => this.#clock.setTimer(this.#opts.markerRetryBackoffMs ?? 100, resolve));
  }
}
