// Transaction coordinator settings, under Kafka's broker config names and defaults
// (TransactionStateManagerConfig / TransactionLogConfig).

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
}

export const DEFAULT_TXN_CONFIG: TxnConfig = {
  numPartitions: 50,
  maxTimeoutMs: 900_000,
  idExpirationMs: 604_800_000,
  abortTimedOutIntervalMs: 10_000,
  removeExpiredIntervalMs: 3_600_000,
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
  };
}
