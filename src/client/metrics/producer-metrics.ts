// producer.metrics(): Kafka's `producer-metrics` (and `producer-node-metrics`) for our producer.
//
// Fed once per completed batch (sends, errors, retries, sizes, compression) and once per Produce
// request (latency, throttle, in flight); nothing per record. Records count as sent when their
// batch completes after at least one Produce request (delivered or failed) — so the rate trails
// the wire by one round trip; records failed before any request (expired in the queue, aborted)
// count only as errors. Request latency is that of Produce requests, from the write to the
// response (acks=0: not measured).
import { BATCH_HEADER_SIZE } from '../producer/batch-builder.js';
import type { ProducerBatch } from '../producer/producer-batch.js';
import { monotonicMs, type NodeRequestMetrics, RequestLatency, SampledStat } from './client-metrics.js';

/** A snapshot of the producer's metrics; names as in Kafka's Java producer. */
export interface ProducerMetricsSnapshot {
  /** Records sent (in batches that got at least one Produce request), ever. */
  'record-send-total': number;
  /** Records sent per second over the window. */
  'record-send-rate': number;
  'record-error-total': number;
  'record-error-rate': number;
  /** Record resends (a batch of n records retried twice counts 2n). */
  'record-retry-total': number;
  'record-retry-rate': number;
  /** Average uncompressed record size in bytes (its share of the batch's records area). */
  'record-size-avg': number;
  /** Bytes of a batch as sent (header + records, compressed if so): average and largest. */
  'batch-size-avg': number;
  'batch-size-max': number;
  /** Sent size / uncompressed size of a batch (1 without compression). */
  'compression-rate-avg': number;
  /** Average records per batch. */
  'records-per-batch-avg': number;
  /** Produce request latency in ms: average and largest over the window, every broker. */
  'request-latency-avg': number;
  'request-latency-max': number;
  'request-total': number;
  'request-rate': number;
  'requests-in-flight': number;
  /** throttle_time_ms of Produce responses (KIP-219). */
  'produce-throttle-time-avg': number;
  'produce-throttle-time-max': number;
  /** buffer.memory not held by unsent batches, and buffer.memory itself. */
  'buffer-available-bytes': number;
  'buffer-total-bytes': number;
  /** Per broker, keyed `node-<id>`: Produce request counts and latency. */
  nodes: Record<string, NodeRequestMetrics>;
}

export class ProducerMetrics {
  readonly #sent = new SampledStat();
  readonly #errors = new SampledStat();
  readonly #retries = new SampledStat();
  readonly #recordSize = new SampledStat();
  readonly #batchSize = new SampledStat();
  readonly #compression = new SampledStat();
  readonly #perBatch = new SampledStat();
  readonly #latency = new RequestLatency();
  readonly #throttle = new SampledStat();
  requestsInFlight = 0;

  /** A batch completed (acknowledged or failed): the sender's onBatchDone. */
  batchDone(b: ProducerBatch): void {
    const now = Date.now();
    const n = b.count;
    if (b.attempts > 0) {
      this.#sent.recordMany(n, n, now);
      const sent = b.payload?.length ?? b.sizeInBytes;
      this.#batchSize.record(sent, now);
      this.#perBatch.record(n, now);
      const raw = b.uncompressedBytes;
      if (raw > 0) {
        this.#compression.record(sent / raw, now);
        if (n > 0) this.#recordSize.recordMany(raw - BATCH_HEADER_SIZE, n, now);
      }
      if (b.attempts > 1) this.#retries.recordMany(n * (b.attempts - 1), n * (b.attempts - 1), now);
    }
    if (b.error !== null) this.#errors.recordMany(n, n, now);
  }

  /** Call when a Produce request is written; pass the result to requestDone/requestFailed. */
  requestStarted(): number {
    this.requestsInFlight++;
    return monotonicMs();
  }

  requestDone(node: number, startedAt: number, throttleTimeMs: number | undefined): void {
    this.requestsInFlight--;
    const now = Date.now();
    this.#latency.record(node, monotonicMs() - startedAt, now);
    if (throttleTimeMs !== undefined) this.#throttle.record(throttleTimeMs, now);
  }

  requestFailed(): void {
    this.requestsInFlight--;
  }

  snapshot(buffer: { available: number; total: number }): ProducerMetricsSnapshot {
    const now = Date.now();
    const lat = this.#latency.all;
    return {
      'record-send-total': this.#sent.total,
      'record-send-rate': this.#sent.rate(now),
      'record-error-total': this.#errors.total,
      'record-error-rate': this.#errors.rate(now),
      'record-retry-total': this.#retries.total,
      'record-retry-rate': this.#retries.rate(now),
      'record-size-avg': this.#recordSize.avg(now),
      'batch-size-avg': this.#batchSize.avg(now),
      'batch-size-max': this.#batchSize.max(now),
      'compression-rate-avg': this.#compression.avg(now),
      'records-per-batch-avg': this.#perBatch.avg(now),
      'request-latency-avg': lat.avg(now),
      'request-latency-max': lat.max(now),
      'request-total': lat.totalCount,
      'request-rate': lat.countRate(now),
      'requests-in-flight': this.requestsInFlight,
      'produce-throttle-time-avg': this.#throttle.avg(now),
      'produce-throttle-time-max': this.#throttle.max(now),
      'buffer-available-bytes': buffer.available,
      'buffer-total-bytes': buffer.total,
      nodes: this.#latency.nodes(now),
    };
  }
}
