// Transaction coordinator settings, under Kafka's broker config names and defaults
// (TransactionStateManagerConfig / TransactionLogConfig), plus `transaction.version`: the level
// Kafka finalizes as a cluster feature (`kafka-storage format --feature`, `kafka-features`), a
// static broker config here. Kafka 4.0 finalizes 2 on a new cluster, so that is the default.
//   0: transaction protocol v1, `__transaction_state` values in TransactionLogValue v0;
//   1: the same protocol, values in TransactionLogValue v1 (flexible: previous/next producer id
//      and the client's transaction version are kept);
//   2: also transaction protocol v2 (KIP-890 part 2) for the clients that ask for it.

export interface TxnConfig {
  /** transaction.state.log.num.partitions */
  numPartitions: number;
  /** transaction.max.timeout.ms: InitProducerId with a longer timeout gets INVALID_TRANSACTION_TIMEOUT. */
  maxTimeoutMs: number;
  /** transactional.id.expiration.ms: idle transactional ids (no open transaction) are forgotten. */
  idExpirationMs: number;
  /** transaction.abort.timed.out.transaction.cleanup.interval.ms */
  abortTimedOutIntervalMs: number;
  /** transaction.remove.expired.transaction.cleanup.interval.ms */
  removeExpiredIntervalMs: number;
  /** transaction.version: the finalized level of Kafka's feature (0-2). */
  transactionVersion: number;
}

export const TRANSACTION_VERSION_FEATURE = 'transaction.version';
/** The levels of `transaction.version` this broker can run (Kafka 4.0: 0-2). */
export const SUPPORTED_TRANSACTION_VERSIONS = { min: 0, max: 2 } as const;

export const DEFAULT_TXN_CONFIG: TxnConfig = {
  numPartitions: 50,
  maxTimeoutMs: 900_000,
  idExpirationMs: 604_800_000,
  abortTimedOutIntervalMs: 10_000,
  removeExpiredIntervalMs: 3_600_000,
  transactionVersion: 2,
};

export function txnConfigFromProps(props: ReadonlyMap<string, string>): TxnConfig {
  const num = (key: string, fallback: number): number => {
    const v = props.get(key);
    if (v === undefined) return fallback;
    const n = Number(v);
    return Number.isFinite(n) && n > 0 ? n : fallback;
  };
  const d = DEFAULT_TXN_CONFIG;
  return {
    numPartitions: num('transaction.state.log.num.partitions', d.numPartitions),
    maxTimeoutMs: num('transaction.max.timeout.ms', d.maxTimeoutMs),
    idExpirationMs: num('transactional.id.expiration.ms', d.idExpirationMs),
    abortTimedOutIntervalMs: num(
      'transaction.abort.timed.out.transaction.cleanup.interval.ms',
      d.abortTimedOutIntervalMs,
    ),
    removeExpiredIntervalMs: num(
      'transaction.remove.expired.transaction.cleanup.interval.ms',
      d.removeExpiredIntervalMs,
    ),
    transactionVersion: transactionVersionOf(props.get(TRANSACTION_VERSION_FEATURE), d.transactionVersion),
  };
}

/** A `transaction.version` value; anything but a supported level keeps `fallback` (config validation reports it). */
function transactionVersionOf(v: string | undefined, fallback: number): number {
  const n = v === undefined ? Number.NaN : Number(v.trim());
  const { min, max } = SUPPORTED_TRANSACTION_VERSIONS;
  return Number.isInteger(n) && n >= min && n <= max ? n : fallback;
}
