// Per-partition record accumulator and the buffer.memory bound.
//
// Each partition has a FIFO of batches; only the last one is open for appends. A batch's buffer
// is reserved from the memory pool when the batch is created (max(batch.size, record size)) and
// returned when the batch completes, so the bytes held by unsent records never exceed
// buffer.memory. The sender decides when batches are drained (full, linger expired, flush).
import { BATCH_HEADER_SIZE, type EncodedHeaders, recordSizeUpperBound } from './batch-builder.js';
import { type DeliveryCallback, ProducerBatch } from './producer-batch.js';

export class MemoryPool {
  readonly total: number;
  #available: number;
  #waiters: (() => void)[] = [];
  // Buffers of exactly batch.size are recycled (like Java's BufferPool free list): a busy
  // producer then reuses the same buffer.memory instead of leaving megabytes of dead
  // ArrayBuffers for the garbage collector, which is what made RSS balloon.
  readonly #poolable: number;
  #free: Buffer[] = [];

  constructor(total: number, poolable = 0) {
    this.total = total;
    this.#available = total;
    this.#poolable = poolable;
  }

  /** A buffer for a new batch: recycled when `size` is the pooled size. Accounting is separate. */
  allocate(size: number): Buffer | undefined {
    return size === this.#poolable ? this.#free.pop() : undefined;
  }

  /** Returns a batch buffer nobody references any more (its request was answered). */
  recycle(buf: Buffer): void {
    if (buf.length === this.#poolable && (this.#free.length + 1) * this.#poolable <= this.total)
      this.#free.push(buf);
  }

  get available(): number {
    return this.#available;
  }

  tryReserve(n: number): boolean {
    if (n > this.#available) return false;
    this.#available -= n;
    return true;
  }

  release(n: number): void {
    this.#available += n;
    const w = this.#waiters;
    if (w.length === 0) return;
    this.#waiters = [];
    for (const fn of w) fn();
  }

  /** Resolves at the next release (callers re-check and wait again if still short). */
  waitForRelease(): Promise<void> {
    return new Promise((resolve) => this.#waiters.push(resolve));
  }
}

/** Accumulator state of one partition, including its idempotence bookkeeping. */
export class PartitionQueue {
  readonly topic: string;
  readonly partition: number;
  batches: ProducerBatch[] = [];
  /** Batches of this partition currently in flight. */
  inFlight = 0;
  /** Next sequence to assign (idempotence). */
  nextSequence = 0;
  /** Last sequence the broker acknowledged, -1 for none under the current epoch. */
  lastAckedSequence = -1;
  /** Set when a batch went back to the queue: stop draining until the in-flight ones return. */
  retrying = false;
  /** Resent batches in flight: while one is, nothing else of this partition is sent. */
  resendInFlight = 0;

  constructor(topic: string, partition: number) {
    this.topic = topic;
    this.partition = partition;
  }
}

export const APPENDED = 0;
export const APPENDED_NEW_BATCH = 1;
export const APPENDED_BATCH_FULL = 2;
export const NO_MEMORY = -1;
export type AppendResult =
  | typeof APPENDED
  | typeof APPENDED_NEW_BATCH
  | typeof APPENDED_BATCH_FULL
  | typeof NO_MEMORY;

export class RecordAccumulator {
  readonly batchSize: number;
  readonly pool: MemoryPool;
  #topics = new Map<string, PartitionQueue[]>();
  /** Number of records appended and not yet completed (for flush and close). */
  pendingBatches = 0;

  /** False with acks=0: a request's buffers may still be queued in the socket when it "completes". */
  recycleBuffers = true;

  constructor(batchSize: number, bufferMemory: number) {
    this.batchSize = batchSize;
    this.pool = new MemoryPool(bufferMemory, Math.max(batchSize, BATCH_HEADER_SIZE + 64));
  }

  queue(topic: string, partition: number): PartitionQueue {
    let list = this.#topics.get(topic);
    if (list === undefined) {
      list = [];
      this.#topics.set(topic, list);
    }
    let q = list[partition];
    if (q === undefined) {
      q = new PartitionQueue(topic, partition);
      list[partition] = q;
    }
    return q;
  }

  *queues(): IterableIterator<PartitionQueue> {
    for (const list of this.#topics.values()) for (const q of list) if (q !== undefined) yield q;
  }

  /** Bytes a new batch for this record would reserve. */
  batchCapacityFor(key: Buffer | null, value: Buffer | null, headers: EncodedHeaders): number {
    return Math.max(this.batchSize, BATCH_HEADER_SIZE + recordSizeUpperBound(key, value, headers));
  }

  append(
    topic: string,
    partition: number,
    timestamp: number,
    key: Buffer | null,
    value: Buffer | null,
    headers: EncodedHeaders,
    cb: DeliveryCallback | undefined,
    now: number,
  ): AppendResult {
    const q = this.queue(topic, partition);
    const last = q.batches[q.batches.length - 1];
    if (last !== undefined && last.builder !== null && last.tryAppend(timestamp, key, value, headers, cb)) {
      return last.isFull ? APPENDED_BATCH_FULL : APPENDED;
    }
    const capacity = this.batchCapacityFor(key, value, headers);
    if (!this.pool.tryReserve(capacity)) return NO_MEMORY;
    const batch = new ProducerBatch(
      topic,
      partition,
      capacity,
      now,
      this.pool.allocate(Math.max(capacity, BATCH_HEADER_SIZE + 64)),
    );
    batch.tryAppend(timestamp, key, value, headers, cb);
    q.batches.push(batch);
    this.pendingBatches++;
    // The previous open batch (if any) could not take this record: it is full from now on.
    if (last !== undefined && last.builder !== null) return APPENDED_BATCH_FULL;
    return batch.isFull ? APPENDED_BATCH_FULL : APPENDED_NEW_BATCH;
  }

  /** Releases a completed batch's memory. */
  release(batch: ProducerBatch): void {
    if (this.recycleBuffers && !batch.inFlight) this.pool.recycle(batch.buffer);
    this.pool.release(batch.reserved);
    this.pendingBatches--;
  }
}
