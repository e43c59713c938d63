// One partition of __transaction_state: the transactional ids that hash to it and Kafka's
// transaction state machine (TransactionCoordinator + TransactionMetadata):
//
//   Empty/CompleteCommit/CompleteAbort --AddPartitions/AddOffsets--> Ongoing
//   Ongoing --EndTxn--> PrepareCommit | PrepareAbort --markers written--> CompleteCommit | CompleteAbort
//   Ongoing --InitProducerId or timeout--> (PrepareEpochFence: epoch + 1) PrepareAbort
//
// Transaction protocol v2 (KIP-890 part 2; `txn-end.ts`): EndTxn v5 moves to Prepare* with
// epoch + 1 and completes with the producer continuing at that epoch (or a new producer id).
// Partitions added for a v2 client (by the brokers, from Produce v12 / TxnOffsetCommit v5) mark
// the transaction as v2; InitProducerId and the fencing aborts follow protocol v1.
//
// Every operation is synchronous and returns the record of the new state; the runtime replays
// it at once (later operations see it) and answers only once it is committed. A Prepare* state
// hands its markers to `hooks.onPrepared` only after its record is committed, so a marker never
// reaches a partition for a decision that could still be lost — and loading a partition
// resumes the markers of every Prepare* state found in the log.
import { ErrorCode } from '../../../protocol/errors.js';
import type { CoordinatorResult, CoordinatorShard, ShardContext } from '../runtime/coordinator-shard.js';
import type { TxnConfig } from './txn-config.js';
import { completed, decideEndTxn, type EndTxnAnswer, type EndTxnRequest, identityAfter } from './txn-end.js';
import {
  containsAll,
  isEpochExhausted,
  isPrepare,
  mergePartitions,
  NO_PRODUCER_EPOCH,
  type TopicPartitionSet,
  type TxnMetadata,
  type TxnRecord,
  type TxnState,
} from './txn-metadata.js';

type Result<T> = CoordinatorResult<TxnRecord, T>;

/** A decided transaction whose markers must be written, then completed on this shard. */
export interface MarkerJob {
  transactionalId: string;
  producerId: bigint;
  producerEpoch: number;
  commit: boolean;
  partitions: TopicPartitionSet[];
}

export interface TxnShardHooks {
  /** The Prepare* record of `job` is committed (or was loaded): write the markers. */
  onPrepared(job: MarkerJob): void;
}

export interface ProducerIdAndEpoch {
  producerId: bigint;
  producerEpoch: number;
}

export interface EndTxnResult extends EndTxnAnswer {
  /** The epoch runs out with this transaction (protocol v2): allocate a producer id and retry. */
  needsProducerId?: boolean;
}

export interface InitProducerIdResult extends ProducerIdAndEpoch {
  errorCode: number;
  /** True when the operation needs a fresh producer id and none was supplied: allocate and retry. */
  needsProducerId?: boolean;
}

export interface DescribedTxn {
  errorCode: number;
  transactionalId: string;
  state: TxnState | '';
  timeoutMs: number;
  startTimestamp: number;
  producerId: bigint;
  producerEpoch: number;
  partitions: TopicPartitionSet[];
}

export interface ListedTxn {
  transactionalId: string;
  producerId: bigint;
  state: TxnState;
}

export interface ListFilter {
  states: ReadonlySet<string>;
  producerIds: ReadonlySet<bigint>;
  /** List only transactions running for at least this long (ms); -1 = no filter. */
  minDurationMs: number;
}

const ABORT_TIMER = 'abort-timed-out';
const EXPIRE_TIMER = 'remove-expired';

const initError = (errorCode: number): InitProducerIdResult => ({
  errorCode,
  producerId: -1n,
  producerEpoch: -1,
});

export class TxnCoordinatorShard implements CoordinatorShard<TxnRecord> {
  readonly txns = new Map<string, TxnMetadata>();

  constructor(
    readonly ctx: ShardContext<TxnRecord>,
    readonly config: TxnConfig,
    private readonly hooks: TxnShardHooks,
  ) {}

  replay(record: TxnRecord): void {
    if (record.value === null) this.txns.delete(record.transactionalId);
    else this.txns.set(record.transactionalId, record.value);
  }

  onLoaded(): void {
    for (const [id, m] of this.txns) if (isPrepare(m.state)) this.hooks.onPrepared(jobOf(id, m));
    this.#scheduleSweeps();
  }

  onUnloaded(): void {}

  #scheduleSweeps(): void {
    const timer = this.ctx.timer;
    const abortSweep = (): void =>
      timer.schedule(ABORT_TIMER, this.config.abortTimedOutIntervalMs, () => {
        abortSweep();
        return this.abortTimedOut();
      });
    const expireSweep = (): void =>
      timer.schedule(EXPIRE_TIMER, this.config.removeExpiredIntervalMs, () => {
        expireSweep();
        return this.removeExpired();
      });
    abortSweep();
    expireSweep();
  }

  #now(): number {
    return this.ctx.clock.now();
  }

  /** The result of moving `id` to `next`; Prepare* states start their markers once committed. */
  #transition<T>(id: string, next: TxnMetadata, response: T): Result<T> {
    const res: Result<T> = { records: [{ transactionalId: id, value: next }], response };
    if (isPrepare(next.state)) {
      res.onAppended = (err) => {
        if (err === null) this.hooks.onPrepared(jobOf(id, next));
      };
    }
    return res;
  }

  /** Whether InitProducerId for `id` will need a new producer id (new id, or epoch exhausted). */
  needsProducerId(id: string): boolean {
    const m = this.txns.get(id);
    return m === undefined || isEpochExhausted(m.producerEpoch);
  }

  /**
   * InitProducerId with a transactional id (Kafka's handleInitProducerId): a new id starts at
   * epoch 0; otherwise the epoch is bumped, fencing older producers. An open transaction is
   * aborted first (answered CONCURRENT_TRANSACTIONS; the retry then bumps again). `expected` is
   * the KIP-360 id/epoch of a producer recovering its own session.
   */
  initProducerId(
    id: string,
    timeoutMs: number,
    expected: ProducerIdAndEpoch | null,
    newProducerId: bigint | null,
  ): Result<InitProducerIdResult> {
    const now = this.#now();
    const none: Result<InitProducerIdResult> = { records: [], response: initError(ErrorCode.NONE) };
    const fail = (code: number): Result<InitProducerIdResult> => ({ records: [], response: initError(code) });
    let m = this.txns.get(id);
    if (m === undefined) {
      if (newProducerId === null)
        return { ...none, response: { ...initError(ErrorCode.NONE), needsProducerId: true } };
      m = {
        producerId: newProducerId,
        previousProducerId: -1n,
        producerEpoch: NO_PRODUCER_EPOCH,
        lastProducerEpoch: NO_PRODUCER_EPOCH,
        timeoutMs,
        state: 'Empty',
        partitions: [],
        startTimestamp: -1,
        lastUpdateTimestamp: now,
      };
    }
    if (expected !== null && !isValidProducerId(m, expected)) return fail(ErrorCode.PRODUCER_FENCED);
    switch (m.state) {
      case 'Empty':
      case 'CompleteCommit':
      case 'CompleteAbort': {
        const base = {
          ...protocolV1(m),
          timeoutMs,
          state: 'Empty' as const,
          partitions: [],
          startTimestamp: -1,
          lastUpdateTimestamp: now,
        };
        if (
          isEpochExhausted(m.producerEpoch) &&
          (expected === null || expected.producerEpoch === m.producerEpoch)
        ) {
          if (newProducerId === null)
            return { ...none, response: { ...initError(ErrorCode.NONE), needsProducerId: true } };
          const next: TxnMetadata = {
            ...base,
            producerId: newProducerId,
            previousProducerId: m.producerId,
            producerEpoch: 0,
            lastProducerEpoch: expected === null ? NO_PRODUCER_EPOCH : m.producerEpoch,
          };
          return this.#transition(id, next, {
            errorCode: ErrorCode.NONE,
            producerId: next.producerId,
            producerEpoch: 0,
          });
        }
        const bumped = bumpEpoch(m, expected?.producerEpoch ?? null);
        if (bumped === null) return fail(ErrorCode.PRODUCER_FENCED);
        const next: TxnMetadata = { ...base, producerEpoch: bumped.epoch, lastProducerEpoch: bumped.last };
        return this.#transition(id, next, {
          errorCode: ErrorCode.NONE,
          producerId: next.producerId,
          producerEpoch: next.producerEpoch,
        });
      }
      case 'Ongoing':
        // PrepareEpochFence: bump the epoch so the old producer is fenced by the abort markers.
        return this.#transition(id, this.#fencedAbort(m, now), initError(ErrorCode.CONCURRENT_TRANSACTIONS));
      default:
        return fail(ErrorCode.CONCURRENT_TRANSACTIONS);
    }
  }

  /** A fencing abort bumps the epoch once and follows protocol v1, whatever the client spoke. */
  #fencedAbort(m: TxnMetadata, now: number): TxnMetadata {
    const epoch = isEpochExhausted(m.producerEpoch) ? m.producerEpoch : m.producerEpoch + 1;
    return {
      ...protocolV1(m),
      producerEpoch: epoch,
      lastProducerEpoch: NO_PRODUCER_EPOCH,
      state: 'PrepareAbort',
      lastUpdateTimestamp: now,
    };
  }

  /**
   * AddPartitionsToTxn / AddOffsetsToTxn, and the adds the brokers make for Produce v12 and
   * TxnOffsetCommit v5 (`clientTransactionVersion` 2): the transaction is (or stays) Ongoing
   * with them.
   */
  addPartitions(
    id: string,
    producerId: bigint,
    epoch: number,
    add: readonly TopicPartitionSet[],
    clientTransactionVersion = 0,
  ): Result<number> {
    const m = this.txns.get(id);
    const err = checkProducer(m, producerId, epoch);
    if (err !== ErrorCode.NONE || m === undefined) return { records: [], response: err };
    if (m.state === 'Ongoing' && containsAll(m.partitions, add))
      return { records: [], response: ErrorCode.NONE };
    const now = this.#now();
    const fresh = m.state !== 'Ongoing';
    const base = protocolV1(m);
    const next: TxnMetadata = {
      ...(clientTransactionVersion >= 2 ? { ...base, clientTransactionVersion } : base),
      state: 'Ongoing',
      partitions: mergePartitions(fresh ? [] : m.partitions, add),
      startTimestamp: fresh ? now : m.startTimestamp,
      lastUpdateTimestamp: now,
    };
    return this.#transition(id, next, ErrorCode.NONE);
  }

  /**
   * AddPartitionsToTxn v4+ VerifyOnly and TxnOffsetCommit (KIP-890 verification): NONE when
   * the producer's open transaction contains every partition, else the error Kafka answers.
   */
  verify(id: string, producerId: bigint, epoch: number, parts: readonly TopicPartitionSet[]): number {
    return verifyTransaction(this.txns.get(id), producerId, epoch, parts);
  }

  /**
   * EndTxn from the client (Kafka's handleEndTransaction; the rules of both protocols are in
   * `txn-end.ts`). `newProducerId` is supplied on the second call when the first answered
   * `needsProducerId`.
   */
  endTxn(id: string, req: EndTxnRequest, newProducerId: bigint | null = null): Result<EndTxnResult> {
    const d = decideEndTxn(this.txns.get(id), req, newProducerId, this.#now());
    if (d.kind === 'answer') return { records: [], response: d.answer };
    if (d.kind === 'needsProducerId')
      return {
        records: [],
        response: { errorCode: ErrorCode.NONE, producerId: -1n, producerEpoch: -1, needsProducerId: true },
      };
    return this.#transition(id, d.next, { errorCode: ErrorCode.NONE, ...identityAfter(d.next) });
  }

  /** Markers of `job` are written: Prepare* → Complete*. A stale job (state moved on) is ignored. */
  complete(job: MarkerJob): Result<boolean> {
    const m = this.txns.get(job.transactionalId);
    const expected = job.commit ? 'PrepareCommit' : 'PrepareAbort';
    if (
      m === undefined ||
      m.state !== expected ||
      m.producerId !== job.producerId ||
      m.producerEpoch !== job.producerEpoch
    ) {
      return { records: [], response: false };
    }
    return this.#transition(job.transactionalId, completed(m, this.#now()), true);
  }

  /** Aborts (with an epoch bump, fencing the producer) every transaction open past its timeout. */
  abortTimedOut(): Result<number> {
    const now = this.#now();
    const records: TxnRecord[] = [];
    const jobs: MarkerJob[] = [];
    for (const [id, m] of this.txns) {
      if (m.state !== 'Ongoing' || m.startTimestamp + m.timeoutMs >= now) continue;
      const next = this.#fencedAbort(m, now);
      records.push({ transactionalId: id, value: next });
      jobs.push(jobOf(id, next));
    }
    if (records.length === 0) return { records, response: 0 };
    return {
      records,
      response: records.length,
      onAppended: (err) => {
        if (err === null) for (const j of jobs) this.hooks.onPrepared(j);
      },
    };
  }

  /** Tombstones for ids idle (no open transaction) past transactional.id.expiration.ms. */
  removeExpired(): Result<number> {
    const now = this.#now();
    const records: TxnRecord[] = [];
    for (const [id, m] of this.txns) {
      const idle = m.state === 'Empty' || m.state === 'CompleteCommit' || m.state === 'CompleteAbort';
      if (idle && now - m.lastUpdateTimestamp >= this.config.idExpirationMs)
        records.push({ transactionalId: id, value: null });
    }
    return { records, response: records.length };
  }

  describe(id: string): DescribedTxn {
    const m = this.txns.get(id);
    if (m === undefined) {
      return {
        errorCode: ErrorCode.TRANSACTIONAL_ID_NOT_FOUND,
        transactionalId: id,
        state: '',
        timeoutMs: 0,
        startTimestamp: -1,
        producerId: -1n,
        producerEpoch: -1,
        partitions: [],
      };
    }
    return {
      errorCode: ErrorCode.NONE,
      transactionalId: id,
      state: m.state,
      timeoutMs: m.timeoutMs,
      startTimestamp: m.state === 'Empty' ? -1 : m.startTimestamp,
      producerId: m.producerId,
      producerEpoch: m.producerEpoch,
      partitions: m.partitions,
    };
  }

  list(filter: ListFilter): ListedTxn[] {
    const now = this.#now();
    const out: ListedTxn[] = [];
    for (const [id, m] of this.txns) {
      if (filter.states.size > 0 && !filter.states.has(m.state)) continue;
      if (filter.producerIds.size > 0 && !filter.producerIds.has(m.producerId)) continue;
      if (
        filter.minDurationMs >= 0 &&
        (m.state !== 'Ongoing' || now - m.startTimestamp < filter.minDurationMs)
      )
        continue;
      out.push({ transactionalId: id, producerId: m.producerId, state: m.state });
    }
    return out;
  }
}

/** What verification needs of a transaction (the shard's state, or a remote coordinator's description). */
export type VerifiedTxn = Pick<TxnMetadata, 'producerId' | 'producerEpoch' | 'state' | 'partitions'>;

/** The checks AddPartitionsToTxn, AddOffsetsToTxn and their verification share. */
function checkProducer(m: VerifiedTxn | undefined, producerId: bigint, epoch: number): number {
  if (m === undefined || m.producerId !== producerId) return ErrorCode.INVALID_PRODUCER_ID_MAPPING;
  if (m.producerEpoch !== epoch) return ErrorCode.PRODUCER_FENCED;
  if (
    m.state !== 'Empty' &&
    m.state !== 'Ongoing' &&
    m.state !== 'CompleteCommit' &&
    m.state !== 'CompleteAbort'
  ) {
    return ErrorCode.CONCURRENT_TRANSACTIONS;
  }
  return ErrorCode.NONE;
}

/**
 * KIP-890 verification of transaction `m` (undefined: unknown id): NONE when `producerId` at
 * `epoch` is current and its open transaction contains every partition of `parts`.
 */
export function verifyTransaction(
  m: VerifiedTxn | undefined,
  producerId: bigint,
  epoch: number,
  parts: readonly TopicPartitionSet[],
): number {
  const err = checkProducer(m, producerId, epoch);
  if (err !== ErrorCode.NONE || m === undefined) return err;
  return m.state === 'Ongoing' && containsAll(m.partitions, parts)
    ? ErrorCode.NONE
    : ErrorCode.INVALID_TXN_STATE;
}

function jobOf(id: string, m: TxnMetadata): MarkerJob {
  return {
    transactionalId: id,
    producerId: m.producerId,
    producerEpoch: m.producerEpoch,
    commit: m.state === 'PrepareCommit',
    partitions: m.partitions,
  };
}

/**
 * KIP-360: a producer may name its old id/epoch when (a) the id has no epoch yet, (b) it is the
 * current id (the epoch is checked by the bump), or (c) it is the id before a rotation and its
 * epoch was exhausted (a retry whose answer was lost).
 */
function isValidProducerId(m: TxnMetadata, expected: ProducerIdAndEpoch): boolean {
  return (
    m.producerEpoch === NO_PRODUCER_EPOCH ||
    expected.producerId === m.producerId ||
    (expected.producerId === m.previousProducerId && isEpochExhausted(expected.producerEpoch))
  );
}

/** Kafka's prepareIncrementProducerEpoch: the new and the remembered last epoch, or null if fenced. */
function bumpEpoch(m: TxnMetadata, expectedEpoch: number | null): { epoch: number; last: number } | null {
  const bumped = m.producerEpoch + 1;
  if (expectedEpoch === null) return { epoch: bumped, last: NO_PRODUCER_EPOCH };
  if (m.producerEpoch === NO_PRODUCER_EPOCH || expectedEpoch === m.producerEpoch)
    return { epoch: bumped, last: m.producerEpoch };
  // The producer retries a bump it already got: give it the same epoch again.
  if (expectedEpoch === m.lastProducerEpoch) return { epoch: m.producerEpoch, last: m.lastProducerEpoch };
  return null;
}

/** `m` without the fields of transaction protocol v2 (InitProducerId and fencing reset them, as Kafka). */
function protocolV1(m: TxnMetadata): TxnMetadata {
  const { clientTransactionVersion: _v, nextProducerId: _n, ...v1 } = m;
  return v1;
}
