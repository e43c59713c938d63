// Picks and times requests for RequestMetrics, from the dispatcher. Arrival is when the
// connection hands the frame to `canPipeline` (it does so for every frame as it is queued), so
// request queue time is the wait behind the connection's earlier requests; the response side
// ends when the connection reports the response handed to the kernel (`onSent`).
//
// Timing a request costs three clock reads (≈ 0.1–0.5 µs each on this VM, the more the busier
// it is), an object and a closure: in a broker's profile (bench/metrics-overhead.ts --profile)
// about 2 % of its CPU with small produce requests, timing every one. So a request is timed
// when it comes alone — more than GAP_MS after the previous one of its API key: a consumer's
// long poll, an admin request, anything at a modest rate, deterministically — and within a
// stream of one key's requests a random one in `stride`, a power of two set from the key's
// arrival rate (a moving average) to keep about 250 timed a second. The histograms then hold a random
// sample of recent requests, as Kafka's Yammer histograms do (an exponentially decaying
// sample); the request counts stay exact. A request not timed costs one clock read.

// The module's `performance`: the global one is a lazy getter, read again at every call.
import { performance } from 'node:perf_hooks';
import { RequestTiming } from './request-stats.js';

/** Kafka's RequestMetrics splits Fetch by who asks: FetchConsumer and FetchFollower. */
export function requestMetricName(apiName: string, request: unknown): string {
  if (apiName !== 'Fetch') return apiName;
  const r = request as { replicaId?: number; replicaState?: { replicaId: number } };
  const follower = (r.replicaId ?? -1) >= 0 || (r.replicaState?.replicaId ?? -1) >= 0;
  return follower ? 'FetchFollower' : 'FetchConsumer';
}

const MAX_STRIDE = 256;
/** A request this long after the previous one of its key is timed, whatever the stride. */
export const GAP_MS = 10;
/** Timed requests per ms a stream of one key is sampled down to (250 a second). */
const TIMED_PER_MS = 0.25;
/** API keys with a sampler; a frame with any other key is always timed (and soon refused). */
const API_KEYS = 128;

/** Which requests of one API key are timed. */
export class KeySampler {
  /** A request within a stream is timed with probability 1/stride. */
  stride = 1;
  #lastArrival = Number.NEGATIVE_INFINITY;
  /**
   * Moving average of the gaps between arrivals (each gap capped at GAP_MS), weight 1/8: it
   * follows a stream that starts within a few dozen requests. A rate measured over fixed windows
   * kept a 100 ms window of every burst fully timed.
   */
  #meanGap = GAP_MS;

  /** Whether the request arriving at `now` is timed; `draw` is a random 32-bit integer. */
  pick(now: number, draw: number): boolean {
    const gap = now - this.#lastArrival;
    this.#lastArrival = now;
    this.#meanGap += (Math.min(gap, GAP_MS) - this.#meanGap) / 8;
    let stride = 1;
    while (stride < MAX_STRIDE && TIMED_PER_MS * stride * this.#meanGap < 1) stride *= 2;
    this.stride = stride;
    // The stride is a power of two: the low bits of the draw are uniform.
    return gap >= GAP_MS || (draw & (stride - 1)) === 0;
  }
}

export class RequestTimer {
  // Most frames start as soon as they arrive (nothing ahead of them on their connection): the
  // connection calls `handle` in the same synchronous run as `canPipeline`. So the last timed
  // arrival is kept in two fields, and a frame that starts while it is still the last arrival
  // started at once: its start time is its arrival time, without a second clock read. A frame
  // that waits stops being the last arrival before it can start — at the next timed arrival, or
  // when a request finishes (`settled`, which the dispatcher calls after every handler: a waiting
  // frame starts only after a request of its connection has finished, or when a quota mute ends,
  // and no frame is read during a mute) — and then goes to the weak map. A map entry per request
  // made every young-generation GC walk thousands of ephemerons.
  #lastFrame: Buffer | null = null;
  #lastArrival = 0;
  readonly #waiting = new WeakMap<Buffer, number>();
  /** Entries put in `#waiting` and not taken out (a frame never started leaves one behind). */
  #waitingCount = 0;
  readonly #samplers: KeySampler[] = [];
  /** xorshift32 state: a random draw for each request, cheaper than Math.random(). */
  #random = 0x9e3779b9;

  arrived(frame: Buffer): void {
    const now = performance.now();
    // The API key, an int16 read as unsigned: a negative one lands above API_KEYS.
    const key = frame.length >= 2 ? (frame[0]! << 8) | frame[1]! : API_KEYS;
    if (key < API_KEYS) {
      let x = this.#random;
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      this.#random = x;
      let sampler = this.#samplers[key];
      if (sampler === undefined) {
        sampler = new KeySampler();
        this.#samplers[key] = sampler;
      }
      if (!sampler.pick(now, x)) return;
    }
    this.settled();
    this.#lastFrame = frame;
    this.#lastArrival = now;
  }

  /** A handler finished: the last timed frame to arrive, if it has not started, is waiting. */
  settled(): void {
    if (this.#lastFrame === null) return;
    this.#waiting.set(this.#lastFrame, this.#lastArrival);
    this.#waitingCount++;
    this.#lastFrame = null;
  }

  /** The request's timing if it was picked at arrival; undefined = only counted. */
  start(frame: Buffer): RequestTiming | undefined {
    if (frame === this.#lastFrame) {
      this.#lastFrame = null;
      return new RequestTiming(this.#lastArrival, this.#lastArrival);
    }
    if (this.#waitingCount === 0) return undefined;
    const arrival = this.#waiting.get(frame);
    if (arrival === undefined) return undefined;
    this.#waiting.delete(frame);
    this.#waitingCount--;
    return new RequestTiming(arrival, performance.now());
  }
}
