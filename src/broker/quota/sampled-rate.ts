// A rate measured as Kafka's quota sensors measure it (org.apache.kafka.common.metrics.stats.Rate
// over a windowed sum): `samples` windows of `windowMs` each, the newest one still filling. The
// rate is the sum of the retained samples divided by the time they cover, where that time is
// never taken as less than `samples - 1` full windows (a burst right after a quiet spell is not
// divided by a few milliseconds), and the throttle time of a violation is what brings the rate
// back to the bound if nothing more is recorded: (observed − bound) / bound × window.

export interface RateWindows {
  /** `quota.window.num` (Kafka default 11: ten full windows and the current one). */
  readonly samples: number;
  /** `quota.window.size.seconds` × 1000. */
  readonly windowMs: number;
}

interface Sample {
  value: number;
  /** Values recorded (for `average`). */
  count: number;
  startMs: number;
  lastEventMs: number;
}

export class SampledRate {
  /** At most `samples + 1` entries: Kafka keeps one extra for a sample overlapping the window. */
  private readonly ring: Sample[] = [];
  private current = 0;
  /** When a value was last recorded (for expiring idle sensors). */
  lastRecordMs: number;

  constructor(
    private readonly windows: RateWindows,
    nowMs: number,
  ) {
    this.lastRecordMs = nowMs;
  }

  /** Adds `value` (negative to take a recorded value back) to the window holding `nowMs`. */
  record(value: number, nowMs: number): void {
    let sample = this.currentSample(nowMs);
    if (nowMs - sample.startMs >= this.windows.windowMs) sample = this.advance(nowMs);
    sample.value += value;
    sample.count++;
    sample.lastEventMs = nowMs;
    this.lastRecordMs = nowMs;
  }

  /** The rate per second at `nowMs`. */
  measure(nowMs: number): number {
    this.purgeObsolete(nowMs);
    let sum = 0;
    for (const s of this.ring) sum += s.value;
    return sum / (this.windowSizeMs(nowMs) / 1000);
  }

  /** The mean of the values recorded in the retained samples (Kafka's Avg), 0 without any. */
  average(nowMs: number): number {
    this.purgeObsolete(nowMs);
    let sum = 0;
    let count = 0;
    for (const s of this.ring) {
      sum += s.value;
      count += s.count;
    }
    return count === 0 ? 0 : sum / count;
  }

  /**
   * The time the retained samples cover, at least `samples - 1` full windows plus the part of
   * the current one that has passed, and at least 1 ms.
   */
  windowSizeMs(nowMs: number): number {
    this.purgeObsolete(nowMs);
    let oldest = this.currentSample(nowMs).startMs;
    for (const s of this.ring) if (s.startMs < oldest) oldest = s.startMs;
    let elapsed = nowMs - oldest;
    const fullWindows = Math.floor(elapsed / this.windows.windowMs);
    const minFullWindows = this.windows.samples - 1;
    if (fullWindows < minFullWindows) elapsed += (minFullWindows - fullWindows) * this.windows.windowMs;
    return Math.max(elapsed, 1);
  }

  private currentSample(nowMs: number): Sample {
    if (this.ring.length === 0) this.ring.push({ value: 0, count: 0, startMs: nowMs, lastEventMs: nowMs });
    return this.ring[this.current]!;
  }

  private advance(nowMs: number): Sample {
    const max = this.windows.samples + 1;
    this.current = (this.current + 1) % max;
    if (this.current >= this.ring.length) {
      const s = { value: 0, count: 0, startMs: nowMs, lastEventMs: nowMs };
      this.ring.push(s);
      return s;
    }
    const s = this.ring[this.current]!;
    reset(s, nowMs);
    return s;
  }

  /** Samples without an event during the whole monitored span are emptied (Kafka keeps overlapping ones). */
  private purgeObsolete(nowMs: number): void {
    const expireAge = this.windows.samples * this.windows.windowMs;
    for (const s of this.ring) if (nowMs - s.lastEventMs >= expireAge) reset(s, nowMs);
  }
}

function reset(s: Sample, nowMs: number): void {
  s.value = 0;
  s.count = 0;
  s.startMs = nowMs;
  s.lastEventMs = nowMs;
}

/**
 * Kafka's QuotaUtils.throttleTime: with observed rate O over window W and bound T, a pause X
 * such that O·W / (W + X) = T, i.e. X = (O − T) / T · W; 0 when O ≤ T. Rounded as Java's
 * Math.round, bounded by `maxMs` when given (the request quota caps at one window).
 */
export function throttleTimeMs(observed: number, bound: number, windowMs: number, maxMs = Infinity): number {
  if (!(observed > bound)) return 0;
  const ms = Math.floor(((observed - bound) / bound) * windowMs + 0.5);
  return Math.min(ms, maxMs, 0x7fffffff);
}
