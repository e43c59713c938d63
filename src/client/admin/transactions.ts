// Transactions for operators (KIP-664): ListTransactions to every broker (each lists the
// transactional ids it coordinates), DescribeTransactions to each id's coordinator,
// DescribeProducers to partition leaders, and aborting an open transaction on one partition by
// sending the leader an ABORT marker (WriteTxnMarkers) with the producer id/epoch and the
// coordinator epoch that DescribeProducers reported — how a hanging transaction, one no
// coordinator will ever finish, is cleared.
import { ErrorCode } from '../../protocol/errors.js';
import { describeProducersApi } from '../../protocol/messages/generated/describe-producers.js';
import { describeTransactionsApi } from '../../protocol/messages/generated/describe-transactions.js';
import { listTransactionsApi } from '../../protocol/messages/generated/list-transactions.js';
import { writeTxnMarkersApi } from '../../protocol/messages/generated/write-txn-markers.js';
import { COORDINATOR_MOVED, COORDINATOR_TRANSACTION } from '../coordinator.js';
import { KafkaResponseError } from '../errors.js';
import { type AdminContext, byTopic, RetryableStep, type TopicPartition } from './context.js';

export interface TransactionListing {
  transactionalId: string;
  producerId: bigint;
  /** Kafka's state names: Empty, Ongoing, PrepareCommit, PrepareAbort, CompleteCommit, ... */
  state: string;
  /** The broker that coordinates the id (answered the listing). */
  coordinatorId: number;
}

export interface ListTransactionsFilter {
  states?: readonly string[];
  producerIds?: readonly bigint[];
  /** Only transactions running at least this long (ListTransactions v1; brokers before 3.8 ignore it). */
  minDurationMs?: number;
}

export interface TransactionDescription {
  transactionalId: string;
  coordinatorId: number;
  state: string;
  producerId: bigint;
  producerEpoch: number;
  transactionTimeoutMs: number;
  /** When the open transaction started (ms since the epoch), null when none is open. */
  transactionStartTimeMs: bigint | null;
  /** Partitions of the open transaction (while it completes: those still without a marker). */
  partitions: TopicPartition[];
}

export interface ProducerState {
  producerId: bigint;
  producerEpoch: number;
  lastSequence: number;
  lastTimestamp: bigint;
  /** Epoch of the coordinator that wrote this producer's last marker; null if none yet. */
  coordinatorEpoch: number | null;
  /** First offset of the producer's open transaction; null when none is open. */
  currentTransactionStartOffset: bigint | null;
}

export interface PartitionProducers extends TopicPartition {
  /** The leader that answered. */
  leaderId: number;
  activeProducers: ProducerState[];
}

/** What `abortTransaction` needs: the partition and the producer of its open transaction. */
export interface AbortTransactionSpec extends TopicPartition {
  producerId: bigint;
  producerEpoch: number;
  coordinatorEpoch: number;
}

const LEADER_MOVED = new Set<number>([
  ErrorCode.NOT_LEADER_OR_FOLLOWER,
  ErrorCode.LEADER_NOT_AVAILABLE,
  ErrorCode.FENCED_LEADER_EPOCH,
  ErrorCode.UNKNOWN_LEADER_EPOCH,
]);

/** Every broker's transactions (each broker lists the ids it coordinates). */
export async function listTransactions(
  ctx: AdminContext,
  filter: ListTransactionsFilter = {},
): Promise<TransactionListing[]> {
  if (ctx.metadata.lastRefresh === 0) await ctx.metadata.refresh();
  const ids = ctx.pool.brokers().map((b) => b.nodeId);
  const perBroker = await Promise.all(
    ids.map((id) =>
      ctx.retry(async () => {
        const res = await ctx.link(id).request(listTransactionsApi, {
          stateFilters: [...(filter.states ?? [])],
          producerIdFilters: [...(filter.producerIds ?? [])],
          durationFilter: BigInt(filter.minDurationMs ?? -1),
        });
        if (res.errorCode !== 0) {
          const err = new KafkaResponseError(res.errorCode, `ListTransactions (broker ${id})`);
          if (err.retriable) throw new RetryableStep(err);
          throw err;
        }
        return res.transactionStates.map(
          (t): TransactionListing => ({
            transactionalId: t.transactionalId,
            producerId: t.producerId,
            state: t.transactionState,
            coordinatorId: id,
          }),
        );
      }),
    ),
  );
  return perBroker.flat();
}

/** Each id's state from its coordinator; an unknown id throws TRANSACTIONAL_ID_NOT_FOUND. */
export async function describeTransactions(
  ctx: AdminContext,
  transactionalIds: readonly string[],
): Promise<TransactionDescription[]> {
  return Promise.all(
    transactionalIds.map((id) =>
      ctx.retry(async () => {
        const link = await ctx.coordinators.find(COORDINATOR_TRANSACTION, id, ctx.options.requestTimeoutMs);
        const res = await link.request(describeTransactionsApi, { transactionalIds: [id] });
        const d = res.transactionStates.find((s) => s.transactionalId === id);
        if (d === undefined)
          throw new KafkaResponseError(-1, `DescribeTransactions returned nothing for ${id}`);
        if (d.errorCode !== 0) {
          const err = new KafkaResponseError(d.errorCode, `describe transaction ${id}`);
          if (COORDINATOR_MOVED.has(d.errorCode)) ctx.coordinators.invalidate(COORDINATOR_TRANSACTION, id);
          if (err.retriable) throw new RetryableStep(err);
          throw err;
        }
        return {
          transactionalId: id,
          coordinatorId: link.nodeId,
          state: d.transactionState,
          producerId: d.producerId,
          producerEpoch: d.producerEpoch,
          transactionTimeoutMs: d.transactionTimeoutMs,
          transactionStartTimeMs: d.transactionStartTimeMs < 0n ? null : d.transactionStartTimeMs,
          partitions: d.topics.flatMap((t) =>
            t.partitions.map((partition) => ({ topic: t.topic, partition })),
          ),
        };
      }),
    ),
  );
}

/** The active producers of each partition, from its leader. */
export async function describeProducers(
  ctx: AdminContext,
  partitions: readonly TopicPartition[],
): Promise<PartitionProducers[]> {
  return ctx.retry(async () => {
    const groups = await ctx.byLeader(partitions);
    const results = await Promise.all(
      [...groups].map(async ([leader, items]) => {
        const res = await ctx.link(leader).request(describeProducersApi, {
          topics: [...byTopic(items)].map(([name, ps]) => ({
            name,
            partitionIndexes: ps.map((p) => p.partition),
          })),
        });
        return res.topics.flatMap((t) =>
          t.partitions.map((p): PartitionProducers => {
            const what = `describe producers of ${t.name}-${p.partitionIndex}`;
            if (LEADER_MOVED.has(p.errorCode))
              throw new RetryableStep(new KafkaResponseError(p.errorCode, what));
            if (p.errorCode !== 0) throw new KafkaResponseError(p.errorCode, what, p.errorMessage);
            return {
              topic: t.name,
              partition: p.partitionIndex,
              leaderId: leader,
              activeProducers: p.activeProducers.map((s) => ({
                producerId: s.producerId,
                producerEpoch: s.producerEpoch,
                lastSequence: s.lastSequence,
                lastTimestamp: s.lastTimestamp,
                coordinatorEpoch: s.coordinatorEpoch < 0 ? null : s.coordinatorEpoch,
                currentTransactionStartOffset: s.currentTxnStartOffset < 0n ? null : s.currentTxnStartOffset,
              })),
            };
          }),
        );
      }),
    );
    return results.flat();
  });
}

/**
 * Aborts the open transaction of `spec.producerId` on one partition: an ABORT marker written by
 * the partition's leader (needs ClusterAction on the cluster). The coordinator is not involved;
 * use it for transactions no coordinator will finish.
 */
export async function abortTransaction(ctx: AdminContext, spec: AbortTransactionSpec): Promise<void> {
  await ctx.retry(async () => {
    const leader = [...(await ctx.byLeader([spec])).keys()][0]!;
    const res = await ctx.link(leader).request(writeTxnMarkersApi, {
      markers: [
        {
          producerId: spec.producerId,
          producerEpoch: spec.producerEpoch,
          transactionResult: false,
          coordinatorEpoch: spec.coordinatorEpoch,
          topics: [{ name: spec.topic, partitionIndexes: [spec.partition] }],
        },
      ],
    });
    const p = res.markers[0]?.topics[0]?.partitions[0];
    const what = `abort transaction of producer ${spec.producerId} on ${spec.topic}-${spec.partition}`;
    if (p === undefined) throw new KafkaResponseError(-1, `${what}: no answer for the partition`);
    if (LEADER_MOVED.has(p.errorCode)) throw new RetryableStep(new KafkaResponseError(p.errorCode, what));
    if (p.errorCode !== 0) throw new KafkaResponseError(p.errorCode, what);
  });
}
