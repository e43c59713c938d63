// KIP-890 part 1 in Produce (`transaction.partition.verification.enable`, dynamic, default
// true as in Kafka 3.6+): a transactional batch that would open a transaction on a partition
// (its producer has no transaction open there at that epoch) is appended only once the
// producer's transaction coordinator confirms the partition is in its ongoing transaction. That
// closes the way hanging transactions are made: a write the coordinator never heard of (no
// AddPartitionsToTxn), or a late retry landing after the transaction's marker.
//
// - The partition's producer state hands out a verification guard before the question is asked
//   (`startTransactionVerification`); the append must present it, and the partition drops it when
//   a marker for the producer, a newer epoch or the transaction's first batch is applied. So a
//   verification that raced with the end of the transaction fails the append (INVALID_TXN_STATE)
//   instead of opening a new transaction. Later batches of the transaction find it open and skip
//   the question.
// - The coordinator is asked in-process (`TransactionCoordinator.verify`); when another broker
//   coordinates the transactional id, that broker is asked (`remote-verifier.ts`).
// - Answers as Kafka 3.9 gives them to Produce v3-11: INVALID_TXN_STATE "Partition was not added
//   to the transaction"; PRODUCER_FENCED as INVALID_PRODUCER_EPOCH; a coordinator that cannot
//   answer now (loading, moved, unreachable, a transaction completing) as NOT_ENOUGH_REPLICAS,
//   which old clients retry without a metadata refresh; anything else (INVALID_PRODUCER_ID_MAPPING)
//   as it is. Nothing is appended on an error.
// - Appends stay in request order per producer and partition: Produce is pipelined, so while a
//   verification is pending, later batches of the same producer on the same partition (the next
//   pipelined request's) wait for its append to start.
// - Kafka refuses a request whose transactional batches come from more than one producer
//   (INVALID_PRODUCER_ID_MAPPING for the whole request): `mixedProducers`.
//
// Produce v12 is transaction protocol v2 (KIP-890 part 2, Kafka 4.0): the client sends no
// AddPartitionsToTxn, so the same step *adds* the partition to the transaction
// (`TransactionCoordinator.addImplicitly`, which asks the coordinating broker with
// AddPartitionsToTxn v5 when that is another one), whatever
// `transaction.partition.verification.enable` says. Its answers are Kafka 4's: as above, except
// that CONCURRENT_TRANSACTIONS (the previous transaction's markers still being written; the
// coordinator is asked again for up to 100 ms first) is answered as it is. While
// `transaction.version` is below 2 a transactional batch in Produce v12 gets
// UNSUPPORTED_VERSION (v2 clients look at the finalized level before using v12 in a transaction).

import { ErrorCode, errorName, KafkaError } from '../../protocol/errors.js';
import type { ProduceRequest } from '../../protocol/messages/generated/produce.js';
import {
  ATTRIBUTES_OFFSET,
  isTransactional,
  MAGIC_OFFSET,
  PRODUCER_EPOCH_OFFSET,
  PRODUCER_ID_OFFSET,
  RECORD_BATCH_OVERHEAD,
} from '../../protocol/record-batch/header.js';
import { type AppendResult, NO_GUARD, type VerificationGuard } from '../../storage/index.js';
import type { Partition } from '../replica/partition.js';
import type { BrokerServices } from './services.js';

export const VERIFICATION_ENABLE = 'transaction.partition.verification.enable';

/** Whether the broker verifies transactional writes (read per request: the key is dynamic). */
export function verificationEnabled(broker: BrokerServices): boolean {
  return (broker.configs.brokerValue(VERIFICATION_ENABLE) ?? 'true').trim().toLowerCase() !== 'false';
}

interface BatchProducer {
  producerId: bigint;
  epoch: number;
  transactional: boolean;
}

/** The producer of a v2 batch (null: no producer id, or too short to say). */
function producerOf(records: Buffer | null): BatchProducer | null {
  if (records === null || records.length < RECORD_BATCH_OVERHEAD || records[MAGIC_OFFSET] !== 2) return null;
  const producerId = records.readBigInt64BE(PRODUCER_ID_OFFSET);
  if (producerId < 0n) return null;
  return {
    producerId,
    epoch: records.readInt16BE(PRODUCER_EPOCH_OFFSET),
    transactional: isTransactional(records.readInt16BE(ATTRIBUTES_OFFSET)),
  };
}

/**
 * Kafka's check before verifying: the transactional batches of one request belong to one producer
 * id and epoch. NONE, or INVALID_PRODUCER_ID_MAPPING (for the whole request).
 */
export function mixedProducers(req: ProduceRequest): number {
  let first: BatchProducer | null = null;
  for (const t of req.topicData)
    for (const pd of t.partitionData) {
      const p = producerOf(pd.records);
      if (p === null || !p.transactional) continue;
      if (first === null) first = p;
      else if (first.producerId !== p.producerId || first.epoch !== p.epoch)
        return ErrorCode.INVALID_PRODUCER_ID_MAPPING;
    }
  return ErrorCode.NONE;
}

/** The first Produce version of transaction protocol v2 (the broker adds the partitions). */
export const FIRST_ADDING_PRODUCE_VERSION = 12;
/** Kafka's add.partitions.to.txn.retry.backoff.ms and .max.ms (protocol v2 adds). */
const ADD_RETRY_BACKOFF_MS = 20;
const ADD_RETRY_MAX_MS = 100;
/** How often a v2 add is asked again because a marker dropped its guard meanwhile. */
const MAX_GUARD_RENEWALS = 3;

/**
 * The translation of a verification answer: Kafka 3.9's for Produce v3-11, Kafka 4's for v12
 * (`adding`: the partition was being added, CONCURRENT_TRANSACTIONS stays).
 */
export function produceVerificationError(code: number, adding = false): KafkaError {
  if (adding && code === ErrorCode.CONCURRENT_TRANSACTIONS) return new KafkaError(code);
  switch (code) {
    case ErrorCode.INVALID_TXN_STATE:
      return new KafkaError(code, 'Partition was not added to the transaction');
    case ErrorCode.PRODUCER_FENCED:
      return new KafkaError(ErrorCode.INVALID_PRODUCER_EPOCH);
    case ErrorCode.NETWORK_EXCEPTION:
    case ErrorCode.COORDINATOR_LOAD_IN_PROGRESS:
    case ErrorCode.COORDINATOR_NOT_AVAILABLE:
    case ErrorCode.NOT_COORDINATOR:
    case ErrorCode.CONCURRENT_TRANSACTIONS:
      return new KafkaError(
        ErrorCode.NOT_ENOUGH_REPLICAS,
        `Unable to verify the partition has been added to the transaction. Underlying error: ${errorName(code)}`,
      );
    default:
      return new KafkaError(code);
  }
}

/** One append: `started` settles (never rejects) once the log has the append (or it failed); null: at once. */
interface Step {
  started: Promise<void> | null;
  result: Promise<AppendResult>;
}

/** Per partition, per producer id: settles once the last queued append of that producer has started. */
const tails = new WeakMap<Partition, Map<bigint, Promise<void>>>();

function track(queue: Map<bigint, Promise<void>>, producerId: bigint, started: Promise<void>): void {
  queue.set(producerId, started);
  const done = () => {
    if (queue.get(producerId) === started) queue.delete(producerId);
  };
  void started.then(done, done);
}

/** Runs `step` now, or after the producer's pending append on this partition has started. */
function inOrder(partition: Partition, producerId: bigint, step: () => Step): Promise<AppendResult> {
  let queue = tails.get(partition);
  const prev = queue?.get(producerId);
  if (prev === undefined) {
    const s = step();
    if (s.started !== null) {
      if (queue === undefined) {
        queue = new Map();
        tails.set(partition, queue);
      }
      track(queue, producerId, s.started);
    }
    return s.result;
  }
  let result!: Promise<AppendResult>;
  const run = () => {
    const s = step();
    result = s.result;
    return s.started ?? undefined;
  };
  const started = prev.then(run, run);
  track(queue!, producerId, started);
  return started.then(() => result);
}

/** Produce's verified append, for one request. */
export class ProduceTxnVerification {
  #enabled: boolean | undefined;
  /** Produce v12: the partitions are added to the transaction, not only verified. */
  readonly adding: boolean;

  constructor(
    private readonly broker: BrokerServices,
    private readonly transactionalId: string | null,
    version: number,
  ) {
    this.adding = version >= FIRST_ADDING_PRODUCE_VERSION;
  }

  /** Whether transactional batches are checked with their coordinator at all. */
  get enabled(): boolean {
    if (this.#enabled === undefined) this.#enabled = this.adding || verificationEnabled(this.broker);
    return this.#enabled;
  }

  /** `partition.appendAsLeader`, after verification when the batch needs it. */
  append(
    topic: string,
    partition: Partition,
    records: Buffer,
    acks: number,
    minIsr: number,
  ): Promise<AppendResult> {
    const p = producerOf(records);
    if (p === null) return partition.appendAsLeader(records, acks, minIsr);
    if (p.transactional && this.adding && (this.broker.txns?.transactionVersion.level ?? 0) < 2)
      return Promise.reject(
        new KafkaError(
          ErrorCode.UNSUPPORTED_VERSION,
          'Produce v12 in a transaction needs transaction.version 2 (transaction protocol v2)',
        ),
      );
    const verify = p.transactional && this.enabled;
    if (!verify && tails.get(partition)?.get(p.producerId) === undefined)
      return partition.appendAsLeader(records, acks, minIsr);
    return inOrder(partition, p.producerId, () =>
      verify
        ? this.#verifiedStep(topic, partition, p, records, acks, minIsr)
        : { started: null, result: partition.appendAsLeader(records, acks, minIsr) },
    );
  }

  #verifiedStep(
    topic: string,
    partition: Partition,
    p: BatchProducer,
    records: Buffer,
    acks: number,
    minIsr: number,
  ): Step {
    const appendWith = (guard: VerificationGuard) =>
      partition.appendAsLeader(records, acks, minIsr, 'client', guard);
    // Not the leader: the append refuses at once. No transactional id: nothing to verify with,
    // the append passes only if the transaction is already open (Kafka's behaviour).
    if (!partition.isLeader || this.transactionalId === null)
      return { started: null, result: appendWith(NO_GUARD) };
    const first = partition.log.startTransactionVerification(p.producerId, p.epoch);
    if (first === NO_GUARD) return { started: null, result: appendWith(NO_GUARD) };
    const txns = this.broker.txns;
    const id = this.transactionalId;
    const parts = [{ topic, partitions: [partition.index] }];
    const adding = this.adding;
    const ask = (): Promise<number> =>
      txns === undefined
        ? Promise.resolve(ErrorCode.COORDINATOR_NOT_AVAILABLE)
        : adding
          ? txns.coordinator.addImplicitly(id, p.producerId, p.epoch, parts, { retryConcurrent: false })
          : txns.coordinator.verify(id, p.producerId, p.epoch, parts);
    const deadline = Date.now() + ADD_RETRY_MAX_MS;
    const refuse = (code: number): Promise<AppendResult> =>
      Promise.reject(produceVerificationError(code, adding));
    // Resolves once the append has started (or been refused); the object keeps the append's
    // own promise from being awaited here.
    const decide = async (): Promise<{ append: Promise<AppendResult> }> => {
      let guard = first;
      for (let attempt = 0; ; attempt++) {
        let code: number;
        try {
          code = await ask();
        } catch (e) {
          this.broker.logger.log('error', 'transaction verification failed', { error: String(e) });
          code = ErrorCode.COORDINATOR_NOT_AVAILABLE;
        }
        // Protocol v2 asks again, each time with a guard taken before asking, as Kafka's brokers
        // do: while the last transaction completes (CONCURRENT_TRANSACTIONS, every 20 ms for up
        // to 100 ms), and when a marker landed here meanwhile and dropped the guard. Under v2
        // that is the previous transaction's marker (it carries the epoch this write has), or
        // the end of this one, which the coordinator then answers as fenced.
        const concurrent = adding && code === ErrorCode.CONCURRENT_TRANSACTIONS && Date.now() < deadline;
        if (!concurrent && !(adding && code === ErrorCode.NONE))
          return { append: code === ErrorCode.NONE ? appendWith(guard) : refuse(code) };
        if (concurrent) await new Promise((r) => setTimeout(r, ADD_RETRY_BACKOFF_MS));
        const held = partition.log.startTransactionVerification(p.producerId, p.epoch);
        if (held === NO_GUARD) return { append: appendWith(NO_GUARD) }; // opened by another batch
        if (!concurrent && (held === guard || attempt >= MAX_GUARD_RENEWALS))
          return { append: appendWith(guard) };
        guard = held;
      }
    };
    let appended!: Promise<AppendResult>;
    const started = decide().then((d) => {
      appended = d.append;
    });
    return { started, result: started.then(() => appended) };
  }
}
