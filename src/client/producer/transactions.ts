// Client side of Kafka transactions (KIP-98): the state machine of TransactionManager.java,
// talking to the transaction coordinator with AddPartitionsToTxn (≤ v3, the client versions),
// AddOffsetsToTxn, TxnOffsetCommit (to the group coordinator) and EndTxn. The sender drains a
// partition only after the coordinator has accepted it into the transaction.
//
// Transaction protocol v2 (KIP-890 part 2), chosen at beginTransaction() when the brokers report
// `transaction.version` finalized at 2 or more (the features of the highest epoch seen, as Java
// 4.0 decides; a transaction never switches midway): no AddPartitionsToTxn or AddOffsetsToTxn —
// Produce v12 and TxnOffsetCommit v5 make the brokers add the partitions — and EndTxn v5, whose
// answer is the producer id and epoch to continue with (the epoch goes up by one per
// transaction, so anything still in flight from the last one is fenced; a new id when the epoch
// runs out). The next transaction's batches start again at sequence 0. Otherwise protocol v1:
// Produce ≤ v11, TxnOffsetCommit ≤ v4, EndTxn ≤ v4, as before.
//
// Errors: fencing (PRODUCER_FENCED, INVALID_PRODUCER_EPOCH, TRANSACTIONAL_ID_AUTHORIZATION_FAILED)
// is fatal — the producer must be closed; a failed send or a non-retriable AddPartitions error
// makes the transaction abortable — only abortTransaction() is allowed.
import { backoffMs } from '../../net/backoff.js';
import { ErrorCode, isRetriable } from '../../protocol/errors.js';
import { addOffsetsToTxnApi } from '../../protocol/messages/generated/add-offsets-to-txn.js';
import { addPartitionsToTxnApi } from '../../protocol/messages/generated/add-partitions-to-txn.js';
import { endTxnApi } from '../../protocol/messages/generated/end-txn.js';
import { txnOffsetCommitApi } from '../../protocol/messages/generated/txn-offset-commit.js';
import {
  COORDINATOR_GROUP,
  COORDINATOR_MOVED,
  COORDINATOR_TRANSACTION,
  type Coordinators,
} from '../coordinator.js';
import {
  FatalProducerError,
  IllegalStateError,
  KafkaClientError,
  KafkaResponseError,
  TransactionAbortableError,
} from '../errors.js';
import { FENCING_ERRORS, type ProducerIdentity } from './idempotence.js';
import type { TransactionGate } from './sender.js';

export type TransactionState =
  | 'UNINITIALIZED'
  | 'INITIALIZING'
  | 'READY'
  | 'IN_TRANSACTION'
  | 'COMMITTING'
  | 'ABORTING'
  | 'ABORTABLE_ERROR'
  | 'FATAL_ERROR';

export interface TransactionOffset {
  topic: string;
  partition: number;
  /** The offset of the next record the consumer will read (last processed + 1). */
  offset: bigint;
  leaderEpoch?: number;
  metadata?: string | null;
}

/** The consumer's group metadata; a plain group id is accepted for standalone consumers. */
export interface ConsumerGroupMetadata {
  groupId: string;
  generationId?: number;
  memberId?: string;
  groupInstanceId?: string | null;
}

interface Hooks {
  wakeSender(): void;
  /** Resolves when every batch appended so far has completed (delivered or failed). */
  flush(): Promise<void>;
  /** Fails batches not yet sent (abort). */
  abortUnsent(err: Error): void;
  /** The `transaction.version` the brokers finalized (0 when they report none; absent: 0). */
  transactionVersion?(): number;
}

/** Request versions of transaction protocol v1 (the last before v2) and v2. */
const PRODUCE_V1_MAX = 11;
const PRODUCE_V2 = 12;
const TXN_OFFSET_COMMIT_V1_MAX = 4;
const TXN_OFFSET_COMMIT_V2 = 5;
const END_TXN_V1_MAX = 4;
const END_TXN_V2 = 5;

export class TransactionManager implements TransactionGate {
  readonly transactionalId: string;
  state: TransactionState = 'UNINITIALIZED';
  readonly #identity: ProducerIdentity;
  readonly #coordinators: Coordinators;
  readonly #hooks: Hooks;
  readonly #timeoutMs: number;
  readonly #retryBackoffMs: number;
  readonly #retryBackoffMaxMs: number;
  #added = new Set<string>();
  #pendingAdd = new Map<string, { topic: string; partition: number }>();
  #adding: Promise<void> | null = null;
  #error: Error | null = null;
  #started = false;
  #v2 = false;

  constructor(
    transactionalId: string,
    identity: ProducerIdentity,
    coordinators: Coordinators,
    hooks: Hooks,
    o: { requestTimeoutMs: number; retryBackoffMs: number; retryBackoffMaxMs: number },
  ) {
    this.transactionalId = transactionalId;
    this.#identity = identity;
    this.#coordinators = coordinators;
    this.#hooks = hooks;
    this.#timeoutMs = o.requestTimeoutMs;
    this.#retryBackoffMs = o.retryBackoffMs;
    this.#retryBackoffMaxMs = o.retryBackoffMaxMs;
  }

  canSend(topic: string, partition: number): boolean {
    return this.#added.has(`${partition}:${topic}`);
  }

  /** Whether the open (or last) transaction uses transaction protocol v2. */
  get transactionV2(): boolean {
    return this.#v2;
  }

  produceMaxVersion(): number {
    return this.#v2 ? PRODUCE_V2 : PRODUCE_V1_MAX;
  }

  onBatchFailed(err: Error): void {
    if (this.state === 'IN_TRANSACTION' || this.state === 'COMMITTING') this.#abortable(err);
  }

  /** Throws unless records may be sent now. */
  checkCanAppend(): void {
    if (this.state === 'IN_TRANSACTION') return;
    if (this.state === 'ABORTABLE_ERROR')
      throw new TransactionAbortableError('the transaction must be aborted', this.#error);
    if (this.state === 'FATAL_ERROR') throw this.#error!;
    throw new IllegalStateError(
      `cannot send in transaction state ${this.state}: call beginTransaction() first`,
    );
  }

  /** Registers a partition of the current transaction (sent to the coordinator in the background). */
  addPartition(topic: string, partition: number): void {
    const k = `${partition}:${topic}`;
    if (this.#added.has(k) || this.#pendingAdd.has(k)) return;
    this.#started = true;
    if (this.#v2) {
      // The broker adds it when the first batch arrives (Produce v12).
      this.#added.add(k);
      return;
    }
    this.#pendingAdd.set(k, { topic, partition });
    if (this.#adding === null) {
      this.#adding = this.#addLoop().finally(() => {
        this.#adding = null;
      });
    }
  }

  async initTransactions(): Promise<void> {
    if (this.state !== 'UNINITIALIZED')
      throw new IllegalStateError(`initTransactions() in state ${this.state}`);
    this.state = 'INITIALIZING';
    try {
      await this.#identity.init(false);
    } catch (err) {
      this.state = err instanceof FatalProducerError ? 'FATAL_ERROR' : 'UNINITIALIZED';
      if (this.state === 'FATAL_ERROR') this.#error = err as Error;
      throw err;
    }
    this.state = 'READY';
    this.#hooks.wakeSender();
  }

  beginTransaction(): void {
    this.#require('READY', 'beginTransaction()');
    this.state = 'IN_TRANSACTION';
    this.#added.clear();
    this.#started = false;
    this.#error = null;
    this.#v2 = (this.#hooks.transactionVersion?.() ?? 0) >= 2;
  }

  async sendOffsetsToTransaction(
    offsets: readonly TransactionOffset[],
    group: string | ConsumerGroupMetadata,
  ): Promise<void> {
    this.#require('IN_TRANSACTION', 'sendOffsetsToTransaction()');
    const g: ConsumerGroupMetadata = typeof group === 'string' ? { groupId: group } : group;
    this.#started = true;
    // Protocol v2: TxnOffsetCommit v5 makes the group's broker add the offsets partition.
    if (!this.#v2)
      await this.#txnRequest('AddOffsetsToTxn', (link) =>
        link.request(addOffsetsToTxnApi, {
          transactionalId: this.transactionalId,
          producerId: this.#identity.producerId,
          producerEpoch: this.#identity.epoch,
          groupId: g.groupId,
        }),
      );
    const versions = this.#v2
      ? { minVersion: TXN_OFFSET_COMMIT_V2, maxVersion: TXN_OFFSET_COMMIT_V2 }
      : { maxVersion: TXN_OFFSET_COMMIT_V1_MAX };
    const byTopic = new Map<string, TransactionOffset[]>();
    for (const o of offsets) {
      let l = byTopic.get(o.topic);
      if (l === undefined) {
        l = [];
        byTopic.set(o.topic, l);
      }
      l.push(o);
    }
    await this.#retrying('TxnOffsetCommit', async () => {
      const link = await this.#coordinators.find(COORDINATOR_GROUP, g.groupId, this.#timeoutMs);
      const res = await link.request(
        txnOffsetCommitApi,
        {
          transactionalId: this.transactionalId,
          groupId: g.groupId,
          producerId: this.#identity.producerId,
          producerEpoch: this.#identity.epoch,
          generationId: g.generationId ?? -1,
          memberId: g.memberId ?? '',
          groupInstanceId: g.groupInstanceId ?? null,
          topics: [...byTopic].map(([name, list]) => ({
            name,
            partitions: list.map((o) => ({
              partitionIndex: o.partition,
              committedOffset: o.offset,
              committedLeaderEpoch: o.leaderEpoch ?? -1,
              committedMetadata: o.metadata ?? '',
            })),
          })),
        },
        versions,
      );
      for (const t of res.topics) {
        for (const p of t.partitions) {
          if (p.errorCode === 0) continue;
          if (COORDINATOR_MOVED.has(p.errorCode)) this.#coordinators.invalidate(COORDINATOR_GROUP, g.groupId);
          return p.errorCode;
        }
      }
      return 0;
    });
  }

  async commitTransaction(): Promise<void> {
    if (this.state === 'ABORTABLE_ERROR') {
      throw new TransactionAbortableError('cannot commit: the transaction must be aborted', this.#error);
    }
    this.#require('IN_TRANSACTION', 'commitTransaction()');
    this.state = 'COMMITTING';
    await this.#hooks.flush();
    await this.#adding;
    // Flush may have surfaced a failed batch: the transaction can then only be aborted.
    if ((this.state as TransactionState) === 'ABORTABLE_ERROR') {
      throw new TransactionAbortableError('cannot commit: a record of the transaction failed', this.#error);
    }
    await this.#endTxn(true);
  }

  async abortTransaction(): Promise<void> {
    if (this.state !== 'IN_TRANSACTION' && this.state !== 'ABORTABLE_ERROR') {
      this.#require('IN_TRANSACTION', 'abortTransaction()');
    }
    this.state = 'ABORTING';
    this.#pendingAdd.clear();
    this.#hooks.abortUnsent(new TransactionAbortableError('the transaction was aborted'));
    await this.#hooks.flush();
    await this.#adding;
    await this.#endTxn(false);
  }

  #require(state: TransactionState, what: string): void {
    if (this.state === 'FATAL_ERROR') throw this.#error!;
    if (this.state !== state)
      throw new IllegalStateError(`${what} is not allowed in transaction state ${this.state}`);
  }

  #abortable(err: Error): void {
    if (this.state === 'FATAL_ERROR') return;
    this.state = 'ABORTABLE_ERROR';
    this.#error ??= err;
  }

  #fatal(err: Error): FatalProducerError {
    const f =
      err instanceof FatalProducerError
        ? err
        : new FatalProducerError((err as KafkaClientError).code ?? 'FATAL', err.message, err);
    this.state = 'FATAL_ERROR';
    this.#error = f;
    this.#hooks.abortUnsent(f);
    return f;
  }

  async #endTxn(commit: boolean): Promise<void> {
    if (this.#started) {
      const v2 = this.#v2;
      const res = await this.#txnRequest('EndTxn', (link) =>
        link.request(
          endTxnApi,
          {
            transactionalId: this.transactionalId,
            producerId: this.#identity.producerId,
            producerEpoch: this.#identity.epoch,
            committed: commit,
          },
          v2 ? { minVersion: END_TXN_V2, maxVersion: END_TXN_V2 } : { maxVersion: END_TXN_V1_MAX },
        ),
      );
      // Protocol v2: the next transaction runs at the epoch (or producer id) the coordinator
      // moved to; its batches start again at sequence 0 (the sender sees the new identity).
      if (v2) {
        this.#identity.producerId = res.producerId;
        this.#identity.epoch = res.producerEpoch;
      }
    }
    this.#added.clear();
    this.#started = false;
    this.#error = null;
    this.state = 'READY';
  }

  /** Sends AddPartitionsToTxn for the partitions appended since the last round, until none are left. */
  async #addLoop(): Promise<void> {
    while (this.#pendingAdd.size > 0 && (this.state === 'IN_TRANSACTION' || this.state === 'COMMITTING')) {
      const batch = [...this.#pendingAdd.values()];
      const byTopic = new Map<string, number[]>();
      for (const p of batch) {
        let l = byTopic.get(p.topic);
        if (l === undefined) {
          l = [];
          byTopic.set(p.topic, l);
        }
        l.push(p.partition);
      }
      const topics = [...byTopic].map(([name, partitions]) => ({ name, partitions }));
      try {
        await this.#retrying('AddPartitionsToTxn', async () => {
          const link = await this.#coordinators.find(
            COORDINATOR_TRANSACTION,
            this.transactionalId,
            this.#timeoutMs,
          );
          const res = await link.request(
            addPartitionsToTxnApi,
            {
              transactions: [],
              v3AndBelowTransactionalId: this.transactionalId,
              v3AndBelowProducerId: this.#identity.producerId,
              v3AndBelowProducerEpoch: this.#identity.epoch,
              v3AndBelowTopics: topics,
            },
            { maxVersion: 3 },
          );
          if (res.errorCode !== 0) return res.errorCode;
          let code = 0;
          for (const t of res.resultsByTopicV3AndBelow) {
            for (const p of t.resultsByPartition) {
              if (p.partitionErrorCode !== 0 && p.partitionErrorCode !== ErrorCode.OPERATION_NOT_ATTEMPTED)
                code ||= p.partitionErrorCode;
            }
          }
          if (COORDINATOR_MOVED.has(code))
            this.#coordinators.invalidate(COORDINATOR_TRANSACTION, this.transactionalId);
          return code;
        });
        for (const p of batch) {
          const k = `${p.partition}:${p.topic}`;
          this.#pendingAdd.delete(k);
          this.#added.add(k);
        }
        this.#hooks.wakeSender();
      } catch (err) {
        this.#pendingAdd.clear();
        if ((this.state as TransactionState) !== 'FATAL_ERROR') this.#abortable(err as Error);
        // Batches of partitions that were never added cannot be sent: fail them.
        this.#hooks.abortUnsent(
          new TransactionAbortableError('partition could not be added to the transaction', err),
        );
        return;
      }
    }
  }

  /** Coordinator request with the coordinator's retry rules; maps errors to state changes. */
  async #txnRequest<T extends { errorCode: number }>(
    what: string,
    fn: (link: Awaited<ReturnType<Coordinators['find']>>) => Promise<T>,
  ): Promise<T> {
    let out: T | undefined;
    await this.#retrying(what, async () => {
      const link = await this.#coordinators.find(
        COORDINATOR_TRANSACTION,
        this.transactionalId,
        this.#timeoutMs,
      );
      out = await fn(link);
      if (COORDINATOR_MOVED.has(out.errorCode))
        this.#coordinators.invalidate(COORDINATOR_TRANSACTION, this.transactionalId);
      return out.errorCode;
    });
    return out!;
  }

  /** Runs `attempt` (which returns a Kafka error code) until success, a fatal or a non-retriable error. */
  async #retrying(what: string, attempt: () => Promise<number>): Promise<void> {
    const deadline = Date.now() + this.#timeoutMs * 2;
    for (let n = 0; ; n++) {
      let code: number;
      try {
        code = await attempt();
      } catch (err) {
        if (!(err instanceof KafkaClientError) || !err.retriable || Date.now() > deadline) throw err;
        code = -2;
      }
      if (code === 0) return;
      if (code !== -2) {
        const err = new KafkaResponseError(code, `${what} (${this.transactionalId})`);
        if (FENCING_ERRORS.has(code)) throw this.#fatal(err);
        const retry =
          isRetriable(code) || code === ErrorCode.CONCURRENT_TRANSACTIONS || COORDINATOR_MOVED.has(code);
        if (!retry || Date.now() > deadline) throw err;
      }
      // CONCURRENT_TRANSACTIONS clears in milliseconds: Java retries it quickly.
      await new Promise((r) =>
        setTimeout(r, backoffMs(Math.min(this.#retryBackoffMs, 20), this.#retryBackoffMaxMs, n)),
      );
    }
  }
}
