// Drains ready batches into one Produce request per broker and handles the responses.
//
// A partition's first batch is ready when it is full, when another batch queued behind it, when
// linger.ms passed since it was created, or while flush()/close() wait. Per broker at most
// max.in.flight.requests.per.connection Produce requests are outstanding; each carries at most
// one batch per partition (Produce v3+ rule) and at most max.request.size bytes.
//
// Ordering under retries: a batch that must be retried goes back to the front of its partition
// queue (in sequence order) and the partition stops draining until all of its in-flight batches
// have returned; then the retried batches are resent in their original order with their
// original sequences, so the broker deduplicates anything it already appended. A partition's
// batches go to one broker at a time: after a leader change nothing is sent to the new leader
// until what went to the old one has returned (and is requeued in order, if it failed there).
//
// Epoch bumps (KIP-360, idempotent producers): only the partitions whose sequences the broker
// rejected (`needsNewSequences`) are renumbered; every other partition finishes its batches
// that already carry a sequence under the old epoch (a resend after a leader change may be in
// the new leader's log already, and only the same producer id, epoch and sequence let the
// broker recognise it), then continues under the new epoch from sequence 0.
import { backoffMs } from '../../net/backoff.js';
import { ErrorCode, isRetriable } from '../../protocol/errors.js';
import type { ProduceRequest, ProduceResponse } from '../../protocol/messages/generated/produce.js';
import {
  ClientClosedError,
  DeliveryTimeoutError,
  FatalProducerError,
  KafkaClientError,
  KafkaResponseError,
} from '../errors.js';
import type { PartitionQueue, RecordAccumulator } from './accumulator.js';
import { incrementSequence, type ProducerIdentity, sequenceAfter } from './idempotence.js';
import type { ProducerBatch } from './producer-batch.js';
import type { SenderCluster, SenderOptions, TransactionGate } from './sender-options.js';

export type { SenderCluster, SenderOptions, TransactionGate } from './sender-options.js';

/** Errors that mean our view of the partition's leader is stale. */
const METADATA_ERRORS = new Set<number>([
  ErrorCode.NOT_LEADER_OR_FOLLOWER,
  ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
  ErrorCode.LEADER_NOT_AVAILABLE,
  ErrorCode.FENCED_LEADER_EPOCH,
  ErrorCode.UNKNOWN_LEADER_EPOCH,
  ErrorCode.NOT_ENOUGH_REPLICAS,
  ErrorCode.KAFKA_STORAGE_ERROR,
]);

const SEQUENCE_ERRORS = new Set<number>([
  ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER,
  ErrorCode.UNKNOWN_PRODUCER_ID,
  ErrorCode.INVALID_PRODUCER_ID_MAPPING,
]);

type PartitionResult = ProduceResponse['responses'][number]['partitionResponses'][number];

function findResult(res: ProduceResponse, topic: string, partition: number): PartitionResult | undefined {
  for (const t of res.responses) {
    if (t.name !== topic) continue;
    for (const p of t.partitionResponses) if (p.index === partition) return p;
  }
  return undefined;
}

export class Sender {
  readonly #acc: RecordAccumulator;
  readonly #cluster: SenderCluster;
  readonly #o: SenderOptions;
  readonly #identity: ProducerIdentity | null;
  #txn: TransactionGate | null = null;
  #inflightPerNode = new Map<number, number>();
  #inflight = new Set<ProducerBatch>();
  #drainIndex = new Map<number, number>();
  #scheduled = false;
  #timer: NodeJS.Timeout | null = null;
  #timerAt = 0;
  #chain = new Map<number, Promise<void>>();
  /** flush() and close() make every batch ready regardless of linger. */
  flushing = 0;
  #bumpRequested = false;
  #identityBusy = false;
  #fatal: Error | null = null;
  #stopped = false;
  /** Called when a batch completes (delivered or failed) — the producer wakes waiters. */
  onBatchDone: (b: ProducerBatch) => void = () => {};
  onFatal: (err: Error) => void = () => {};

  constructor(
    acc: RecordAccumulator,
    cluster: SenderCluster,
    o: SenderOptions,
    identity: ProducerIdentity | null,
  ) {
    this.#acc = acc;
    this.#cluster = cluster;
    this.#o = o;
    this.#identity = identity;
  }

  setTransactionGate(t: TransactionGate): void {
    this.#txn = t;
  }

  get fatalError(): Error | null {
    return this.#fatal;
  }

  get inFlightBatches(): ReadonlySet<ProducerBatch> {
    return this.#inflight;
  }

  /**
   * Requests a run of the drain loop once the current synchronous work is done. A microtask, not
   * setImmediate: when a response frees a slot, the next request then leaves before the
   * producer's caller resumes appending (with buffer.memory full, full batches are waiting),
   * instead of after it and after the next I/O poll. Appends in one synchronous burst still
   * share one run.
   */
  wakeup(): void {
    if (this.#scheduled || this.#stopped) return;
    this.#scheduled = true;
    queueMicrotask(this.#runScheduled);
  }

  readonly #runScheduled = (): void => {
    this.#scheduled = false;
    this.run();
  };

  /** Asks for an epoch bump once in-flight requests have returned (idempotent producers). */
  requestEpochBump(): void {
    if (this.#identity !== null && this.#o.transactionalId === null) this.#bumpRequested = true;
  }

  stop(): void {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
  }

  /** Fails every batch not in flight (abortTransaction, close with timeout, fatal errors). */
  abortUnsent(err: Error): void {
    for (const q of this.#acc.queues()) {
      const keep: ProducerBatch[] = [];
      for (const b of q.batches) {
        if (b.inFlight) keep.push(b);
        else this.#finish(b, err);
      }
      q.batches = keep;
    }
  }

  run(): void {
    if (this.#stopped) return;
    const now = Date.now();
    if (this.#fatal !== null) return;
    if (this.#identity !== null && !this.#prepareIdentity()) return;
    let nextWake = Number.POSITIVE_INFINITY;
    let unknownLeader = false;
    const perNode = new Map<number, PartitionQueue[]>();
    for (const q of this.#acc.queues()) {
      if (q.batches.length === 0) continue;
      this.#expire(q, now);
      if (q.batches.length === 0) continue;
      const leader = this.#cluster.leaderFor(q.topic, q.partition);
      if (leader === undefined) {
        unknownLeader = true;
        continue;
      }
      let list = perNode.get(leader);
      if (list === undefined) {
        list = [];
        perNode.set(leader, list);
      }
      list.push(q);
    }
    if (unknownLeader) this.#cluster.requestMetadataUpdate();
    for (const [node, queues] of perNode) {
      const throttledUntil = this.#cluster.throttledUntil?.(node) ?? 0;
      if (throttledUntil > now) {
        if (throttledUntil < nextWake) nextWake = throttledUntil;
        continue;
      }
      let sent = false;
      while ((this.#inflightPerNode.get(node) ?? 0) < this.#o.maxInFlight) {
        const batches = this.#collect(node, queues, now);
        if (batches.length === 0) break;
        this.#send(node, batches);
        sent = true;
      }
      if (sent) this.#cluster.flush?.(node);
      for (const q of queues) {
        const w = this.#wakeTime(q, now);
        if (w < nextWake) nextWake = w;
      }
    }
    this.#arm(nextWake, now);
  }

  /** Returns false while the producer id is being obtained or bumped. */
  #prepareIdentity(): boolean {
    const id = this.#identity!;
    if (this.#identityBusy) return false;
    const bump = this.#bumpRequested && id.valid;
    if (id.valid && !bump) return true;
    if (bump && this.#inflight.size > 0) return false; // wait for in-flight batches to return
    this.#identityBusy = true;
    this.#bumpRequested = false;
    id.init(bump).then(
      () => {
        this.#identityBusy = false;
        // Nothing is in flight during a bump. Partitions with broken sequences start over under
        // the new epoch; the others switch lazily (#collect), after their sequenced batches.
        for (const q of this.#acc.queues()) {
          if (!q.needsNewSequences) continue;
          q.needsNewSequences = false;
          q.retrying = false;
          for (const b of q.batches) b.baseSequence = -1;
        }
        this.wakeup();
      },
      (err: Error) => {
        this.#identityBusy = false;
        this.#setFatal(err);
      },
    );
    return false;
  }

  #setFatal(err: Error): void {
    if (this.#fatal !== null) return;
    this.#fatal =
      err instanceof FatalProducerError
        ? err
        : new FatalProducerError((err as KafkaClientError).code ?? 'FATAL', err.message, err);
    this.abortUnsent(this.#fatal);
    this.onFatal(this.#fatal);
  }

  /** Can the first batch of q be drained now? */
  #sendable(q: PartitionQueue, now: number): boolean {
    const first = q.batches[0];
    if (first === undefined || first.inFlight) return false;
    if (q.retrying) {
      if (q.inFlight > 0) return false;
      q.retrying = false;
    }
    // A resend goes alone: if later batches were pipelined behind it and it failed again, they
    // could push it out of the broker's 5-batch deduplication window.
    if (q.resendInFlight > 0) return false;
    if (this.#o.idempotent && q.inFlight >= 5) return false;
    // A batch for the new epoch waits until the old epoch's batches of this partition returned:
    // sequence 0 of a new epoch must not overtake them.
    if (first.baseSequence < 0 && q.inFlight > 0 && !this.#sequencesCurrent(q)) return false;
    if (first.retryAt > now) return false;
    if (this.#txn !== null && !this.#txn.canSend(q.topic, q.partition)) return false;
    return (
      first.builder === null ||
      first.isFull ||
      q.batches.length > 1 ||
      this.flushing > 0 ||
      now - first.createdAt >= this.#o.lingerMs
    );
  }

  #sequencesCurrent(q: PartitionQueue): boolean {
    const id = this.#identity;
    return id === null || (q.sequenceProducerId === id.producerId && q.sequenceEpoch === id.epoch);
  }

  #wakeTime(q: PartitionQueue, now: number): number {
    const first = q.batches[0];
    if (first === undefined || first.inFlight) return Number.POSITIVE_INFINITY;
    if (first.retryAt > now) return first.retryAt;
    if (first.builder !== null && !first.isFull && q.batches.length === 1)
      return first.createdAt + this.#o.lingerMs;
    return Number.POSITIVE_INFINITY;
  }

  #collect(node: number, queues: PartitionQueue[], now: number): ProducerBatch[] {
    const out: ProducerBatch[] = [];
    let size = 0;
    const start = (this.#drainIndex.get(node) ?? 0) % queues.length;
    for (let i = 0; i < queues.length; i++) {
      const q = queues[(start + i) % queues.length]!;
      // Leader changed while batches were out: they return (and are requeued in order) first.
      if (q.inFlight > 0 && q.inFlightNode !== node) continue;
      if (!this.#sendable(q, now)) continue;
      const b = q.batches[0]!;
      if (out.length > 0 && size + b.sizeInBytes > this.#o.maxRequestSize) {
        this.#drainIndex.set(node, (start + i) % queues.length);
        return out;
      }
      q.batches.shift();
      q.inFlight++;
      q.inFlightNode = node;
      b.inFlight = true;
      b.attempts++;
      if (b.attempts > 1) q.resendInFlight++;
      if (this.#identity !== null && b.baseSequence < 0) {
        if (!this.#sequencesCurrent(q)) {
          q.sequenceProducerId = this.#identity.producerId;
          q.sequenceEpoch = this.#identity.epoch;
          q.nextSequence = 0;
          q.lastAckedSequence = -1;
        }
        b.baseSequence = q.nextSequence;
        b.producerId = this.#identity.producerId;
        b.producerEpoch = this.#identity.epoch;
        q.nextSequence = incrementSequence(q.nextSequence, b.count);
      }
      if (this.#o.codec === 0) b.closeUncompressed();
      size += b.sizeInBytes;
      out.push(b);
    }
    this.#drainIndex.set(node, start + 1);
    return out;
  }

  #send(node: number, batches: ProducerBatch[]): void {
    this.#inflightPerNode.set(node, (this.#inflightPerNode.get(node) ?? 0) + 1);
    for (const b of batches) this.#inflight.add(b);
    const build = (): ProduceRequest => {
      const byTopic = new Map<string, { index: number; records: Buffer | null }[]>();
      for (const b of batches) {
        const payload = b.seal({
          producerId: b.producerId,
          producerEpoch: b.producerEpoch,
          baseSequence: b.baseSequence,
          transactional: this.#o.transactionalId !== null,
        });
        let parts = byTopic.get(b.topic);
        if (parts === undefined) {
          parts = [];
          byTopic.set(b.topic, parts);
        }
        parts.push({ index: b.partition, records: payload });
      }
      return {
        transactionalId: this.#o.transactionalId,
        acks: this.#o.acks,
        timeoutMs: this.#o.requestTimeoutMs,
        topicData: [...byTopic].map(([name, partitionData]) => ({ name, partitionData })),
      };
    };
    const expect = this.#o.acks !== 0;
    const onOk = (res: ProduceResponse | undefined): void => this.#onResponse(node, batches, res);
    const onErr = (err: Error): void => this.#onRequestError(node, batches, err);
    const maxVersion = this.#txn?.produceMaxVersion?.();
    if (this.#o.codec === 0) {
      this.#cluster.produce(node, build(), expect, maxVersion).then(onOk, onErr);
      return;
    }
    // Compression is asynchronous: chain per broker so requests still leave in drain order.
    const codec = this.#o.codec;
    const prev = this.#chain.get(node) ?? Promise.resolve();
    const next = prev
      .then(() => Promise.all(batches.map((b) => b.close(codec))))
      .then(() => {
        this.#cluster.produce(node, build(), expect, maxVersion).then(onOk, onErr);
      }, onErr);
    this.#chain.set(node, next);
  }

  #onResponse(node: number, batches: ProducerBatch[], res: ProduceResponse | undefined): void {
    this.#decNode(node);
    // Few batches per request (one per partition of this broker): a scan beats building a map.
    let results: Map<string, PartitionResult> | null = null;
    if (res !== undefined && batches.length > 8) {
      results = new Map();
      for (const t of res.responses)
        for (const p of t.partitionResponses) results.set(`${p.index}:${t.name}`, p);
    }
    for (const b of batches) {
      const q = this.#acc.queue(b.topic, b.partition);
      this.#returned(q, b);
      if (res === undefined) {
        this.#complete(q, b, -1n, -1n);
        continue;
      }
      const r =
        results !== null ? results.get(`${b.partition}:${b.topic}`) : findResult(res, b.topic, b.partition);
      if (r === undefined) {
        this.#retryOrFail(
          q,
          b,
          new KafkaResponseError(ErrorCode.UNKNOWN_SERVER_ERROR, `no result for ${b.topic}-${b.partition}`),
        );
        continue;
      }
      if (r.errorCode === 0 || r.errorCode === ErrorCode.DUPLICATE_SEQUENCE_NUMBER) {
        this.#complete(q, b, r.baseOffset, r.logAppendTimeMs);
      } else this.#onPartitionError(q, b, r.errorCode, r.errorMessage);
    }
    this.wakeup();
  }

  #onRequestError(node: number, batches: ProducerBatch[], err: Error): void {
    this.#decNode(node);
    this.#cluster.requestMetadataUpdate();
    // While the producer runs, a closed link is one the broker pool dropped because metadata no
    // longer lists its broker (a leader that died): a lost connection, retried on the new leader.
    const lost = err instanceof ClientClosedError && !this.#stopped;
    for (const b of batches) {
      const q = this.#acc.queue(b.topic, b.partition);
      this.#returned(q, b);
      this.#retryOrFail(q, b, err, lost);
    }
    this.wakeup();
  }

  #decNode(node: number): void {
    this.#inflightPerNode.set(node, (this.#inflightPerNode.get(node) ?? 1) - 1);
  }

  #returned(q: PartitionQueue, b: ProducerBatch): void {
    q.inFlight--;
    if (b.attempts > 1) q.resendInFlight--;
    b.inFlight = false;
    this.#inflight.delete(b);
  }

  #onPartitionError(q: PartitionQueue, b: ProducerBatch, code: number, message: string | null): void {
    const err = new KafkaResponseError(code, `produce to ${b.topic}-${b.partition}`, message);
    const id = this.#identity;
    if (id !== null && SEQUENCE_ERRORS.has(code)) {
      if (this.#o.transactionalId !== null) {
        if (b.producerEpoch !== id.epoch || b.producerId !== id.producerId) this.#requeue(q, b);
        else this.#fail(q, b, err);
        return;
      }
      // The next batch to be acknowledged was rejected, or the broker lost our producer state:
      // this partition's sequences are broken and are renumbered under a bumped epoch. A later
      // batch rejected as out of order is only behind one that failed, and is retried as is.
      if (
        b.baseSequence === incrementSequence(q.lastAckedSequence, 1) ||
        code !== ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER
      ) {
        q.needsNewSequences = true;
        this.requestEpochBump();
      }
      this.#retryOrFail(q, b, err, true);
      return;
    }
    if (code === ErrorCode.INVALID_PRODUCER_EPOCH || code === ErrorCode.PRODUCER_FENCED) {
      if (id !== null && (b.producerEpoch !== id.epoch || b.producerId !== id.producerId)) {
        // An older epoch than the broker has seen here: resend it under a new epoch.
        if (this.#o.transactionalId === null) {
          q.needsNewSequences = true;
          this.requestEpochBump();
        }
        this.#requeue(q, b);
        return;
      }
      this.#fail(q, b, err);
      if (this.#o.transactionalId !== null)
        this.#setFatal(new FatalProducerError('PRODUCER_FENCED', err.message, err));
      else this.requestEpochBump();
      return;
    }
    if ((code === ErrorCode.MESSAGE_TOO_LARGE || code === ErrorCode.RECORD_LIST_TOO_LARGE) && b.count > 1) {
      // Split into smaller pieces, queued in its place (in reverse: each goes to the front).
      // RECORD_LIST_TOO_LARGE too (a batch above the topic's segment.bytes): Java's fixed-size
      // batches rarely meet it, batches grown to batch.max.size do.
      const pieces = this.#acc.split(b);
      for (let i = pieces.length - 1; i >= 0; i--) this.#requeue(q, pieces[i]!);
      return;
    }
    if (
      code === ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED ||
      code === ErrorCode.CLUSTER_AUTHORIZATION_FAILED
    ) {
      this.#fail(q, b, err);
      this.#setFatal(new FatalProducerError(err.code, err.message, err));
      return;
    }
    if (METADATA_ERRORS.has(code)) this.#cluster.requestMetadataUpdate();
    if (isRetriable(code)) this.#retryOrFail(q, b, err);
    else this.#fail(q, b, err);
  }

  #retryOrFail(q: PartitionQueue, b: ProducerBatch, err: Error, forced = false): void {
    const now = Date.now();
    const retriable = forced || (err instanceof KafkaClientError && err.retriable);
    if (retriable && b.attempts <= this.#o.retries && now < b.createdAt + this.#o.deliveryTimeoutMs) {
      b.retryAt = now + backoffMs(this.#o.retryBackoffMs, this.#o.retryBackoffMaxMs, b.attempts - 1);
      this.#requeue(q, b);
    } else if (retriable) {
      this.#fail(
        q,
        b,
        new DeliveryTimeoutError(
          `${b.count} record(s) for ${b.topic}-${b.partition} not delivered: ${err.message}`,
          err,
        ),
      );
    } else this.#fail(q, b, err);
  }

  /** Puts a batch back at the front of its queue, ordered by sequence among retried batches. */
  #requeue(q: PartitionQueue, b: ProducerBatch): void {
    let i = 0;
    while (i < q.batches.length) {
      const o = q.batches[i]!;
      if (o.baseSequence < 0 || b.baseSequence < 0 || o.baseSequence > b.baseSequence) break;
      i++;
    }
    q.batches.splice(i, 0, b);
    q.retrying = true;
  }

  #complete(q: PartitionQueue, b: ProducerBatch, baseOffset: bigint, logAppendTime: bigint): void {
    if (b.producerId === q.sequenceProducerId && b.producerEpoch === q.sequenceEpoch) {
      // A resent duplicate may be acknowledged after later batches: never move backwards.
      const last = incrementSequence(b.baseSequence, b.count - 1);
      if (q.lastAckedSequence < 0 || sequenceAfter(last, q.lastAckedSequence)) q.lastAckedSequence = last;
    }
    b.complete(baseOffset, logAppendTime);
    this.#acc.release(b);
    this.onBatchDone(b);
    if (this.#identity !== null) this.#completeImplied(q, b);
  }

  /**
   * The broker accepts sequence S only right after S-1, so once a batch is acknowledged every
   * earlier batch of the same epoch still waiting for a resend was appended too (its response was
   * lost). Complete them — offset unknown, as Java reports for duplicates — instead of resending.
   */
  #completeImplied(q: PartitionQueue, acked: ProducerBatch): void {
    while (q.batches.length > 0) {
      const f = q.batches[0]!;
      if (
        f.inFlight ||
        f.baseSequence < 0 ||
        f.producerEpoch !== acked.producerEpoch ||
        f.producerId !== acked.producerId
      )
        return;
      if (!sequenceAfter(acked.baseSequence, f.baseSequence)) return;
      q.batches.shift();
      f.complete(-1n, -1n);
      this.#acc.release(f);
      this.onBatchDone(f);
    }
  }

  #fail(q: PartitionQueue, b: ProducerBatch, err: Error): void {
    // A sent idempotent batch that is given up leaves a sequence gap: start a new epoch.
    if (this.#identity !== null && b.baseSequence >= 0 && this.#o.transactionalId === null) {
      q.needsNewSequences = true;
      this.requestEpochBump();
    }
    this.#finish(b, err);
    this.#txn?.onBatchFailed(err);
  }

  #finish(b: ProducerBatch, err: Error): void {
    b.fail(err);
    this.#acc.release(b);
    this.onBatchDone(b);
  }

  /** Fails queued batches older than delivery.timeout.ms (those in flight wait for their response). */
  #expire(q: PartitionQueue, now: number): void {
    while (q.batches.length > 0) {
      const b = q.batches[0]!;
      if (b.inFlight || now < b.createdAt + this.#o.deliveryTimeoutMs) return;
      q.batches.shift();
      this.#fail(
        q,
        b,
        new DeliveryTimeoutError(
          `${b.count} record(s) for ${b.topic}-${b.partition} expired after delivery.timeout.ms`,
        ),
      );
    }
  }

  #arm(at: number, now: number): void {
    if (at === Number.POSITIVE_INFINITY) return;
    if (this.#timer !== null && this.#timerAt <= at) return;
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timerAt = at;
    this.#timer = setTimeout(
      () => {
        this.#timer = null;
        this.run();
      },
      Math.max(0, at - now),
    );
  }
}
