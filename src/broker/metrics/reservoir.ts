// The last N observations of a latency, for the percentiles Kafka's Yammer histograms expose
// (50th … 999th). A ring of doubles: recording is a few stores, sorting happens at scrape time.
// An observation may be a row of several values (a request's five times): one ring of rows
// keeps a request's values side by side, so recording touches one or two cache lines where
// one ring per value touched five arrays and their objects — on the broker's request path,
// measured as most of the cost of recording.

/** Yammer's default reservoir size, which Kafka's request histograms use. */
const DEFAULT_SIZE = 1028;

export class Reservoir {
  /** `size` rows of `width` values, oldest overwritten first. */
  readonly samples: Float64Array;
  /** Index in `samples` of the next row's first value. */
  #next = 0;
  /** Observations ever recorded (the histogram's Count). */
  count = 0;

  constructor(
    readonly width = 1,
    size = DEFAULT_SIZE,
  ) {
    this.samples = new Float64Array(width * size);
  }

  /** Counts one observation and returns where its `width` values go in `samples`. */
  claim(): number {
    const at = this.#next;
    const next = at + this.width;
    this.#next = next === this.samples.length ? 0 : next;
    this.count++;
    return at;
  }

  /** A one-value observation. */
  record(value: number): void {
    this.samples[this.claim()] = value;
  }

  /** Value at each quantile (0..1) of column `column` of the retained rows, nearest-rank; zeros when empty. */
  quantiles(qs: readonly number[], column = 0): number[] {
    const n = Math.min(this.count, this.samples.length / this.width);
    if (n === 0) return qs.map(() => 0);
    const sorted = new Float64Array(n);
    for (let i = 0; i < n; i++) sorted[i] = this.samples[i * this.width + column]!;
    sorted.sort();
    return qs.map((q) => sorted[Math.min(n - 1, Math.max(0, Math.ceil(q * n) - 1))]!);
  }
}
