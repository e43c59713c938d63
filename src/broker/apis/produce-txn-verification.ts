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

/** Kafka 3.9's translation of a verification answer for Produce v3-11. */
export function produceVerificationError(code: number): KafkaError {
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

  constructor(
    private readonly broker: BrokerServices,
    private readonly transactionalId: string | null,
  ) {}

  get enabled(): boolean {
    if (this.#enabled === undefined) this.#enabled = verificationEnabled(this.broker);
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
    const guard = partition.log.startTransactionVerification(p.producerId, p.epoch);
    if (guard === NO_GUARD) return { started: null, result: appendWith(NO_GUARD) };
    const txns = this.broker.txns;
    const id = this.transactionalId;
    const verdict =
      txns === undefined
        ? Promise.resolve(ErrorCode.COORDINATOR_NOT_AVAILABLE)
        : Promise.resolve().then(() =>
            txns.coordinator.verify(id, p.producerId, p.epoch, [{ topic, partitions: [partition.index] }]),
          );
    let appended!: Promise<AppendResult>;
    const started = verdict.then(
      (code) => {
        appended =
          code === ErrorCode.NONE ? appendWith(guard) : Promise.reject(produceVerificationError(code));
      },
      (e: unknown) => {
        this.broker.logger.log('error', 'transaction verification failed', { error: String(e) });
        appended = Promise.reject(produceVerificationError(ErrorCode.COORDINATOR_NOT_AVAILABLE));
      },
    );
    return { started, result: started.then(() => appended) };
  }
}
