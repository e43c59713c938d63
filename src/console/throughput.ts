// Throughput from what any Kafka cluster answers, without broker metrics: the console samples
// each partition's high watermark (ListOffsets latest), each leader replica's size
// (DescribeLogDirs) and every group's committed offsets (OffsetFetch), and turns consecutive
// samples into increments. Rates are the increments inside a sliding window over the time they
// span. What each rate really measures:
// - messages in: high-watermark growth (records made readable; a transaction marker counts).
// - bytes in: growth of the leader replicas' log size (on-disk batches, which is what producers
//   sent; a segment deleted by retention meanwhile hides that much growth, never counts negative).
// - messages out: committed-offset growth of consumer groups (consumers outside a group, and what
//   is fetched but not yet committed, are invisible to every public API). A group's first
//   committed offset on a partition is a baseline: when it read the records before it, no API says.
// - bytes out: an estimate, messages out × the partition's mean record size (log size ÷ records).
// Each partition's increment is clamped at 0: a truncated log, a recreated topic or an offset
// reset backwards is not negative traffic.

export interface ThroughputSample {
  /** When the sample was taken (ms since the epoch). */
  readonly t: number;
  /** `topic\0partition` → high watermark. */
  readonly ends: ReadonlyMap<string, number>;
  /** `topic\0partition` → log size of the leader replica; null when DescribeLogDirs is refused. */
  readonly sizes: ReadonlyMap<string, number> | null;
  /** `topic\0partition\0group` → committed offset; null when the groups could not be read. */
  readonly committed: ReadonlyMap<string, number> | null;
  /** `topic\0partition` → log start offset (may be older than the sample; for record sizes). */
  readonly starts: ReadonlyMap<string, number>;
}

export interface Throughput {
  /** The time the rates average over, ms since the epoch. */
  readonly from: number;
  readonly to: number;
  readonly messagesInPerSec: number;
  /** null: the cluster refused DescribeLogDirs (it needs Describe on the cluster). */
  readonly bytesInPerSec: number | null;
  /** Committed by consumer groups; null when the groups could not be read. */
  readonly messagesOutPerSec: number | null;
  /** Estimated: committed records × mean record size; null when sizes or groups are unknown. */
  readonly bytesOutPerSec: number | null;
}

interface Step {
  readonly from: number;
  readonly to: number;
  readonly messagesIn: number;
  readonly bytesIn: number | null;
  readonly messagesOut: number | null;
  readonly bytesOut: number | null;
  /** Topics with records in this step only (sparse). */
  readonly topicMessages: ReadonlyMap<string, number>;
}

const topicOf = (tpKey: string): string => tpKey.slice(0, tpKey.indexOf('\u0000'));

/** A committed-offset key's partition (topic names have no NUL; group ids may). */
const committedTp = (key: string): string => key.slice(0, key.indexOf('\u0000', key.indexOf('\u0000') + 1));

export const committedKey = (tpKey: string, groupId: string): string => `${tpKey}\u0000${groupId}`;

/** Mean bytes per record of a partition, when its size and offsets say. */
function recordBytes(s: ThroughputSample, tpKey: string): number | null {
  const size = s.sizes?.get(tpKey);
  const end = s.ends.get(tpKey);
  const start = s.starts.get(tpKey) ?? 0;
  if (size === undefined || end === undefined || end <= start) return null;
  return size / (end - start);
}

/** What happened between two samples. */
export function step(prev: ThroughputSample, cur: ThroughputSample): Step {
  let messagesIn = 0;
  const topicMessages = new Map<string, number>();
  for (const [k, end] of cur.ends) {
    const before = prev.ends.get(k);
    if (before === undefined || end <= before) continue;
    messagesIn += end - before;
    const topic = topicOf(k);
    topicMessages.set(topic, (topicMessages.get(topic) ?? 0) + end - before);
  }
  let bytesIn: number | null = null;
  if (prev.sizes !== null && cur.sizes !== null) {
    bytesIn = 0;
    for (const [k, size] of cur.sizes) {
      const before = prev.sizes.get(k);
      if (before !== undefined && size > before) bytesIn += size - before;
    }
  }
  let messagesOut: number | null = null;
  let bytesOut: number | null = null;
  if (prev.committed !== null && cur.committed !== null) {
    messagesOut = 0;
    bytesOut = cur.sizes === null ? null : 0;
    for (const [k, offset] of cur.committed) {
      const before = prev.committed.get(k);
      if (before === undefined || offset <= before) continue;
      messagesOut += offset - before;
      if (bytesOut !== null) bytesOut += (offset - before) * (recordBytes(cur, committedTp(k)) ?? 0);
    }
  }
  return { from: prev.t, to: cur.t, messagesIn, bytesIn, messagesOut, bytesOut, topicMessages };
}

/** Increments of the last `windowMs`, and the rates they make. */
export class ThroughputWindow {
  readonly #windowMs: number;
  readonly #maxGapMs: number;
  #steps: Step[] = [];
  #last: ThroughputSample | null = null;
  #topicRates: Map<string, number> | null = null;

  /** `maxGapMs`: samples further apart start afresh (sampling had stopped; no hour-long average). */
  constructor(windowMs: number, maxGapMs: number) {
    this.#windowMs = windowMs;
    this.#maxGapMs = maxGapMs;
  }

  add(sample: ThroughputSample): void {
    if (this.#last !== null && sample.t - this.#last.t > this.#maxGapMs) this.#steps = [];
    else if (this.#last !== null && sample.t > this.#last.t) this.#steps.push(step(this.#last, sample));
    this.#last = sample;
    // The newest step stays even when it alone is longer than the window (an idle interval).
    const oldest = sample.t - this.#windowMs;
    while (this.#steps.length > 1 && this.#steps[0]!.to <= oldest) this.#steps.shift();
    this.#topicRates = null;
  }

  /** Whether the newest step is recent enough at `now` to stand for the present. */
  #current(now: number): boolean {
    const last = this.#steps.at(-1);
    return last !== undefined && now - last.to <= this.#maxGapMs;
  }

  /** The rates over the window; null before two samples, or when sampling stopped long ago. */
  rates(now = Date.now()): Throughput | null {
    const steps = this.#steps;
    if (!this.#current(now)) return null;
    const from = steps[0]!.from;
    const to = steps[steps.length - 1]!.to;
    const secs = (to - from) / 1000;
    const sum = (pick: (s: Step) => number | null): number | null => {
      let total = 0;
      for (const s of steps) {
        const v = pick(s);
        if (v === null) return null;
        total += v;
      }
      return total / secs;
    };
    return {
      from,
      to,
      messagesInPerSec: sum((s) => s.messagesIn)!,
      bytesInPerSec: sum((s) => s.bytesIn),
      messagesOutPerSec: sum((s) => s.messagesOut),
      bytesOutPerSec: sum((s) => s.bytesOut),
    };
  }

  /** Messages per second of each topic over the window (topics without records are absent); null before two samples. */
  topicRates(now = Date.now()): ReadonlyMap<string, number> | null {
    if (!this.#current(now)) return null;
    if (this.#topicRates !== null) return this.#topicRates;
    const secs = (this.#steps[this.#steps.length - 1]!.to - this.#steps[0]!.from) / 1000;
    const out = new Map<string, number>();
    for (const s of this.#steps)
      for (const [topic, n] of s.topicMessages) out.set(topic, (out.get(topic) ?? 0) + n);
    for (const [topic, n] of out) out.set(topic, n / secs);
    this.#topicRates = out;
    return out;
  }
}
