// The exactly-once core of the fan-out bridge and the delay scheduler: read source partitions
// with a read_committed consumer, write what they become with a transactional producer, and put
// the source offsets into the same transaction (sendOffsetsToTransaction), so the records written
// and the input consumed are committed together or not at all.
//
// How a crash or a second instance stays harmless:
// - The transactional.id is derived from the group: a restarted instance's initTransactions()
//   bumps the producer epoch, which aborts the transaction its dead (or hung) predecessor left
//   open and fences that predecessor out — every request it still sends fails with
//   PRODUCER_FENCED / INVALID_PRODUCER_EPOCH. Only then are the group's offsets read, with
//   RequireStable (an offset commit still pending in a transaction is waited out), so the new
//   instance starts exactly where the last committed transaction ended.
// - The group is used for its committed offsets only: the consumer is assigned its partitions
//   (no group membership, no rebalance), so there is exactly one writer per group, and a
//   restart resumes at once instead of waiting for a dead member's session to expire.
// - A transaction that fails without fencing (a record rejected, a coordinator gone for
//   longer than the retries) is aborted and the consumer rewound to the committed offsets: what
//   the aborted transaction had read is read again. A fenced instance stops (FencedError) and
//   never creates a new producer, which would fence the instance that replaced it.

import type { ClientOptions } from '../config.js';
import { Consumer } from '../consumer/consumer.js';
import type { ConsumerLogger, ConsumerOptions } from '../consumer/consumer-config.js';
import type { TopicPartition } from '../consumer/types.js';
import { errorClass, FatalProducerError, type KafkaClientError, KafkaResponseError } from '../errors.js';
import { Producer, type ProducerRecord } from '../producer/producer.js';
import type { TransactionOffset } from '../producer/transactions.js';

/** Another instance with the same transactional.id (the same group) took over: this one stopped. */
export class FencedError extends errorClass('FencedError', 'FENCED', false) {}

/** Producer errors after which this producer can never commit again. */
const FENCING_CODES = new Set([
  'PRODUCER_FENCED',
  'INVALID_PRODUCER_EPOCH',
  'TRANSACTIONAL_ID_AUTHORIZATION_FAILED',
  'CLUSTER_AUTHORIZATION_FAILED',
]);

const CLIENT_KEYS = [
  'bootstrapServers',
  'clientId',
  'requestTimeoutMs',
  'connectionTimeoutMs',
  'reconnectBackoffMs',
  'reconnectBackoffMaxMs',
  'retryBackoffMs',
  'retryBackoffMaxMs',
  'metadataMaxAgeMs',
  'ssl',
  'sasl',
  'onThrottle',
] as const satisfies readonly (keyof ClientOptions)[];

/** The connection options of a pattern's options (which add their own keys to ClientOptions). */
export function clientOptionsOf(o: ClientOptions): ClientOptions {
  const out: Record<string, unknown> = {};
  for (const k of CLIENT_KEYS) if (o[k] !== undefined) out[k] = o[k];
  return out as unknown as ClientOptions;
}

export interface HandOffSetup {
  client: ClientOptions;
  /** The group whose committed offsets say where each source partition resumes. */
  group: string;
  transactionalId: string;
  /** transaction.timeout.ms of the producer. */
  transactionTimeoutMs: number;
  /** Every source partition, assigned to the consumer. */
  partitions: readonly TopicPartition[];
  logger: ConsumerLogger;
  /** Consumer settings of the pattern (max.poll.records, fetch sizes, ...). */
  consumer?: Partial<ConsumerOptions>;
}

function fatalIn(err: unknown): KafkaClientError | null {
  for (let e = err, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) {
    if (e instanceof FatalProducerError) return e;
    if (e instanceof KafkaResponseError && FENCING_CODES.has(e.code)) return e;
  }
  return null;
}

function fenced(transactionalId: string, err: KafkaClientError): Error {
  if (err.code === 'PRODUCER_FENCED' || err.code === 'INVALID_PRODUCER_EPOCH')
    return new FencedError(
      `fenced: another instance started with transactional.id ${transactionalId} (the same group) and took over; this one stopped`,
      err,
    );
  return err;
}

export class TransactionalHandOff {
  readonly consumer: Consumer;
  readonly #producer: Producer;
  readonly #setup: HandOffSetup;
  #inTransaction = false;
  /** A record of the open transaction failed: it can only fail (or be fenced) at commit. */
  #sendFailed = false;
  readonly #onDelivery = (err: Error | null): void => {
    if (err !== null) this.#sendFailed = true;
  };
  /** Per source partition: the offset the group has committed, as far as this instance knows. */
  readonly #committed = new Map<string, bigint>();

  private constructor(setup: HandOffSetup, producer: Producer, consumer: Consumer) {
    this.#setup = setup;
    this.#producer = producer;
    this.consumer = consumer;
  }

  /**
   * Fences any previous instance (initTransactions), then assigns the source partitions at the
   * group's committed offsets (the beginning where there is none).
   */
  static async open(setup: HandOffSetup): Promise<TransactionalHandOff> {
    const producer = new Producer({
      ...setup.client,
      transactionalId: setup.transactionalId,
      transactionTimeoutMs: setup.transactionTimeoutMs,
      allowAutoTopicCreation: false,
    });
    let consumer: Consumer | null = null;
    try {
      await producer.initTransactions();
      consumer = new Consumer({
        ...setup.client,
        ...setup.consumer,
        groupId: setup.group,
        enableAutoCommit: false,
        isolationLevel: 'read_committed',
        autoOffsetReset: 'earliest',
        allowAutoCreateTopics: false,
        logger: setup.logger,
      });
      const h = new TransactionalHandOff(setup, producer, consumer);
      consumer.assign(setup.partitions);
      await h.rewind();
      return h;
    } catch (err) {
      await consumer?.close({ timeoutMs: 1000 }).catch(() => {});
      await producer.close({ timeoutMs: 0 }).catch(() => {});
      const f = fatalIn(err);
      throw f === null ? err : fenced(setup.transactionalId, f);
    }
  }

  get transactionalId(): string {
    return this.#setup.transactionalId;
  }

  get inTransaction(): boolean {
    return this.#inTransaction;
  }

  /** The group's committed offset of a source partition (as of the last commit or rewind). */
  committed(tp: TopicPartition): bigint {
    return this.#committed.get(key(tp)) ?? 0n;
  }

  /**
   * Seeks every source partition to the group's committed offset (read with RequireStable),
   * or to its beginning when the group has none, and records where that is.
   */
  async rewind(): Promise<void> {
    const c = this.consumer;
    const tps = this.#setup.partitions;
    const committed = await c.committed(tps);
    tps.forEach((tp, i) => {
      const o = committed[i];
      if (o === null || o === undefined) c.seekToBeginning([tp]);
      else c.seek(tp, o.offset);
    });
    for (const tp of tps) this.#committed.set(key(tp), await c.position(tp));
  }

  /** Starts a transaction (once per batch of hand-offs). */
  begin(): void {
    this.#producer.beginTransaction();
    this.#inTransaction = true;
    this.#sendFailed = false;
  }

  /**
   * Adds a record to the open transaction. Returns false if the producer's buffer is full: await
   * bufferAvailable() before the next one. A failure surfaces at commit(); `failing` tells early.
   */
  send(record: ProducerRecord): boolean {
    return this.#producer.send(record, this.#onDelivery);
  }

  /**
   * A record of the open transaction failed (e.g. this instance was fenced): commit now, which
   * aborts or stops, rather than add more records to a transaction that cannot commit.
   */
  get failing(): boolean {
    return this.#sendFailed;
  }

  bufferAvailable(): Promise<void> {
    return this.#producer.bufferAvailable();
  }

  /**
   * Commits the open transaction with the source offsets reached (only those that moved are
   * sent). Returns true if committed; false if the transaction failed and was aborted — the
   * consumer is then rewound to the committed offsets, and everything it had returned since
   * must be forgotten by the caller. Throws FencedError (or another fatal producer error) if
   * this instance can no longer commit: it must stop.
   */
  async commit(offsets: readonly TransactionOffset[]): Promise<boolean> {
    const moved = offsets.filter((o) => o.offset !== this.#committed.get(key(o)));
    try {
      if (moved.length > 0) await this.#producer.sendOffsetsToTransaction(moved, this.#setup.group);
      await this.#producer.commitTransaction();
      this.#inTransaction = false;
      for (const o of moved) this.#committed.set(key(o), o.offset);
      return true;
    } catch (err) {
      await this.#rollBack(err);
      return false;
    }
  }

  async #rollBack(err: unknown): Promise<void> {
    const f = fatalIn(err);
    if (f !== null) throw fenced(this.#setup.transactionalId, f);
    this.#setup.logger('warn', 'transaction failed: aborting it and reading its input again', {
      error: (err as Error).message,
    });
    try {
      await this.#producer.abortTransaction();
    } catch (abortErr) {
      const f2 = fatalIn(abortErr);
      if (f2 !== null) throw fenced(this.#setup.transactionalId, f2);
      // The transaction's outcome is unknown (e.g. the commit timed out after reaching the
      // coordinator). Only a new instance can settle it, by fencing this one: stop here.
      throw err;
    }
    this.#inTransaction = false;
    await this.rewind();
  }

  /**
   * Ends the instance. A transaction still open is aborted (its input is read again by the
   * next instance); call commit() first to keep it.
   */
  async close(): Promise<void> {
    if (this.#inTransaction) {
      this.#inTransaction = false;
      await this.#producer.abortTransaction().catch(() => {});
    }
    await this.consumer.close({ timeoutMs: 5000 }).catch(() => {});
    await this.#producer.close({ timeoutMs: 5000 }).catch(() => {});
  }
}

function key(tp: TopicPartition): string {
  return `${tp.topic}\u0000${tp.partition}`;
}
