// Options of the fan-out bridge (fanOut), their defaults and checks, and the names derived from
// them: the group (committed source offsets) and the transactional.id (fencing).
import type { ClientOptions } from '../config.js';
import type { ConsumerLogger } from '../consumer/consumer-config.js';
import { ConfigError } from '../errors.js';
import { clientOptionsOf } from './transactional-hand-off.js';

/**
 * Where records without a key go: 'sticky' (the default partitioner of Java ≥ 2.4 and of our
 * Producer: one partition until a batch is full, then another) or 'round-robin' (one record per
 * partition in turn).
 */
export type KeylessSpread = 'sticky' | 'round-robin';

export interface FanOutOptions extends ClientOptions {
  /** The topic to copy. It must exist. */
  from: string;
  /** The topic to copy into; created with `partitions` partitions if missing. */
  to: string;
  /**
   * Partitions of the target. An existing target must have exactly this many: keyed records are
   * placed by murmur2(key) % partitions, so another count would place them elsewhere than asked.
   */
  partitions: number;
  /**
   * Consumer group holding the committed source offsets; default `samsa-fan-out.<from>.<to>`.
   * One bridge per group: a second one with the same group and source fences the first.
   */
  group?: string;
  /** Replication factor of a target created by the bridge; default: the broker's. */
  replicationFactor?: number;
  /** Default 'sticky'. */
  keyless?: KeylessSpread;
  /** Copy up to the source's end offsets taken at start, then end (done resolves). */
  stopAtEnd?: boolean;
  /** A transaction is committed at least this often while records flow, default 100 ms. */
  commitIntervalMs?: number;
  /** ... or once it holds this many records, default 5000. */
  maxRecordsPerTransaction?: number;
  /** transaction.timeout.ms: how long a dead bridge's open transaction can hold read_committed readers back, default 60000. */
  transactionTimeoutMs?: number;
  logger?: ConsumerLogger;
}

export interface ResolvedFanOutOptions {
  client: ClientOptions;
  from: string;
  to: string;
  partitions: number;
  group: string;
  transactionalId: string;
  replicationFactor: number | undefined;
  keyless: KeylessSpread;
  stopAtEnd: boolean;
  commitIntervalMs: number;
  maxRecordsPerTransaction: number;
  transactionTimeoutMs: number;
  logger: ConsumerLogger;
}

const LEGAL_TOPIC = /^[a-zA-Z0-9._-]{1,249}$/;

export function checkTopicName(what: string, name: unknown): string {
  if (typeof name !== 'string' || !LEGAL_TOPIC.test(name) || name === '.' || name === '..')
    throw new ConfigError(
      `${what} must be a topic name (1-249 characters of a-z A-Z 0-9 . _ -), got ${JSON.stringify(name)}`,
    );
  return name;
}

export function positiveInteger(what: string, v: unknown, def?: number): number {
  if (v === undefined && def !== undefined) return def;
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 1)
    throw new ConfigError(`${what} must be a whole number of 1 or more, got ${String(v)}`);
  return v;
}

/** The group used when none is given. */
export function defaultFanOutGroup(from: string, to: string): string {
  return `samsa-fan-out.${from}.${to}`;
}

/** One transactional.id per group and source: a restarted bridge fences the one it replaces. */
export function fanOutTransactionalId(group: string, from: string): string {
  return `${group}:${from}`;
}

export function resolveFanOutOptions(o: FanOutOptions): ResolvedFanOutOptions {
  const from = checkTopicName('from', o.from);
  const to = checkTopicName('to', o.to);
  if (from === to) throw new ConfigError('from and to must be different topics');
  const partitions = positiveInteger('partitions', o.partitions);
  const group = o.group ?? defaultFanOutGroup(from, to);
  if (typeof group !== 'string' || group === '') throw new ConfigError('group must be a non-empty string');
  const keyless = o.keyless ?? 'sticky';
  if (keyless !== 'sticky' && keyless !== 'round-robin')
    throw new ConfigError(`keyless must be sticky or round-robin, got ${String(keyless)}`);
  const commitIntervalMs = o.commitIntervalMs ?? 100;
  if (!(commitIntervalMs >= 0) || !Number.isFinite(commitIntervalMs))
    throw new ConfigError(`commitIntervalMs must be a non-negative number, got ${commitIntervalMs}`);
  return {
    client: clientOptionsOf(o),
    from,
    to,
    partitions,
    group,
    transactionalId: fanOutTransactionalId(group, from),
    replicationFactor:
      o.replicationFactor === undefined
        ? undefined
        : positiveInteger('replicationFactor', o.replicationFactor),
    keyless,
    stopAtEnd: o.stopAtEnd ?? false,
    commitIntervalMs,
    maxRecordsPerTransaction: positiveInteger('maxRecordsPerTransaction', o.maxRecordsPerTransaction, 5000),
    transactionTimeoutMs: positiveInteger('transactionTimeoutMs', o.transactionTimeoutMs, 60_000),
    logger: o.logger ?? (() => {}),
  };
}
