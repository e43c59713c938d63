// The producer: serialize → partition → append to the accumulator; the sender does the rest.
//
// send() appends synchronously when the topic's metadata is known and buffer.memory has room
// (the common case: no await, no timer, no allocation beyond the record's bytes). Otherwise the
// record waits in a FIFO — so later records never overtake it — until metadata arrives or
// memory is released, for at most max.block.ms, then fails with a typed error. The waiting
// records are themselves bounded by buffer.memory: past that, send() fails at once, so memory
// cannot grow without bound however fast the caller produces.
import { initProducerIdApi } from '../../protocol/messages/generated/init-producer-id.js';
import { produceApi } from '../../protocol/messages/generated/produce.js';
import { BrokerPool } from '../broker-pool.js';
import { COORDINATOR_TRANSACTION, Coordinators } from '../coordinator.js';
import {
  BufferExhaustedError,
  ClientClosedError,
  ConnectionError,
  KafkaClientError,
  RecordTooLargeError,
} from '../errors.js';
import { Metadata, type TopicMetadata } from '../metadata.js';
import { ProducerMetrics, type ProducerMetricsSnapshot } from '../metrics/producer-metrics.js';
import { APPENDED, NO_MEMORY, RecordAccumulator } from './accumulator.js';
import {
  BATCH_HEADER_SIZE,
  type EncodedHeaders,
  encodeHeaders,
  type RecordHeaders,
  recordSizeUpperBound,
} from './batch-builder.js';
import { ProducerIdentity } from './idempotence.js';
import { Partitioner } from './partitioner.js';
import {
  type Completion,
  type DeliveryCallback,
  type ProducerBatch,
  PromiseCompletion,
  type RecordMetadata,
  settleError,
} from './producer-batch.js';
import {
  type ProducerOptions,
  type ResolvedProducerOptions,
  resolveProducerOptions,
  type Serializer,
} from './producer-config.js';
import { Sender } from './sender.js';
import { type ConsumerGroupMetadata, TransactionManager, type TransactionOffset } from './transactions.js';

export interface ProducerRecord<K = Buffer | string | null, V = Buffer | string | null> {
  topic: string;
  key?: K | null;
  value: V | null;
  /** Explicit partition; otherwise the partitioner decides. */
  partition?: number;
  /** Create time in ms since the epoch; default now. */
  timestamp?: number;
  headers?: RecordHeaders;
}

interface Waiting {
  topic: string;
  partition: number | undefined;
  key: Buffer | null;
  value: Buffer | null;
  headers: EncodedHeaders;
  timestamp: number;
  cb: Completion | undefined;
  deadline: number;
  size: number;
}

/** The metadata-timeout error Java calls "Topic not present in metadata after max.block.ms". */
export class MetadataTimeoutError extends KafkaClientError {
  override name = 'MetadataTimeoutError';
  constructor(message: string) {
    super('METADATA_TIMEOUT', message, false);
  }
}

export class SerializationError extends KafkaClientError {
  override name = 'SerializationError';
  constructor(message: string, cause?: unknown) {
    super('SERIALIZATION', message, false, { cause });
  }
}

// The executor of every promise send() returns: a module-level function that hands the settle
// functions over synchronously, instead of a new closure per record.
let capturedResolve: ((md: RecordMetadata) => void) | undefined;
let capturedReject: ((err: Error) => void) | undefined;
function captureSettlers(resolve: (md: RecordMetadata) => void, reject: (err: Error) => void): void {
  capturedResolve = resolve;
  capturedReject = reject;
}

function defaultSerializer(v: unknown): Buffer | null {
  if (v === null || v === undefined) return null;
  if (Buffer.isBuffer(v)) return v;
  if (typeof v === 'string') return Buffer.from(v);
  if (v instanceof Uint8Array) return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
  throw new SerializationError(
    `cannot serialize a ${typeof v} without a serializer (use keySerializer/valueSerializer)`,
  );
}

export class Producer<K = Buffer | string | null, V = Buffer | string | null> {
  readonly options: ResolvedProducerOptions;
  readonly #pool: BrokerPool;
  readonly #metadata: Metadata;
  readonly #acc: RecordAccumulator;
  readonly #sender: Sender;
  readonly #partitioner: Partitioner;
  readonly #txn: TransactionManager | null;
  readonly #keySer: Serializer<K>;
  readonly #valueSer: Serializer<V>;
  #waiting: Waiting[] = [];
  #waitingHead = 0;
  #waitingBytes = 0;
  #waitLoopRunning = false;
  #closed = false;
  #forgottenError: Error | null = null;
  #bufferWaiters: (() => void)[] = [];
  readonly #metrics = new ProducerMetrics();

  constructor(options: ProducerOptions<K, V>) {
    const o = resolveProducerOptions(options as ProducerOptions);
    this.options = o;
    this.#keySer = options.keySerializer ?? (defaultSerializer as Serializer<K>);
    this.#valueSer = options.valueSerializer ?? (defaultSerializer as Serializer<V>);
    this.#pool = new BrokerPool(o);
    this.#metadata = new Metadata(this.#pool, { allowAutoTopicCreation: o.allowAutoTopicCreation });
    this.#acc = new RecordAccumulator(o.batchSize, o.bufferMemory, o.batchMaxSize);
    this.#acc.recycleBuffers = o.acks !== 0;
    this.#partitioner = new Partitioner(o.partitioner, o.batchSize, o.partitionerIgnoreKeys);
    const coordinators = new Coordinators(this.#pool);
    let identity: ProducerIdentity | null = null;
    if (o.idempotent) {
      const txnId = o.transactionalId;
      identity = new ProducerIdentity(
        async (req) => {
          const link =
            txnId === null
              ? await this.#pool.any()
              : await coordinators.find(COORDINATOR_TRANSACTION, txnId, o.requestTimeoutMs);
          const res = await link.request(initProducerIdApi, req);
          if (txnId !== null && (res.errorCode === 16 || res.errorCode === 15))
            coordinators.invalidate(COORDINATOR_TRANSACTION, txnId);
          return res;
        },
        txnId,
        o.transactionTimeoutMs,
        o.retryBackoffMs,
        Math.max(o.maxBlockMs, o.requestTimeoutMs),
      );
    }
    this.#sender = new Sender(
      this.#acc,
      {
        leaderFor: (t, p) => this.#metadata.leaderFor(t, p),
        requestMetadataUpdate: () => this.#metadata.requestUpdate(),
        produce: (node, req, expect, maxVersion) => {
          const link = this.#pool.link(node);
          if (link === undefined) return Promise.reject(new ConnectionError(`unknown broker ${node}`));
          const conn = link.currentConnection();
          const opts = {
            minVersion: 3,
            ...(maxVersion !== undefined ? { maxVersion } : {}),
            expectResponse: expect,
            timeoutMs: o.requestTimeoutMs + 5000,
          };
          // Connected: write synchronously so requests leave in drain order.
          const sent =
            conn !== null ? link.requestOn(conn, produceApi, req, opts) : link.request(produceApi, req, opts);
          if (!expect) return sent;
          const m = this.#metrics;
          const started = m.requestStarted();
          return sent.then(
            (res) => {
              m.requestDone(node, started, res?.throttleTimeMs);
              return res;
            },
            (err: unknown) => {
              m.requestFailed();
              throw err;
            },
          );
        },
        flush: (node) => this.#pool.link(node)?.currentConnection()?.flushWrites(),
        throttledUntil: (node) => (this.#pool.closed ? 0 : (this.#pool.link(node)?.throttledUntil ?? 0)),
      },
      {
        acks: o.acks,
        lingerMs: o.lingerMs,
        requestTimeoutMs: o.requestTimeoutMs,
        deliveryTimeoutMs: o.deliveryTimeoutMs,
        retries: o.retries,
        retryBackoffMs: o.retryBackoffMs,
        retryBackoffMaxMs: o.retryBackoffMaxMs,
        maxInFlight: o.maxInFlight,
        maxRequestSize: o.maxRequestSize,
        codec: o.codec,
        idempotent: o.idempotent,
        transactionalId: o.transactionalId,
      },
      identity,
    );
    this.#sender.onBatchDone = (b) => this.#onBatchDone(b);
    this.#txn = null;
    if (o.transactionalId !== null) {
      this.#txn = new TransactionManager(
        o.transactionalId,
        identity!,
        coordinators,
        {
          wakeSender: () => this.#sender.wakeup(),
          flush: () => this.flush(),
          abortUnsent: (err) => this.#sender.abortUnsent(err),
          transactionVersion: () => this.#pool.finalizedFeatures().levels.get('transaction.version') ?? 0,
        },
        o,
      );
      this.#sender.setTransactionGate(this.#txn);
      // The sender must not ask for a producer id on its own: initTransactions() does.
    }
    this.#metadata.onUpdate = () => this.#sender.wakeup();
  }

  /** Fetches cluster metadata (and the producer id) ahead of the first send. Optional. */
  async connect(): Promise<void> {
    await this.#metadata.refresh();
    if (this.#txn === null) this.#sender.wakeup();
  }

  /**
   * Sends a record. Without a callback: a promise of its metadata. With a callback: returns
   * true if the record was buffered at once, false if it waits for metadata or memory (call
   * `await producer.bufferAvailable()` before sending more, like a stream's 'drain').
   */
  send(record: ProducerRecord<K, V>): Promise<RecordMetadata>;
  send(record: ProducerRecord<K, V>, callback: DeliveryCallback): boolean;
  send(record: ProducerRecord<K, V>, callback?: DeliveryCallback): Promise<RecordMetadata> | boolean {
    if (callback !== undefined) return this.#send(record, callback);
    const promise = new Promise<RecordMetadata>(captureSettlers);
    const completion = new PromiseCompletion(capturedResolve!, capturedReject!);
    capturedResolve = capturedReject = undefined;
    this.#send(record, completion);
    return promise;
  }

  /** Sends without per-record notification; a failure is reported by the next flush(). */
  sendAndForget(record: ProducerRecord<K, V>): boolean {
    return this.#send(record, undefined);
  }

  /** Resolves when no record is waiting for metadata or memory. */
  bufferAvailable(): Promise<void> {
    if (this.#waitingCount() === 0) return Promise.resolve();
    return new Promise((r) => this.#bufferWaiters.push(r));
  }

  /** Waits until every record sent before the call is acknowledged or failed. */
  async flush(): Promise<void> {
    this.#sender.flushing++;
    try {
      this.#sender.wakeup();
      while (this.#waitingCount() > 0) await this.bufferAvailable();
      const targets: ProducerBatch[] = [...this.#sender.inFlightBatches];
      for (const q of this.#acc.queues()) targets.push(...q.batches);
      this.#sender.wakeup();
      for (const b of targets) await b.whenDone();
    } finally {
      this.#sender.flushing--;
    }
    const err = this.#forgottenError;
    if (err !== null) {
      this.#forgottenError = null;
      throw err;
    }
  }

  /**
   * Delivers what is buffered, then closes connections. With `timeoutMs`, records still
   * undelivered after that long fail with ClientClosedError.
   */
  async close(opts: { timeoutMs?: number } = {}): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const flush = this.flush().catch(() => {});
    if (opts.timeoutMs !== undefined) {
      let timer: NodeJS.Timeout | undefined;
      const timedOut = await Promise.race([
        flush.then(() => false),
        new Promise<boolean>((r) => {
          timer = setTimeout(() => r(true), opts.timeoutMs);
        }),
      ]);
      clearTimeout(timer);
      if (timedOut) {
        this.#failWaiting(new ClientClosedError('producer closed before the record was sent'));
        this.#sender.abortUnsent(new ClientClosedError('producer closed before the record was sent'));
      }
    } else await flush;
    this.#sender.stop();
    this.#metadata.close();
    this.#pool.close();
  }

  /**
   * The producer's metrics now, named after Kafka's Java producer (`record-send-rate`,
   * `batch-size-avg`, `request-latency-avg`, …; rates over 2 × 30 s windows). A plain object:
   * reading it is the only time rates and averages are computed.
   */
  metrics(): ProducerMetricsSnapshot {
    return this.#metrics.snapshot(this.#acc.pool);
  }

  /** Partitions of a topic (waits for metadata up to max.block.ms). */
  async partitionsFor(topic: string): Promise<TopicMetadata> {
    const t = await this.#metadata.waitForTopic(topic, Date.now() + this.options.maxBlockMs);
    if (t === null)
      throw new MetadataTimeoutError(
        `topic ${topic} not present in metadata after ${this.options.maxBlockMs} ms`,
      );
    return t;
  }

  // ---- transactions -----------------------------------------------------------------------

  async initTransactions(): Promise<void> {
    await this.#requireTxn().initTransactions();
  }

  beginTransaction(): void {
    this.#requireTxn().beginTransaction();
  }

  async sendOffsetsToTransaction(
    offsets: readonly TransactionOffset[],
    group: string | ConsumerGroupMetadata,
  ): Promise<void> {
    await this.#requireTxn().sendOffsetsToTransaction(offsets, group);
  }

  async commitTransaction(): Promise<void> {
    await this.#requireTxn().commitTransaction();
  }

  async abortTransaction(): Promise<void> {
    await this.#requireTxn().abortTransaction();
  }

  #requireTxn(): TransactionManager {
    if (this.#txn === null)
      throw new KafkaClientError('ILLEGAL_STATE', 'the producer has no transactionalId', false);
    return this.#txn;
  }

  // ---- internals ----------------------------------------------------------------------------

  #send(record: ProducerRecord<K, V>, cb: Completion | undefined): boolean {
    let w: Waiting;
    try {
      if (this.#closed) throw new ClientClosedError('producer is closed');
      const fatal = this.#sender.fatalError;
      if (fatal !== null) throw fatal;
      this.#txn?.checkCanAppend();
      const topic = record.topic;
      if (typeof topic !== 'string' || topic === '')
        throw new SerializationError('record.topic must be a non-empty string');
      const headers = encodeHeaders(record.headers);
      const key =
        record.key === undefined || record.key === null
          ? null
          : this.#keySer(record.key, topic, record.headers);
      const value = record.value === null ? null : this.#valueSer(record.value, topic, record.headers);
      const size = BATCH_HEADER_SIZE + recordSizeUpperBound(key, value, headers);
      if (size > this.options.maxRequestSize || size > this.options.bufferMemory) {
        throw new RecordTooLargeError(
          `record of ~${size} bytes exceeds ${size > this.options.maxRequestSize ? 'maxRequestSize' : 'bufferMemory'}`,
        );
      }
      if (record.partition !== undefined && (!Number.isInteger(record.partition) || record.partition < 0)) {
        throw new SerializationError(`invalid partition ${record.partition}`);
      }
      // One clock read per record: it is the default timestamp and the batch-creation time.
      const now = Date.now();
      const timestamp = record.timestamp ?? now;
      // Fast path: no record is waiting and metadata is known — append without a queue entry.
      if (this.#waitingCount() === 0) {
        const t = this.#metadata.topic(topic);
        if (t !== undefined && t.partitions.length > 0) {
          const r = this.#append(topic, record.partition, key, value, headers, timestamp, cb, size, t, now);
          if (r !== NO_MEMORY) return true;
        } else this.#metadata.track(topic);
      }
      w = { topic, partition: record.partition, key, value, headers, timestamp, cb, deadline: 0, size };
    } catch (err) {
      this.#report(cb, err as Error);
      return true;
    }
    if (this.#waitingBytes + w.size > this.options.bufferMemory) {
      this.#report(
        cb,
        new BufferExhaustedError('buffer.memory is exhausted and too many records are waiting for it'),
      );
      return true;
    }
    w.deadline = Date.now() + this.options.maxBlockMs;
    this.#waiting.push(w);
    this.#waitingBytes += w.size;
    if (!this.#waitLoopRunning) {
      this.#waitLoopRunning = true;
      void this.#drainWaiting();
    }
    return false;
  }

  #report(cb: Completion | undefined, err: Error): void {
    if (cb !== undefined) queueMicrotask(() => settleError(cb, err));
    else this.#forgottenError ??= err;
  }

  /** Appends a record whose topic metadata is known; -1 (NO_MEMORY) if the pool is full. */
  #append(
    topic: string,
    partition: number | undefined,
    key: Buffer | null,
    value: Buffer | null,
    headers: EncodedHeaders,
    timestamp: number,
    cb: Completion | undefined,
    size: number,
    t: TopicMetadata,
    now: number,
  ): number {
    const n = t.partitions.length;
    let p = partition;
    if (p === undefined) p = this.#partitioner.partition(topic, key, n, t.available, size);
    else if (p >= n) {
      this.#report(cb, new SerializationError(`partition ${p} does not exist: ${topic} has ${n} partitions`));
      return APPENDED;
    }
    if (p < 0 || p >= n || !Number.isInteger(p)) {
      this.#report(cb, new SerializationError(`partitioner returned invalid partition ${p} for ${topic}`));
      return APPENDED;
    }
    const r = this.#acc.append(topic, p, timestamp, key, value, headers, cb, now);
    if (r === NO_MEMORY) return r;
    if (this.#txn !== null) this.#txn.addPartition(topic, p);
    if (r !== APPENDED) this.#sender.wakeup();
    return r;
  }

  #waitingCount(): number {
    return this.#waiting.length - this.#waitingHead;
  }

  /** Moves waiting records into the accumulator in order, as metadata and memory allow. */
  async #drainWaiting(): Promise<void> {
    while (this.#waitingCount() > 0) {
      const w = this.#waiting[this.#waitingHead]!;
      try {
        let t = this.#metadata.topic(w.topic);
        if (t === undefined || t.partitions.length === 0) {
          t = (await this.#metadata.waitForTopic(w.topic, w.deadline)) ?? undefined;
          if (this.#waiting[this.#waitingHead] !== w) continue; // failed by close() meanwhile
          if (t === undefined) {
            throw new MetadataTimeoutError(
              `topic ${w.topic} not present in metadata after ${this.options.maxBlockMs} ms`,
            );
          }
        }
        while (
          this.#append(
            w.topic,
            w.partition,
            w.key,
            w.value,
            w.headers,
            w.timestamp,
            w.cb,
            w.size,
            t,
            Date.now(),
          ) === NO_MEMORY
        ) {
          const left = w.deadline - Date.now();
          if (left <= 0 || this.#sender.fatalError !== null) {
            throw (
              this.#sender.fatalError ??
              new BufferExhaustedError(
                `failed to allocate memory within max.block.ms (${this.options.maxBlockMs} ms)`,
              )
            );
          }
          this.#sender.wakeup();
          await this.#acc.pool.waitForRelease(w.deadline);
          if (this.#waiting[this.#waitingHead] !== w) break; // failed by close() meanwhile
          t = this.#metadata.topic(w.topic) ?? t;
        }
      } catch (err) {
        this.#report(w.cb, err as Error);
      }
      if (this.#waiting[this.#waitingHead] !== w) continue; // failed by close() meanwhile
      this.#waiting[this.#waitingHead++] = undefined as unknown as Waiting;
      this.#waitingBytes -= w.size;
      if (this.#waitingHead > 1024 && this.#waitingHead * 2 > this.#waiting.length) {
        this.#waiting = this.#waiting.slice(this.#waitingHead);
        this.#waitingHead = 0;
      }
    }
    // Cleared in the same turn as the emptiness check above: a send() that queues a record
    // after this point starts a new loop instead of waiting on this finished one.
    this.#waitLoopRunning = false;
    this.#waiting = [];
    this.#waitingHead = 0;
    this.#acc.pool.clearDeadline();
    for (const r of this.#bufferWaiters.splice(0)) r();
  }

  #failWaiting(err: Error): void {
    for (let i = this.#waitingHead; i < this.#waiting.length; i++) this.#report(this.#waiting[i]!.cb, err);
    this.#waiting = [];
    this.#waitingHead = 0;
    this.#waitingBytes = 0;
    this.#acc.pool.release(0); // the waiting loop wakes up, finds nothing and ends
    for (const r of this.#bufferWaiters.splice(0)) r();
  }

  #onBatchDone(b: ProducerBatch): void {
    this.#metrics.batchDone(b);
    if (b.error !== null && b.callbackCount < b.count) this.#forgottenError ??= b.error;
  }
}
