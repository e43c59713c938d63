// The runtime's only contact with the log of the internal topic. A storage-backed
// implementation lives next to the broker wiring; InMemoryPartitionWriter serves unit tests
// (and documents the contract).
import { ErrorCode, KafkaError } from '../../../protocol/errors.js';

/** One record of an internal topic as bytes: a null value is a tombstone. */
export interface SerializedRecord {
  key: Buffer;
  value: Buffer | null;
}

export interface LoadedRecord extends SerializedRecord {
  offset: bigint;
  /** Set for records of a transactional batch (TxnOffsetCommit offsets, pending until a marker). */
  producer?: TransactionalProducer;
}

/** The producer of a transactional batch a coordinator writes for a client's transaction. */
export interface TransactionalProducer {
  producerId: bigint;
  producerEpoch: number;
}

/** A COMMIT/ABORT marker written to a coordinator's own partition (e.g. __consumer_offsets). */
export interface TransactionMarker extends TransactionalProducer {
  coordinatorEpoch: number;
  commit: boolean;
}

export interface LoadedMarker extends TransactionMarker {
  offset: bigint;
}

/**
 * How one append is framed: by default a plain batch; `transaction` makes it a transactional
 * batch of that producer; `marker` writes one control batch (then `records` is empty) that
 * takes one offset.
 */
export interface AppendAttributes {
  transaction?: TransactionalProducer;
  marker?: TransactionMarker;
}

/**
 * The log refused an append before writing any of it (too few in-sync replicas, a batch over
 * max.message.bytes, no longer the leader): nothing of the batch can ever become committed, so
 * the runtime may take exactly that batch back. Any other failure leaves the batch's fate unknown
 * (written but not committed in time, a disk error) and the runtime reloads the shard from the log.
 */
export class AppendRefusedError extends KafkaError {
  constructor(code: number, message?: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.name = 'AppendRefusedError';
  }
}

/** RecordBatch v2 header, up to the record count. */
export const BATCH_HEADER_BYTES = 61;

/** The largest size a batch of these records can take (RecordBatch v2, uncompressed). */
export function batchBytesBound(records: readonly SerializedRecord[]): number {
  let bytes = BATCH_HEADER_BYTES;
  for (const r of records) bytes += recordBytesBound(r);
  return bytes;
}

/**
 * One record's size at most: its key and value plus the varints around them (length, attributes,
 * timestamp delta, offset delta, key and value lengths, header count), each at its widest.
 */
export function recordBytesBound(r: SerializedRecord): number {
  return r.key.length + (r.value === null ? 0 : r.value.length) + 36;
}

export interface PartitionWriter {
  /**
   * Appends `records` to `partition` of the internal topic and resolves once they are
   * committed (replicated to the ISR; on one broker: written to the log), with the offset
   * just past the last record. Appends to one partition are issued one at a time by the
   * runtime, so the writer may assume no concurrency per partition. Rejects with
   * `AppendRefusedError` when the log took none of the batch.
   */
  append(
    partition: number,
    records: readonly SerializedRecord[],
    timestampMs: number,
    attributes?: AppendAttributes,
  ): Promise<bigint>;
  /**
   * The largest batch `partition` accepts, in bytes (the topic's max.message.bytes): the
   * runtime never merges operations into a batch past it. Absent: no limit.
   */
  maxBatchBytes?(partition: number): number;
}

export interface PartitionLoader {
  /**
   * Replays the committed records of `partition` from its start, calling `onRecords` for
   * each chunk in offset order, and resolves with the offset just past the last one. Chunks
   * let a large partition load without blocking the event loop for its whole length.
   * Transaction markers go to `onMarker`, in log order with the records.
   */
  load(
    partition: number,
    onRecords: (records: readonly LoadedRecord[]) => void,
    onMarker?: (marker: LoadedMarker) => void,
  ): Promise<bigint>;
}

/**
 * Keeps each partition as an array. `failNextAppend` (a failure of unknown outcome),
 * `refuseNextAppend` (the log took nothing), `maxBatch` and `holdCommits` let tests exercise
 * write failures, batch limits and responses held back until the records are committed.
 */
export class InMemoryPartitionWriter implements PartitionWriter, PartitionLoader {
  readonly logs = new Map<number, LoadedRecord[]>();
  /** Markers by partition, keyed by their offset in `logs` (a marker entry there has an empty key). */
  readonly markers = new Map<number, Map<bigint, LoadedMarker>>();
  appendCount = 0;
  /** Records per append, in order. */
  readonly appendSizes: number[] = [];
  /** Refuses (MESSAGE_TOO_LARGE) any batch whose bound exceeds it, as max.message.bytes does. */
  maxBatch = Number.POSITIVE_INFINITY;
  #failNext: Error | null = null;
  #held: Array<() => void> | null = null;

  entries(partition: number): LoadedRecord[] {
    let log = this.logs.get(partition);
    if (log === undefined) {
      log = [];
      this.logs.set(partition, log);
    }
    return log;
  }

  failNextAppend(err: Error): void {
    this.#failNext = err;
  }

  /** The next append is refused before anything is stored, with `code`. */
  refuseNextAppend(code: number = ErrorCode.NOT_ENOUGH_REPLICAS): void {
    this.#failNext = new AppendRefusedError(code, 'refused by the test');
  }

  maxBatchBytes(): number {
    return this.maxBatch;
  }

  /** From now on appends are stored but only resolve when `releaseCommits()` is called. */
  holdCommits(): void {
    this.#held ??= [];
  }

  releaseCommits(): void {
    const held = this.#held ?? [];
    this.#held = null;
    for (const release of held) release();
  }

  append(
    partition: number,
    records: readonly SerializedRecord[],
    _timestampMs?: number,
    attributes?: AppendAttributes,
  ): Promise<bigint> {
    this.appendCount++;
    if (this.#failNext !== null) {
      const err = this.#failNext;
      this.#failNext = null;
      return Promise.reject(err);
    }
    if (batchBytesBound(records) > this.maxBatch)
      return Promise.reject(new AppendRefusedError(ErrorCode.MESSAGE_TOO_LARGE, 'batch over maxBatch'));
    this.appendSizes.push(records.length);
    const log = this.entries(partition);
    if (attributes?.marker !== undefined) {
      const offset = BigInt(log.length);
      log.push({ key: Buffer.alloc(0), value: null, offset });
      let m = this.markers.get(partition);
      if (m === undefined) {
        m = new Map();
        this.markers.set(partition, m);
      }
      m.set(offset, { ...attributes.marker, offset });
    }
    const producer = attributes?.transaction;
    for (const r of records) {
      log.push({
        key: r.key,
        value: r.value,
        offset: BigInt(log.length),
        ...(producer !== undefined ? { producer } : {}),
      });
    }
    const end = BigInt(log.length);
    if (this.#held !== null) {
      const held = this.#held;
      return new Promise((resolve) => held.push(() => resolve(end)));
    }
    return Promise.resolve(end);
  }

  async load(
    partition: number,
    onRecords: (records: readonly LoadedRecord[]) => void,
    onMarker?: (marker: LoadedMarker) => void,
  ): Promise<bigint> {
    const log = this.entries(partition);
    const markers = this.markers.get(partition);
    let chunk: LoadedRecord[] = [];
    for (const rec of log) {
      const marker = markers?.get(rec.offset);
      if (marker === undefined) {
        chunk.push(rec);
        continue;
      }
      if (chunk.length > 0) onRecords(chunk);
      chunk = [];
      onMarker?.(marker);
    }
    if (chunk.length > 0) onRecords(chunk);
    return BigInt(log.length);
  }
}
