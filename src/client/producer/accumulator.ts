// Per-partition record accumulator and the buffer.memory bound.
//
// Each partition has a FIFO of batches; only the last one is open for appends. A batch's buffer
// is reserved from the memory pool when the batch is created (max(batch.size, record size)) and
// returned when the batch completes, so the bytes held by unsent records never exceed
// buffer.memory. The sender decides when batches are drained (full, linger expired, flush).
//
// Expandable batches (batch.max.size, the idea of KIP-782): a batch that reached batch.size is
// ready, but until the sender drains it, it keeps taking records — its buffer doubles, the extra
// bytes reserved from the pool like a new batch's — up to batch.max.size. With one partition,
// 5 requests in flight and one batch per partition per request (Kafka's rules), 16 KiB batches
// cap the data in flight at 80 KiB per partition; a partition whose requests are all in flight
// now queues one large batch instead of many small ones, and each request carries more.
import { BATCH_HEADER_SIZE, type EncodedHeaders, recordSizeUpperBound } from './batch-builder.js';
import { splitBatch } from './batch-split.js';
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
  // Grown batch buffers (the pooled size × 2^k, and the largest size) are recycled the same way,
  // one free list per size; every free list together holds at most buffer.memory.
  readonly #largest: number;
  readonly #grown = new Map<number, Buffer[]>();
  #freeBytes = 0;
  // New pooled buffers are cut from 1 MiB slabs: one ArrayBuffer (one malloc, one external-memory
  // report to V8) per 64 batches of 16 KiB instead of one each — filling 32 MiB of batches used
  // to cost ~60 µs per batch buffer in allocation alone.
  #slab: Buffer | null = null;
  #slabUsed = 0;

  constructor(total: number, poolable = 0, largest = poolable) {
    this.total = total;
    this.#available = total;
    this.#poolable = poolable;
    this.#largest = Math.max(poolable, largest);
  }

  /** The size a batch of `size` bytes grows to next (doubling, at most the largest size). */
  grownSize(size: number): number {
    let next = this.#poolable > 0 ? this.#poolable * 2 : size * 2;
    while (next < size) next *= 2;
    return Math.min(next, this.#largest);
  }

  #isGrownSize(size: number): boolean {
    if (size <= this.#poolable || size > this.#largest) return false;
    if (size === this.#largest) return true;
    const ratio = size / this.#poolable;
    return Number.isInteger(ratio) && (ratio & (ratio - 1)) === 0;
  }

  /**
   * A buffer for a batch: the pooled size (recycled or cut from a slab), or a grown size
   * (recycled or new); undefined for any other size.
   */
  allocate(size: number): Buffer | undefined {
    if (size !== this.#poolable) {
      if (!this.#isGrownSize(size)) return undefined;
      const list = this.#grown.get(size);
      const reused = list?.pop();
      if (reused !== undefined) {
        this.#freeBytes -= size;
        return reused;
      }
      return Buffer.allocUnsafeSlow(size);
    }
    const free = this.#free.pop();
    if (free !== undefined) {
      this.#freeBytes -= size;
      return free;
    }
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
    const size = buf.length;
    if (this.#freeBytes + size > this.total) return;
    if (size === this.#poolable) this.#free.push(buf);
    else if (this.#isGrownSize(size)) {
      let list = this.#grown.get(size);
      if (list === undefined) {
        list = [];
        this.#grown.set(size, list);
      }
      list.push(buf);
    } else return;
    this.#freeBytes += size;
  }

  get available(): number {
    return this.#available;
  }

  tryReserve(n: number): boolean {
    if (n > this.#available) return false;
    this.#available -= n;
    return true;
  }

  /** Takes `n` bytes even past the limit (records already accounted for, moving to new batches). */
  forceReserve(n: number): void {
    this.#available -= n;
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
  /** batch.max.size: how far a batch not yet drained may grow (= batchSize: never). */
  readonly maxBatchSize: number;
  readonly pool: MemoryPool;
  #topics = new Map<string, PartitionQueue[]>();
  /** Every queue, in creation order (what the sender iterates on each drain). */
  readonly all: PartitionQueue[] = [];
  /** Number of records appended and not yet completed (for flush and close). */
  pendingBatches = 0;

  /** False with acks=0: a request's buffers may still be queued in the socket when it "completes". */
  recycleBuffers = true;

  constructor(batchSize: number, bufferMemory: number, maxBatchSize = batchSize) {
    this.batchSize = batchSize;
    const pooled = Math.max(batchSize, BATCH_HEADER_SIZE + 64);
    this.maxBatchSize = Math.max(pooled, maxBatchSize);
    this.pool = new MemoryPool(bufferMemory, pooled, this.maxBatchSize);
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
    if (last !== undefined && last.open) {
      if (last.tryAppend(timestamp, key, value, headers, cb))
        return last.isFull ? APPENDED_BATCH_FULL : APPENDED;
      if (this.#grow(last, key, value, headers) && last.tryAppend(timestamp, key, value, headers, cb))
        return APPENDED_BATCH_FULL;
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
    if (last !== undefined && last.open) return APPENDED_BATCH_FULL;
    return batch.isFull ? APPENDED_BATCH_FULL : APPENDED_NEW_BATCH;
  }

  /**
   * Gives a batch that is still open (not drained) a larger buffer for one more record, within
   * batch.max.size and only if the pool has the extra bytes now: otherwise the record starts a
   * new batch, which waits for memory as before.
   */
  #grow(b: ProducerBatch, key: Buffer | null, value: Buffer | null, headers: EncodedHeaders): boolean {
    const builder = b.builder!;
    if (builder.capacity >= this.maxBatchSize) return false;
    const need = builder.size + recordSizeUpperBound(key, value, headers);
    if (need > this.maxBatchSize) return false;
    const size = this.pool.grownSize(Math.max(need, builder.capacity + 1));
    const extra = size - b.reserved;
    if (extra > 0 && !this.pool.tryReserve(extra)) return false;
    const old = b.moveTo(this.pool.allocate(size) ?? Buffer.allocUnsafeSlow(size), Math.max(extra, 0));
    this.pool.recycle(old); // never sent: nothing else references it
    return true;
  }

  /**
   * Replaces a drained batch the broker refused as too large by batches of batch.size holding
   * its records (`batch-split.ts`); the caller queues them in its place. A batch no larger than
   * batch.size that was still refused (a topic limit below batch.size) is halved instead: each
   * split makes the largest piece smaller, so repeated refusals end at single records.
   */
  split(b: ProducerBatch): ProducerBatch[] {
    const target =
      b.uncompressedBytes > this.batchSize
        ? this.batchSize
        : Math.max(BATCH_HEADER_SIZE + 1, Math.floor(b.uncompressedBytes / 2));
    const pieces = splitBatch(b, target, (size) => this.pool.allocate(size));
    let reserved = 0;
    for (const p of pieces) reserved += p.reserved;
    // Reserved before b's bytes are released, so nothing else takes them in between.
    this.pool.forceReserve(reserved);
    this.pendingBatches += pieces.length;
    b.supersede(pieces);
    this.release(b);
    return pieces;
  }

  /** Releases a completed batch's memory. */
  release(batch: ProducerBatch): void {
    if (this.recycleBuffers && !batch.inFlight) this.pool.recycle(batch.buffer);
    this.pool.release(batch.reserved);
    this.pendingBatches--;
  }
}
