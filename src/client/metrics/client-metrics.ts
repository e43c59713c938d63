// The client's own metrics (producer.metrics(), consumer.metrics()): the building blocks.
//
// Hot paths only add to plain numbers on these objects — once per batch, request or poll, never
// per record, no timer, no allocation — and the snapshot derives rates, averages and maxima when
// someone asks. The client never depends on prom-client: a snapshot is a plain object named
// after Kafka's Java client metrics, which an application can hand to any metrics library.
//
// Windows are Kafka's defaults (metrics.num.samples = 2, metrics.sample.window.ms = 30000): a
// stat keeps two samples of 30 s; a sample older than 60 s no longer counts. As in Kafka's
// `Rate`, a rate divides by the time since the oldest live sample began, but by at least one
// full window (30 s): a rate read seconds after the first records is understated rather than
// spiking (Java clients report the same). Averages and maxima are NaN while the window holds
// nothing (Java reports NaN too; JSON.stringify writes null).

/** Kafka's metrics.sample.window.ms default. */
export const SAMPLE_WINDOW_MS = 30_000;
/** Kafka's metrics.num.samples default. */
export const SAMPLES = 2;

/** Sum, count and maximum over a sliding window of SAMPLES samples, plus lifetime totals. */
export class SampledStat {
  readonly #start: number[];
  readonly #sum: number[];
  readonly #count: number[];
  readonly #max: number[];
  #current = 0;
  /** Lifetime sum of the recorded values. */
  total = 0;
  /** Lifetime number of observations (records for recordMany). */
  totalCount = 0;

  constructor(
    readonly windowMs = SAMPLE_WINDOW_MS,
    readonly samples = SAMPLES,
  ) {
    this.#start = new Array<number>(samples).fill(Number.NEGATIVE_INFINITY);
    this.#sum = new Array<number>(samples).fill(0);
    this.#count = new Array<number>(samples).fill(0);
    this.#max = new Array<number>(samples).fill(Number.NaN);
  }

  /** One observation (a latency, a batch size): counts towards avg, max and rate. */
  record(value: number, now: number): void {
    const i = this.#sample(now);
    this.#sum[i]! += value;
    this.#count[i]!++;
    const m = this.#max[i]!;
    if (!(value <= m)) this.#max[i] = value; // NaN (empty sample) is replaced
    this.total += value;
    this.totalCount++;
  }

  /** `n` observations summing to `sum` at once (records of a batch): avg and rate, no max. */
  recordMany(sum: number, n: number, now: number): void {
    const i = this.#sample(now);
    this.#sum[i]! += sum;
    this.#count[i]! += n;
    this.total += sum;
    this.totalCount += n;
  }

  #sample(now: number): number {
    let i = this.#current;
    if (now - this.#start[i]! >= this.windowMs) {
      i = (i + 1) % this.samples;
      this.#current = i;
      this.#start[i] = now;
      this.#sum[i] = 0;
      this.#count[i] = 0;
      this.#max[i] = Number.NaN;
    }
    return i;
  }

  #live(i: number, now: number): boolean {
    return now - this.#start[i]! < this.samples * this.windowMs;
  }

  /** Sum of the values recorded in the window, per second (Kafka's Rate). */
  rate(now: number): number {
    let sum = 0;
    let oldest = now;
    for (let i = 0; i < this.samples; i++) {
      if (!this.#live(i, now)) continue;
      sum += this.#sum[i]!;
      if (this.#start[i]! < oldest) oldest = this.#start[i]!;
    }
    let elapsed = now - oldest;
    const fullWindows = Math.floor(elapsed / this.windowMs);
    const minFull = this.samples - 1;
    if (fullWindows < minFull) elapsed += (minFull - fullWindows) * this.windowMs;
    return elapsed > 0 ? (sum * 1000) / elapsed : 0;
  }

  /** Observations in the window per second (e.g. requests per second). */
  countRate(now: number): number {
    let n = 0;
    let oldest = now;
    for (let i = 0; i < this.samples; i++) {
      if (!this.#live(i, now)) continue;
      n += this.#count[i]!;
      if (this.#start[i]! < oldest) oldest = this.#start[i]!;
    }
    let elapsed = now - oldest;
    const fullWindows = Math.floor(elapsed / this.windowMs);
    const minFull = this.samples - 1;
    if (fullWindows < minFull) elapsed += (minFull - fullWindows) * this.windowMs;
    return elapsed > 0 ? (n * 1000) / elapsed : 0;
  }

  /** Average of the observations in the window; NaN if none. */
  avg(now: number): number {
    let sum = 0;
    let n = 0;
    for (let i = 0; i < this.samples; i++) {
      if (!this.#live(i, now)) continue;
      sum += this.#sum[i]!;
      n += this.#count[i]!;
    }
    return n > 0 ? sum / n : Number.NaN;
  }

  /** Largest observation in the window (record() only); NaN if none. */
  max(now: number): number {
    let m = Number.NaN;
    for (let i = 0; i < this.samples; i++) {
      if (!this.#live(i, now)) continue;
      const v = this.#max[i]!;
      if (!(v <= m)) m = Number.isNaN(v) ? m : v;
    }
    return m;
  }
}

/** Request latency of one broker, as in Kafka's `*-node-metrics` group. */
export interface NodeRequestMetrics {
  'request-total': number;
  'request-rate': number;
  'request-latency-avg': number;
  'request-latency-max': number;
}

/** Request latencies in total and per broker (keys `node-<id>`, Kafka's node-id tag). */
export class RequestLatency {
  readonly all = new SampledStat();
  readonly #nodes = new Map<number, SampledStat>();

  record(node: number, latencyMs: number, now: number): void {
    this.all.record(latencyMs, now);
    let s = this.#nodes.get(node);
    if (s === undefined) {
      s = new SampledStat();
      this.#nodes.set(node, s);
    }
    s.record(latencyMs, now);
  }

  nodes(now: number): Record<string, NodeRequestMetrics> {
    const out: Record<string, NodeRequestMetrics> = {};
    for (const [id, s] of this.#nodes) {
      out[`node-${id}`] = {
        'request-total': s.totalCount,
        'request-rate': s.countRate(now),
        'request-latency-avg': s.avg(now),
        'request-latency-max': s.max(now),
      };
    }
    return out;
  }
}

/** A monotonic millisecond clock for latencies (sub-millisecond, never goes back). */
export const monotonicMs = (): number => performance.now();
