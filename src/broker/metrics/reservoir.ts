// The last N observations of a latency, for the percentiles Kafka's Yammer histograms expose
// (50th … 999th). A ring of doubles: recording is one store, sorting happens at scrape time.

/** Yammer's default reservoir size, which Kafka's request histograms use. */
const DEFAULT_SIZE = 1028;

export class Reservoir {
  readonly #samples: Float64Array;
  #next = 0;
  /** Observations ever recorded (the histogram's Count). */
  count = 0;

  constructor(size = DEFAULT_SIZE) {
    this.#samples = new Float64Array(size);
  }

  record(value: number): void {
    this.#samples[this.#next] = value;
    this.#next = this.#next + 1 === this.#samples.length ? 0 : this.#next + 1;
    this.count++;
  }

  /** Value at each quantile (0..1) of the retained samples, nearest-rank; zeros when empty. */
  quantiles(qs: readonly number[]): number[] {
    const n = Math.min(this.count, this.#samples.length);
    if (n === 0) return qs.map(() => 0);
    const sorted = this.#samples.slice(0, n).sort();
    return qs.map((q) => sorted[Math.min(n - 1, Math.max(0, Math.ceil(q * n) - 1))]!);
  }
}
