// Producer options with Kafka's defaults and its consistency rules (ProducerConfig.java):
// idempotence is on by default but silently turned off when the user chose settings that
// contradict it (acks≠all, retries=0, >5 in flight); chosen explicitly, those are errors.
import { type CompressionName, codecId } from '../../protocol/compression/index.js';
import {
  type ClientOptions,
  intOption,
  type ResolvedClientOptions,
  resolveClientOptions,
} from '../config.js';
import { ConfigError } from '../errors.js';
import type { RecordHeaders } from './batch-builder.js';
import type { PartitionerOption } from './partitioner.js';

/** Turns a key or value into bytes (null = Kafka null). */
export type Serializer<T> = (value: T, topic: string, headers?: RecordHeaders) => Buffer | null;

export type Acks = 0 | 1 | -1 | 'all';

export interface ProducerOptions<K = unknown, V = unknown> extends ClientOptions {
  acks?: Acks;
  /** batch.size, default 16384 bytes: a batch this full is sent at the first chance. */
  batchSize?: number;
  /**
   * batch.max.size (KIP-782's proposal; Apache Kafka's producer has no such setting): a batch
   * that is full but not yet sent — its partition's requests are all in flight — keeps taking
   * records up to this size. Default maxRequestSize (1 MiB, about what librdkafka's and
   * franz-go's batches reach), at least batchSize; set it to batchSize for Kafka's fixed-size
   * batches. A batch a topic refuses as too large is split (as Java's producer does).
   */
  batchMaxSize?: number;
  /** linger.ms, default 5. */
  lingerMs?: number;
  /** buffer.memory, default 32 MiB. */
  bufferMemory?: number;
  /** max.block.ms: how long send() may wait for metadata or buffer space, default 60000. */
  maxBlockMs?: number;
  /** max.request.size, default 1 MiB. */
  maxRequestSize?: number;
  /** max.in.flight.requests.per.connection, default 5. */
  maxInFlightRequestsPerConnection?: number;
  /** retries, default 2147483647 (bounded by deliveryTimeoutMs). */
  retries?: number;
  /** delivery.timeout.ms, default 120000. */
  deliveryTimeoutMs?: number;
  /** enable.idempotence, default true. */
  enableIdempotence?: boolean;
  transactionalId?: string;
  /** transaction.timeout.ms, default 60000. */
  transactionTimeoutMs?: number;
  compressionType?: CompressionName;
  /** 'murmur2' (Java, default), 'crc32' (librdkafka) or a function. */
  partitioner?: PartitionerOption;
  partitionerIgnoreKeys?: boolean;
  keySerializer?: Serializer<K>;
  valueSerializer?: Serializer<V>;
  /** Let Metadata requests auto-create topics (allow.auto.create.topics), default true. */
  allowAutoTopicCreation?: boolean;
}

export interface ResolvedProducerOptions extends ResolvedClientOptions {
  acks: number;
  batchSize: number;
  batchMaxSize: number;
  lingerMs: number;
  bufferMemory: number;
  maxBlockMs: number;
  maxRequestSize: number;
  maxInFlight: number;
  retries: number;
  deliveryTimeoutMs: number;
  idempotent: boolean;
  transactionalId: string | null;
  transactionTimeoutMs: number;
  codec: number;
  partitioner: PartitionerOption;
  partitionerIgnoreKeys: boolean;
  allowAutoTopicCreation: boolean;
}

export function resolveProducerOptions(o: ProducerOptions): ResolvedProducerOptions {
  const base = resolveClientOptions(o);
  const acksRaw = o.acks ?? 'all';
  const acks = acksRaw === 'all' ? -1 : acksRaw;
  if (acks !== 0 && acks !== 1 && acks !== -1) throw new ConfigError(`acks must be 0, 1, -1 or 'all'`);
  const maxInFlight = intOption('maxInFlightRequestsPerConnection', o.maxInFlightRequestsPerConnection, 5, 1);
  const retries = intOption('retries', o.retries, 2147483647, 0);
  const lingerMs = intOption('lingerMs', o.lingerMs, 5, 0);
  const transactionalId = o.transactionalId ?? null;
  if (transactionalId !== null && transactionalId === '')
    throw new ConfigError('transactionalId must not be empty');
  let idempotent = o.enableIdempotence ?? true;
  const conflicts: string[] = [];
  if (acks !== -1) conflicts.push('acks must be all');
  if (retries === 0) conflicts.push('retries must be > 0');
  if (maxInFlight > 5) conflicts.push('maxInFlightRequestsPerConnection must be ≤ 5');
  if (conflicts.length > 0) {
    if (o.enableIdempotence === true || transactionalId !== null) {
      throw new ConfigError(
        `idempotence${transactionalId !== null ? ' (required by transactions)' : ''}: ${conflicts.join(', ')}`,
      );
    }
    idempotent = false;
  }
  if (transactionalId !== null && o.enableIdempotence === false) {
    throw new ConfigError('transactions require enableIdempotence');
  }
  if (transactionalId !== null) idempotent = true;
  const codec = codecId(o.compressionType ?? 'none');
  if (codec < 0) throw new ConfigError(`unknown compressionType ${String(o.compressionType)}`);
  const p = o.partitioner ?? 'murmur2';
  if (p !== 'murmur2' && p !== 'crc32' && typeof p !== 'function') {
    throw new ConfigError(`partitioner must be 'murmur2', 'crc32' or a function`);
  }
  const requestTimeoutMs = base.requestTimeoutMs;
  const deliveryTimeoutMs = intOption('deliveryTimeoutMs', o.deliveryTimeoutMs, 120000, 1);
  if (deliveryTimeoutMs < lingerMs + requestTimeoutMs) {
    // Kafka rejects this combination only when set explicitly; otherwise it raises the default.
    if (o.deliveryTimeoutMs !== undefined) {
      throw new ConfigError('deliveryTimeoutMs must be ≥ lingerMs + requestTimeoutMs');
    }
  }
  const batchSize = intOption('batchSize', o.batchSize, 16384, 1);
  const maxRequestSize = intOption('maxRequestSize', o.maxRequestSize, 1024 * 1024, 1);
  const batchMaxSize = intOption('batchMaxSize', o.batchMaxSize, maxRequestSize, 1);
  if (o.batchMaxSize !== undefined && batchMaxSize < batchSize)
    throw new ConfigError('batchMaxSize must be ≥ batchSize');
  return {
    ...base,
    acks,
    batchSize,
    batchMaxSize: Math.max(batchSize, Math.min(batchMaxSize, maxRequestSize)),
    lingerMs,
    bufferMemory: intOption('bufferMemory', o.bufferMemory, 32 * 1024 * 1024, 1, Number.MAX_SAFE_INTEGER),
    maxBlockMs: intOption('maxBlockMs', o.maxBlockMs, 60000, 0),
    maxRequestSize,
    maxInFlight,
    retries,
    deliveryTimeoutMs: Math.max(
      deliveryTimeoutMs,
      o.deliveryTimeoutMs === undefined ? lingerMs + requestTimeoutMs : 0,
    ),
    idempotent,
    transactionalId,
    transactionTimeoutMs: intOption('transactionTimeoutMs', o.transactionTimeoutMs, 60000, 1),
    codec,
    partitioner: p,
    partitionerIgnoreKeys: o.partitionerIgnoreKeys ?? false,
    allowAutoTopicCreation: o.allowAutoTopicCreation ?? true,
  };
}
