// Per-partition record accumulator and the buffer.memory bound.
//
// Each partition has a FIFO of batches; only the last one is open for appends. A batch's buffer
// is reserved from the memory pool when the batch is created (max(batch.size, record size)) and
// returned when the batch completes, so the bytes held by unsent records never exceed
// buffer.memory. The sender decides when batches are drained (full, linger expired, flush).
import { BATCH_HEADER_SIZE, type EncodedHeaders, recordSizeUpperBound } from './batch-builder.js';
import { type Completion, ProducerBatch } from './producer-batch.js';

const SLAB_BYTES = 1 << 20;

export class MemoryPool {
  readonly total: number;
  #available: number;
  #waiters: (() => void)[] = [];
  // Buffers of exactly batch.size are recycled (like Java's BufferPool free list): a busy
  // producer then reuses the same buffer.memory instead of leaving megabytes of dead
  // ArrayBuffers for the garbage collector, which is what made RSS balloon.
  readonly #poolable: number;
  #free: Buffer[] = [];
  // New pooled buffers are cut from 1 MiB slabs: one ArrayBuffer (one malloc, one external-memory
  // report to V8) per 64 batches of 16 KiB instead of one each — filling 32 MiB of batches used
  // to cost ~60 µs per batch buffer in allocation alone.
  #slab: Buffer | null = null;
  #slabUsed = 0;

  constructor(total: number, poolable = 0) {
    this.total = total;
    this.#available = total;
    this.#poolable = poolable;
  }

  /** A buffer for a new batch when `size` is the pooled size (recycled or cut from a slab). */
  allocate(size: number): Buffer | undefined {
    if (size !== this.#poolable) return undefined;
    const free = this.#free.pop();
    if (free !== undefined) return free;
    let slab = this.#slab;
    if (slab === null || this.#slabUsed + size > slab.length) {
      const perSlab = Math.max(1, Math.min(Math.floor(SLAB_BYTES / size), Math.floor(this.total / size)));
      slab = Buffer.allocUnsafeSlow(perSlab * size);
      this.#slab = slab;
      this.#slabUsed = 0;
    }
    const buf = slab.subarray(this.#slabUsed, this.#slabUsed + size);
    this.#slabUsed += size;
    return buf;
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
    this.#wakeAll();
  }

  #wakeAll(): void {
    const w = this.#waiters;
    if (w.length === 0) return;
    this.#waiters = [];
    for (const fn of w) fn();
  }

  // One timer for every waiter instead of one per wait: a producer blocked on memory waits
  // once per completed batch, and a fresh 60 s timer each time was a measurable share of the
  // per-batch cost. The timer wakes waiters at the earliest deadline it was armed for; they
  // re-check their own deadline and wait again if it has not passed.
  #timer: NodeJS.Timeout | null = null;
  #timerAt = Number.POSITIVE_INFINITY;

  /** Resolves at the next release, or at `deadline` (ms epoch) at the latest. */
  waitForRelease(deadline = Number.POSITIVE_INFINITY): Promise<void> {
    const p = new Promise<void>((resolve) => this.#waiters.push(resolve));
    if (deadline < this.#timerAt) {
      if (this.#timer !== null) clearTimeout(this.#timer);
      this.#timerAt = deadline;
      this.#timer = setTimeout(this.#onTimer, Math.max(0, deadline - Date.now()));
    }
    return p;
  }

  readonly #onTimer = (): void => {
    this.#timer = null;
    this.#timerAt = Number.POSITIVE_INFINITY;
    this.#wakeAll();
  };

  /** Cancels the deadline timer once nothing waits any more (it would keep the process alive). */
  clearDeadline(): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    this.#timerAt = Number.POSITIVE_INFINITY;
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
  /** The broker the in-flight batches went to: a new leader gets nothing until they return. */
  inFlightNode = -1;
  /**
   * Producer id and epoch that nextSequence/lastAckedSequence count under. After an epoch bump a
   * partition keeps them while batches sequenced under them are waiting or in flight (they may
   * already be in the log: a resend must keep its sequence), and moves to the new epoch at
   * sequence 0 after the last of them.
   */
  sequenceProducerId = -1n;
  sequenceEpoch = -1;
  /**
   * The broker's sequence state for us here is broken (OUT_OF_ORDER_SEQUENCE_NUMBER on the next
   * batch, UNKNOWN_PRODUCER_ID, a gap left by a batch given up): the next epoch bump renumbers
   * this partition's waiting batches, none of which can be in the log.
   */
  needsNewSequences = false;

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
  /** Every queue, in creation order (what the sender iterates on each drain). */
  readonly all: PartitionQueue[] = [];
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
      this.all.push(q);
    }
    return q;
  }

  queues(): readonly PartitionQueue[] {
    return this.all;
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
    cb: Completion | undefined,
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
