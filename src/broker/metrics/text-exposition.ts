// Prometheus text format (0.0.4) written directly, for the families with a series per partition
// (log gauges, consumer lag): prom-client's labelled `Gauge.set` hashes the label object of every
// series at every scrape and its renderer rebuilds every label string, ≈ 25 µs a series, so a
// broker with 10,000 partitions spent most of a 0.75 s scrape there. Here a family is a HELP and
// a TYPE line followed by `name{labels} value` lines, built from label strings the caller keeps.

/** Label value escaping of the text format: backslash, double quote and newline. */
export function escapeLabelValue(v: string): string {
  return /[\\"\n]/.test(v) ? v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n') : v;
}

/** `k1="v1",k2="v2"` (no braces), values escaped. */
export function labelString(labels: readonly (readonly [string, string])[]): string {
  let s = '';
  for (const [k, v] of labels) s += `${s === '' ? '' : ','}${k}="${escapeLabelValue(v)}"`;
  return s;
}

/** A sample value as the text format spells it. */
export function formatValue(v: number | bigint): string {
  if (typeof v === 'bigint') return String(v);
  if (Number.isFinite(v)) return String(v);
  return Number.isNaN(v) ? 'NaN' : v > 0 ? '+Inf' : '-Inf';
}

/**
 * One family's text: append samples, then `text()`; an empty family still has HELP and TYPE.
 * Built by `+=` (V8 keeps a rope and flattens it once): ≈ 6× faster than an array of
 * template strings joined, measured at 30,000 samples.
 */
export class TextFamily {
  #text: string;

  constructor(
    readonly name: string,
    help: string,
    type: 'gauge' | 'counter',
  ) {
    this.#text = `# HELP ${name} ${help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')}\n# TYPE ${name} ${type}\n`;
  }

  /** `labels` as `labelString` returns it (cache it per series when the family is large). */
  sample(labels: string, value: number | bigint): void {
    const v = typeof value === 'bigint' ? Number(value) : value;
    this.#text += `${this.name}{${labels}} ${Number.isFinite(v) ? v : formatValue(v)}\n`;
  }

  text(): string {
    return this.#text;
  }
}
