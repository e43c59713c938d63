// One batch of records for one partition, from its first append to its acknowledgement.
// Per-record state is kept in two parallel arrays (callback, timestamp) rather than one object
// per record, and only records sent with a callback or promise pay for an entry.
import { compress } from '../../protocol/compression/index.js';
import { BATCH_HEADER_SIZE, BatchBuilder, type SealOptions, sealBatch } from './batch-builder.js';

export interface RecordMetadata {
  topic: string;
  partition: number;
  /** Offset assigned by the leader; -1n with acks=0. */
  offset: bigint;
  /** The record's timestamp, or the broker's append time for LogAppendTime topics. */
  timestamp: number;
}

export type DeliveryCallback = (err: Error | null, metadata: RecordMetadata | null) => void;

export class ProducerBatch {
  readonly topic: string;
  readonly partition: number;
  readonly createdAt: number;
  /** Bytes of buffer.memory held until the batch completes. */
  readonly reserved: number;
  builder: BatchBuilder | null;
  /** Header + (possibly compressed) records; set when the batch is closed. */
  payload: Buffer | null = null;
  count = 0;
  baseTimestamp = 0;
  maxTimestamp = -1;
  // Sparse per-record completion: index i of `callbacks` belongs to record i.
  callbacks: (DeliveryCallback | undefined)[] = [];
  timestamps: number[] = [];
  hasCallbacks = false;
  callbackCount = 0;
  /** Set when the batch failed. */
  error: Error | null = null;
  #doneWaiters: (() => void)[] | null = null;
  attempts = 0;
  retryAt = 0;
  inFlight = false;
  done = false;
  /** Idempotence: assigned when first drained, kept across retries, reset by an epoch bump. */
  baseSequence = -1;
  producerId = -1n;
  producerEpoch = -1;

  /** The buffer records were encoded into (returned to the pool when the batch completes). */
  readonly buffer: Buffer;

  constructor(topic: string, partition: number, capacity: number, now: number, buf?: Buffer) {
    this.topic = topic;
    this.partition = partition;
    this.createdAt = now;
    this.reserved = capacity;
    this.builder = new BatchBuilder(capacity, buf);
    this.buffer = this.builder.buf;
  }

  /** Bytes appended so far (records area plus header). */
  get sizeInBytes(): number {
    return this.payload !== null ? this.payload.length : this.builder!.size;
  }

  get isFull(): boolean {
    const b = this.builder;
    return b === null || b.size >= b.capacity - 16;
  }

  tryAppend(
    timestamp: number,
    key: Buffer | null,
    value: Buffer | null,
    headers: Parameters<BatchBuilder['tryAppend']>[3],
    cb: DeliveryCallback | undefined,
  ): boolean {
    const b = this.builder;
    if (b === null || !b.tryAppend(timestamp, key, value, headers)) return false;
    if (cb !== undefined) {
      // Fill the gap left by earlier fire-and-forget records so indexes stay aligned.
      while (this.callbacks.length < this.count) {
        this.callbacks.push(undefined);
        this.timestamps.push(0);
      }
      this.callbacks.push(cb);
      this.timestamps.push(timestamp);
      this.hasCallbacks = true;
      this.callbackCount++;
    }
    this.count++;
    return true;
  }

  /** Freezes the batch; compresses its records with `codec` (0 = none). */
  async close(codec: number): Promise<void> {
    if (this.payload !== null) return;
    const b = this.builder!;
    this.builder = null;
    this.baseTimestamp = b.baseTimestamp;
    this.maxTimestamp = b.maxTimestamp;
    if (codec === 0) {
      this.payload = b.buf.subarray(0, b.size);
      return;
    }
    const compressed = await compress(codec, b.records());
    const out = Buffer.allocUnsafe(BATCH_HEADER_SIZE + compressed.length);
    compressed.copy(out, BATCH_HEADER_SIZE);
    this.payload = out;
    this.codec = codec;
  }

  /** Synchronous close for uncompressed batches (the hot path). */
  closeUncompressed(): void {
    if (this.payload !== null) return;
    const b = this.builder!;
    this.builder = null;
    this.baseTimestamp = b.baseTimestamp;
    this.maxTimestamp = b.maxTimestamp;
    this.payload = b.buf.subarray(0, b.size);
  }

  codec = 0;

  /** Writes header fields and CRC; called at every (re)send since sequences/epochs may change. */
  seal(o: SealOptions): Buffer {
    const p = this.payload!;
    sealBatch(p, this.count, this.codec, this.baseTimestamp, this.maxTimestamp, o);
    return p;
  }

  /** Resolves when the batch is acknowledged or failed (used by flush()). */
  whenDone(): Promise<void> {
    if (this.done) return Promise.resolve();
    return new Promise((r) => {
      this.#doneWaiters ??= [];
      this.#doneWaiters.push(r);
    });
  }

  #settled(): void {
    this.done = true;
    const w = this.#doneWaiters;
    if (w !== null) for (const r of w) r();
  }

  complete(baseOffset: bigint, logAppendTime: bigint): void {
    if (this.done) return;
    this.#settled();
    if (!this.hasCallbacks) return;
    const appendTime = logAppendTime >= 0n ? Number(logAppendTime) : -1;
    const cbs = this.callbacks;
    for (let i = 0; i < cbs.length; i++) {
      const cb = cbs[i];
      if (cb === undefined) continue;
      const offset = baseOffset < 0n ? -1n : baseOffset + BigInt(i);
      const timestamp = appendTime >= 0 ? appendTime : this.timestamps[i]!;
      invoke(cb, null, { topic: this.topic, partition: this.partition, offset, timestamp });
    }
  }

  fail(err: Error): void {
    if (this.done) return;
    this.error = err;
    this.#settled();
    for (const cb of this.callbacks) if (cb !== undefined) invoke(cb, err, null);
  }
}

/** A throwing user callback must not break delivery of the other records: rethrow it later. */
function invoke(cb: DeliveryCallback, err: Error | null, md: RecordMetadata | null): void {
  try {
    cb(err, md);
  } catch (e) {
    queueMicrotask(() => {
      throw e;
    });
  }
}
