// One batch of records for one partition, from its first append to its acknowledgement.
// Completion state is run-length encoded rather than kept per record: a run starts where the
// callback (or the timestamp) differs from the previous record's. A loop sending with one shared
// callback (or none) within the same millisecond therefore stores nothing per record, and a
// promise per record costs one run entry, as a per-record array would.
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

/**
 * The settle functions of the promise `send()` returned. Kept as a plain pair instead of a
 * `(err, md) => …` closure around them: a producer with buffer.memory full of promise sends holds
 * hundreds of thousands of these, and what they retain is what every scavenge has to copy.
 */
export class PromiseCompletion {
  readonly resolve: (md: RecordMetadata) => void;
  readonly reject: (err: Error) => void;
  constructor(resolve: (md: RecordMetadata) => void, reject: (err: Error) => void) {
    this.resolve = resolve;
    this.reject = reject;
  }
}

/** How a record reports its outcome: a callback, or the promise send() returned. */
export type Completion = DeliveryCallback | PromiseCompletion;

export class ProducerBatch {
  readonly topic: string;
  readonly partition: number;
  readonly createdAt: number;
  /** Bytes of buffer.memory held until the batch completes (grows with the buffer). */
  reserved: number;
  /** Size at which the batch is ready to send (its first capacity: batch.size, or one record). */
  readonly #fullAt: number;
  builder: BatchBuilder | null;
  /** Header + (possibly compressed) records; set when the batch is closed. */
  payload: Buffer | null = null;
  count = 0;
  baseTimestamp = 0;
  maxTimestamp = -1;
  // Callback runs: records cbStart[k] .. cbStart[k+1]-1 report to cbFn[k] (undefined = none).
  // Run 0 (from record 0) is kept inline; the arrays exist only from a second run on, so a batch
  // sent with one shared callback carries no per-batch arrays either (fewer objects for every
  // scavenge to copy while buffer.memory is full of batches).
  #cb0: Completion | undefined = undefined;
  #cbStart: number[] | null = null;
  #cbFn: (Completion | undefined)[] | null = null;
  #lastCb: Completion | undefined = undefined;
  // Timestamp runs, same layout: the create time of records tsStart[k] .. tsStart[k+1]-1 (only
  // records with a callback are covered). Run 0 starts at the first such record.
  #ts0 = 0;
  #tsStart: number[] | null = null;
  #tsVal: number[] | null = null;
  #lastTs = Number.NaN;
  /** Records appended with a callback (or promise); the others report through flush(). */
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
  buffer: Buffer;

  constructor(topic: string, partition: number, capacity: number, now: number, buf?: Buffer) {
    this.topic = topic;
    this.partition = partition;
    this.createdAt = now;
    this.reserved = capacity;
    this.builder = new BatchBuilder(capacity, buf);
    this.buffer = this.builder.buf;
    this.#fullAt = this.builder.capacity;
  }

  /** Bytes appended so far (records area plus header). */
  get sizeInBytes(): number {
    return this.payload !== null ? this.payload.length : this.builder!.size;
  }

  /** No more appends (a piece of a split batch: its records and sequences are fixed). */
  #frozen = false;

  /** Takes records: not drained, not frozen. */
  get open(): boolean {
    return this.builder !== null && !this.#frozen;
  }

  /** Refuses further appends; the batch stays ready to be drained (and compressed then). */
  freeze(): void {
    this.#frozen = true;
  }

  /** Ready to send by size: it holds batch.size bytes (it may still grow until drained). */
  get isFull(): boolean {
    const b = this.builder;
    return b === null || this.#frozen || b.size >= this.#fullAt - 16;
  }

  /**
   * Moves the records into `buf` (larger), which `extraReserved` more bytes of buffer.memory now
   * back; returns the previous buffer (never sent, so free to reuse).
   */
  moveTo(buf: Buffer, extraReserved: number): Buffer {
    const old = this.buffer;
    this.builder!.moveTo(buf);
    this.buffer = buf;
    this.reserved += extraReserved;
    return old;
  }

  tryAppend(
    timestamp: number,
    key: Buffer | null,
    value: Buffer | null,
    headers: Parameters<BatchBuilder['tryAppend']>[3],
    cb: Completion | undefined,
  ): boolean {
    const b = this.builder;
    if (b === null || this.#frozen || !b.tryAppend(timestamp, key, value, headers)) return false;
    const i = this.count;
    if (i === 0) {
      this.#cb0 = cb;
      this.#lastCb = cb;
    } else if (cb !== this.#lastCb) {
      if (this.#cbStart === null) {
        this.#cbStart = [0, i];
        this.#cbFn = [this.#cb0, cb];
      } else {
        this.#cbStart.push(i);
        this.#cbFn!.push(cb);
      }
      this.#lastCb = cb;
    }
    if (cb !== undefined) {
      if (this.callbackCount === 0) {
        this.#ts0 = timestamp;
        this.#lastTs = timestamp;
      } else if (timestamp !== this.#lastTs) {
        if (this.#tsStart === null) {
          this.#tsStart = [0, i];
          this.#tsVal = [this.#ts0, timestamp];
        } else {
          this.#tsStart.push(i);
          this.#tsVal!.push(timestamp);
        }
        this.#lastTs = timestamp;
      }
      this.callbackCount++;
    }
    this.count = i + 1;
    return true;
  }

  /** Freezes the batch; compresses its records with `codec` (0 = none). */
  async close(codec: number): Promise<void> {
    if (this.payload !== null) return;
    const b = this.builder!;
    this.builder = null;
    this.baseTimestamp = b.baseTimestamp;
    this.maxTimestamp = b.maxTimestamp;
    this.uncompressedBytes = b.size;
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
    this.uncompressedBytes = b.size;
    this.payload = b.buf.subarray(0, b.size);
  }

  codec = 0;
  /** Header + records before compression; set when the batch is closed (metrics). */
  uncompressedBytes = 0;

  /** Writes header fields and CRC; called at every (re)send since sequences/epochs may change. */
  seal(o: SealOptions): Buffer {
    const p = this.payload!;
    sealBatch(p, this.count, this.codec, this.baseTimestamp, this.maxTimestamp, o);
    return p;
  }

  /** Each record's completion, in record order (the rare split path; the hot paths use runs). */
  completionList(): (Completion | undefined)[] {
    const out: (Completion | undefined)[] = new Array(this.count);
    const starts = this.#cbStart;
    const runs = starts === null ? 1 : starts.length;
    for (let run = 0; run < runs; run++) {
      const cb = run === 0 ? this.#cb0 : this.#cbFn![run];
      const end = run + 1 < runs ? starts![run + 1]! : this.count;
      for (let i = run === 0 ? 0 : starts![run]!; i < end; i++) out[i] = cb;
    }
    return out;
  }

  /** The batch was split into `pieces` (which carry its records now): done when they all are. */
  supersede(pieces: readonly ProducerBatch[]): void {
    void Promise.all(pieces.map((p) => p.whenDone())).then(() => this.#settled());
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
    if (this.callbackCount === 0) return;
    const appendTime = logAppendTime >= 0n ? Number(logAppendTime) : -1;
    // One BigInt per record instead of two when the offsets are safe integers (always, in practice).
    const base = Number(baseOffset);
    const small = baseOffset >= 0n && Number.isSafeInteger(base + this.count);
    const { topic, partition, count } = this;
    const cbStart = this.#cbStart;
    const cbFn = this.#cbFn;
    const runs = cbStart === null ? 1 : cbStart.length;
    const tsStart = this.#tsStart;
    const tsVal = this.#tsVal;
    const tsRuns = tsStart === null ? 1 : tsStart.length;
    let ts = 0; // index of the timestamp run of record i
    let timestampOfRun = this.#ts0;
    for (let run = 0; run < runs; run++) {
      const cb = run === 0 ? this.#cb0 : cbFn![run];
      if (cb === undefined) continue; // timestamp runs cover only records with callbacks
      const end = run + 1 < runs ? cbStart![run + 1]! : count;
      for (let i = run === 0 ? 0 : cbStart![run]!; i < end; i++) {
        while (ts + 1 < tsRuns && tsStart![ts + 1]! <= i) timestampOfRun = tsVal![++ts]!;
        const offset = small ? BigInt(base + i) : baseOffset < 0n ? -1n : baseOffset + BigInt(i);
        const timestamp = appendTime >= 0 ? appendTime : timestampOfRun;
        const md: RecordMetadata = { topic, partition, offset, timestamp };
        if (typeof cb === 'function') invoke(cb, null, md);
        else cb.resolve(md);
      }
    }
  }

  fail(err: Error): void {
    if (this.done) return;
    this.error = err;
    this.#settled();
    const cbStart = this.#cbStart;
    const runs = cbStart === null ? 1 : cbStart.length;
    for (let run = 0; run < runs; run++) {
      const cb = run === 0 ? this.#cb0 : this.#cbFn![run];
      if (cb === undefined) continue;
      const end = run + 1 < runs ? cbStart![run + 1]! : this.count;
      for (let i = run === 0 ? 0 : cbStart![run]!; i < end; i++) settleError(cb, err);
    }
  }
}

/** Reports a failure to a callback or a promise. */
export function settleError(c: Completion, err: Error): void {
  if (typeof c === 'function') invoke(c, err, null);
  else c.reject(err);
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
