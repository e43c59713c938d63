// Kafka's RequestMetrics per request name: RequestsPerSec (by version) and the time histograms
// RequestQueueTimeMs, LocalTimeMs, RemoteTimeMs, ResponseQueueTimeMs, TotalTimeMs. Every request
// is counted by the dispatcher; the times of those request-timer.ts picks (every one that comes
// alone, a random sample of a busy stream) are recorded by a `RequestTiming`. Read at scrape time.

// The module's `performance`: the global one is a lazy getter, read again at every call.
import { performance } from 'node:perf_hooks';
import { Reservoir } from './reservoir.js';

export const REQUEST_TIMES = [
  'requestqueuetimems',
  'localtimems',
  'remotetimems',
  'responsequeuetimems',
  'totaltimems',
] as const;

export type RequestTimeName = (typeof REQUEST_TIMES)[number];

const COLUMN: Record<RequestTimeName, number> = {
  requestqueuetimems: 0,
  localtimems: 1,
  remotetimems: 2,
  responsequeuetimems: 3,
  totaltimems: 4,
};

export class ApiRequestStats {
  /** Requests by version. */
  readonly byVersion: number[] = [];
  /** Error codes in the responses, at index code + 1 (UNKNOWN_SERVER_ERROR's -1 at 0): ErrorsPerSec. */
  readonly errors: number[] = [];
  /** Requests handled, timed or not: the Count of each of the five histograms. */
  count = 0;
  /** One row of the five times per timed request, in REQUEST_TIMES order. */
  readonly #times = new Reservoir(REQUEST_TIMES.length);

  /** A request handled (every one, whether `RequestTimer` timed it or not). */
  counted(version: number): void {
    this.byVersion[version] = (this.byVersion[version] ?? 0) + 1;
    this.count++;
  }

  /**
   * Every `errorCode` field of a response, NONE included, as Kafka's `AbstractResponse.errorCounts`
   * (a Produce answer counts one per partition, a Fetch answer its top level and each partition).
   * Produce and Fetch, the hot ones, are read by their known shape (a Fetch of 100 partitions:
   * ≈ 16 µs walked generically); the others generically.
   */
  countErrors(response: object, apiKey: number): void {
    const into = this.errors;
    if (apiKey === PRODUCE_KEY) {
      for (const t of (response as ProduceAnswer).responses)
        for (const p of t.partitionResponses) countCode(p.errorCode, into);
    } else if (apiKey === FETCH_KEY) {
      const r = response as FetchAnswer;
      countCode(r.errorCode, into);
      for (const t of r.responses) for (const p of t.partitions) countCode(p.errorCode, into);
    } else {
      countErrorCodes(response, into);
    }
  }

  /**
   * A timed request's times. queue: received → handler started (behind the connection's earlier
   * requests); local: handler time not spent waiting for others (`RequestTiming.wait`);
   * responseQueue: response ready → handed to the kernel (the in-order wait plus the write:
   * Kafka's response queue and send times).
   */
  record(queueMs: number, localMs: number, remoteMs: number, responseQueueMs: number, totalMs: number): void {
    const t = this.#times;
    const s = t.samples;
    const at = t.claim();
    s[at] = queueMs;
    s[at + 1] = localMs;
    s[at + 2] = remoteMs;
    s[at + 3] = responseQueueMs;
    s[at + 4] = totalMs;
  }

  /** `time` at each quantile (0..1) of the last 1,028 timed requests. */
  quantiles(time: RequestTimeName, qs: readonly number[]): number[] {
    return this.#times.quantiles(qs, COLUMN[time]);
  }
}

// The API keys whose answers are read by shape (the protocol's numbers: this module does not
// load the message definitions).
const PRODUCE_KEY = 0;
const FETCH_KEY = 1;

interface ProduceAnswer {
  responses: { partitionResponses: { errorCode: number }[] }[];
}
interface FetchAnswer {
  errorCode: number;
  responses: { partitions: { errorCode: number }[] }[];
}

function countCode(code: number, into: number[]): void {
  const at = code >= -1 ? code + 1 : 0; // garbage below -1: as Kafka, an unknown server error
  into[at] = (into[at] ?? 0) + 1;
}

function countErrorCodes(o: object, into: number[]): void {
  if (Array.isArray(o)) {
    for (const x of o) if (typeof x === 'object' && x !== null) countErrorCodes(x, into);
    return;
  }
  if (ArrayBuffer.isView(o)) return; // record bytes
  for (const k in o) {
    const v = (o as Record<string, unknown>)[k];
    if (typeof v === 'object') {
      if (v !== null) countErrorCodes(v, into);
    } else if (k === 'errorCode' && typeof v === 'number') {
      countCode(v, into);
    }
  }
}

export class RequestStats {
  readonly #byName = new Map<string, ApiRequestStats>();
  // The last API asked for: request names are the handlers' constant strings, so comparing them
  // is comparing pointers, cheaper than a map lookup; a busy broker mostly sees runs of one API.
  #lastName = '';
  #last: ApiRequestStats | null = null;

  api(name: string): ApiRequestStats {
    if (name === this.#lastName && this.#last !== null) return this.#last;
    let s = this.#byName.get(name);
    if (s === undefined) {
      s = new ApiRequestStats();
      this.#byName.set(name, s);
    }
    this.#lastName = name;
    this.#last = s;
    return s;
  }

  entries(): [string, ApiRequestStats][] {
    return [...this.#byName];
  }
}

/**
 * One timed request's times, from the dispatcher: created when its handler starts
 * (request-timer.ts), recorded once its response has left. Remote time is what the request
 * spends waiting for something other than this broker's own work: acks=all produce waiting for
 * the followers, a long-poll fetch waiting for data (Kafka's purgatory, RemoteTimeMs).
 * Overlapping waits (one per partition) count once: the union of the intervals.
 *
 * Three clock reads — arrival (also the start when the request starts at once, the usual case),
 * handler done, response handed to the kernel — plus two per remote wait.
 */
export class RequestTiming {
  remoteMs = 0;
  #open = 0;
  #openedAt = 0;
  #handledAt = 0;
  /** Set by `handled`, cleared when recorded (so a second call of the recorder records nothing). */
  #api: ApiRequestStats | null = null;

  constructor(
    readonly arrivedAt: number,
    readonly startedAt: number,
  ) {}

  /** `p`, with its pending time counted as remote. */
  wait<T>(p: Promise<T>): Promise<T> {
    if (this.#open++ === 0) this.#openedAt = performance.now();
    return p.finally(() => {
      if (--this.#open === 0) this.remoteMs += performance.now() - this.#openedAt;
    });
  }

  /**
   * The handler returned: the result is to be called once the response has left (or will never
   * be sent); it records the request's times in `api`, the first time only.
   */
  handled(api: ApiRequestStats): () => void {
    this.#handledAt = performance.now();
    this.#api = api;
    return () => this.#sent();
  }

  #sent(): void {
    const api = this.#api;
    if (api === null) return;
    this.#api = null;
    const sentAt = performance.now();
    const remoteMs = this.remoteMs;
    api.record(
      this.startedAt - this.arrivedAt,
      Math.max(0, this.#handledAt - this.startedAt - remoteMs),
      remoteMs,
      sentAt - this.#handledAt,
      sentAt - this.arrivedAt,
    );
  }
}

/** `p` counted as remote time of the request when metrics are on. */
export function remoteWait<T>(timing: RequestTiming | undefined, p: Promise<T>): Promise<T> {
  return timing === undefined ? p : timing.wait(p);
}
