// What the transaction coordinator knows about one transactional id (Kafka's
// TransactionMetadata), and the record that persists it in __transaction_state. The state
// changes only by replaying a TxnRecord, so a shard loaded from the log equals the one that
// wrote it — except `lastProducerEpoch`, which Kafka does not persist either (TransactionLogValue
// v0 has no field for it): it only lets a producer retry an epoch bump whose answer it lost. The
// fields of transaction protocol v2 (KIP-890 part 2) are optional: absent means protocol v1.

/** Kafka's TransactionState names, as DescribeTransactions/ListTransactions print them. */
export type TxnState =
  | 'Empty'
  | 'Ongoing'
  | 'PrepareCommit'
  | 'PrepareAbort'
  | 'CompleteCommit'
  | 'CompleteAbort'
  | 'Dead'
  | 'PrepareEpochFence';

/** TransactionStatus ids of the log format (CLIENTS.md §6.2), indexed by id. */
export const TXN_STATES: readonly TxnState[] = [
  'Empty',
  'Ongoing',
  'PrepareCommit',
  'PrepareAbort',
  'CompleteCommit',
  'CompleteAbort',
  'Dead',
  'PrepareEpochFence',
];

export const NO_PRODUCER_ID = -1n;
export const NO_PRODUCER_EPOCH = -1;
/** Kafka bumps to a new producer id once the epoch reaches Short.MAX_VALUE - 1. */
export const MAX_PRODUCER_EPOCH = 32766;

export interface TopicPartitionSet {
  topic: string;
  partitions: number[];
}

/** One transactional id's state: both the in-memory value and the body of its log record. */
export interface TxnMetadata {
  producerId: bigint;
  /** The producer id before the last rotation (KIP-360 retries), or -1. */
  previousProducerId: bigint;
  producerEpoch: number;
  /** Epoch before the last bump, or -1; transient (not in the log). */
  lastProducerEpoch: number;
  timeoutMs: number;
  state: TxnState;
  /** Partitions of the open (or completing) transaction, sorted; empty otherwise. */
  partitions: TopicPartitionSet[];
  /** When the transaction started (first partition added), or -1. */
  startTimestamp: number;
  lastUpdateTimestamp: number;
  /**
   * Transaction protocol of the client's last change (KIP-890): 2 when it ends its transactions
   * with an epoch bump (EndTxn v5, partitions added by Produce v12 / TxnOffsetCommit v5), else 0.
   * Absent = 0; persisted only in TransactionLogValue v1.
   */
  clientTransactionVersion?: number;
  /**
   * Protocol v2 only: the producer id a Prepare* state hands over on completion because the
   * epoch ran out (the markers use the old id at the last epoch), or -1. Absent = -1.
   */
  nextProducerId?: bigint;
}

/** A `__transaction_state` record: a null value is the tombstone of an expired id. */
export interface TxnRecord {
  transactionalId: string;
  value: TxnMetadata | null;
}

export function isPrepare(state: TxnState): state is 'PrepareCommit' | 'PrepareAbort' {
  return state === 'PrepareCommit' || state === 'PrepareAbort';
}

export function isEpochExhausted(epoch: number): boolean {
  return epoch >= MAX_PRODUCER_EPOCH;
}

/** Whether the transaction follows protocol v2 (one epoch bump per transaction). */
export function isTransactionV2(m: Pick<TxnMetadata, 'clientTransactionVersion'>): boolean {
  return (m.clientTransactionVersion ?? 0) >= 2;
}

export function partitionCount(parts: readonly TopicPartitionSet[]): number {
  let n = 0;
  for (const t of parts) n += t.partitions.length;
  return n;
}

/** True when every partition of `add` is already in `current`. */
export function containsAll(
  current: readonly TopicPartitionSet[],
  add: readonly TopicPartitionSet[],
): boolean {
  return add.every((t) => {
    const have = current.find((c) => c.topic === t.topic);
    return have !== undefined && t.partitions.every((p) => have.partitions.includes(p));
  });
}

/** Union of two partition sets, sorted by topic then partition (a stable record form). */
export function mergePartitions(
  a: readonly TopicPartitionSet[],
  b: readonly TopicPartitionSet[],
): TopicPartitionSet[] {
  const m = new Map<string, Set<number>>();
  for (const t of [...a, ...b]) {
    let s = m.get(t.topic);
    if (s === undefined) {
      s = new Set();
      m.set(t.topic, s);
    }
    for (const p of t.partitions) s.add(p);
  }
  return [...m.keys()]
    .sort()
    .map((topic) => ({ topic, partitions: [...(m.get(topic) as Set<number>)].sort((x, y) => x - y) }));
}
