// Times each request for RequestMetrics, from the dispatcher. Arrival is when the connection
// hands the frame to `canPipeline` (it does so for every frame as it is queued), so request
// queue time is the wait behind the connection's earlier requests; the response side ends when
// the connection reports the response handed to the kernel (`onSent`).

import { type RequestStats, RequestTiming } from './request-stats.js';

/** Kafka's RequestMetrics splits Fetch by who asks: FetchConsumer and FetchFollower. */
export function requestMetricName(apiName: string, request: unknown): string {
  if (apiName !== 'Fetch') return apiName;
  const r = request as { replicaId?: number; replicaState?: { replicaId: number } };
  const follower = (r.replicaId ?? -1) >= 0 || (r.replicaState?.replicaId ?? -1) >= 0;
  return follower ? 'FetchFollower' : 'FetchConsumer';
}

export class RequestTimer {
  // Most frames start as soon as they arrive (nothing ahead of them on their connection), so the
  // last arrival is kept in two fields; only a frame that had to wait goes to the weak map. A
  // map entry per request made every young-generation GC walk thousands of ephemerons.
  #lastFrame: Buffer | null = null;
  #lastArrival = 0;
  readonly #waiting = new WeakMap<Buffer, number>();

  constructor(private readonly stats: RequestStats) {}

  arrived(frame: Buffer): void {
    if (this.#lastFrame !== null) this.#waiting.set(this.#lastFrame, this.#lastArrival);
    this.#lastFrame = frame;
    this.#lastArrival = performance.now();
  }

  start(frame: Buffer): StartedRequest {
    const now = performance.now();
    let arrival: number | undefined;
    if (frame === this.#lastFrame) {
      arrival = this.#lastArrival;
      this.#lastFrame = null;
    } else {
      arrival = this.#waiting.get(frame);
      this.#waiting.delete(frame);
    }
    return new StartedRequest(this.stats, arrival ?? now, now);
  }
}

export class StartedRequest extends RequestTiming {
  constructor(
    private readonly stats: RequestStats,
    private readonly arrivedAt: number,
    private readonly startedAt: number,
  ) {
    super();
  }

  /** The handler returned; the result records the times once the response has left. */
  handled(name: string, version: number): () => void {
    const handledAt = performance.now();
    return () => {
      const sentAt = performance.now();
      const remoteMs = this.remoteMs;
      this.stats
        .api(name)
        .record(
          version,
          this.startedAt - this.arrivedAt,
          Math.max(0, handledAt - this.startedAt - remoteMs),
          remoteMs,
          sentAt - handledAt,
          sentAt - this.arrivedAt,
        );
    };
  }
}
