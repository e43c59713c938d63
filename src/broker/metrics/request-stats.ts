// Kafka's RequestMetrics per request name: RequestsPerSec (by version) and the time histograms
// RequestQueueTimeMs, LocalTimeMs, RemoteTimeMs, ResponseQueueTimeMs, TotalTimeMs. Recorded by
// the dispatcher once per request; read at scrape time.

import { Reservoir } from './reservoir.js';

export const REQUEST_TIMES = [
  'requestqueuetimems',
  'localtimems',
  'remotetimems',
  'responsequeuetimems',
  'totaltimems',
] as const;

export type RequestTimeName = (typeof REQUEST_TIMES)[number];

export class ApiRequestStats {
  /** Requests by version. */
  readonly byVersion: number[] = [];
  readonly times: Record<RequestTimeName, Reservoir> = {
    requestqueuetimems: new Reservoir(),
    localtimems: new Reservoir(),
    remotetimems: new Reservoir(),
    responsequeuetimems: new Reservoir(),
    totaltimems: new Reservoir(),
  };

  /**
   * queue: received → handler started (behind the connection's earlier requests); local: handler
   * time not spent waiting for others (`RequestTiming`); responseQueue: response ready → handed
   * to the kernel (the in-order wait plus the write: Kafka's response queue and send times).
   */
  record(
    version: number,
    queueMs: number,
    localMs: number,
    remoteMs: number,
    responseQueueMs: number,
    totalMs: number,
  ): void {
    this.byVersion[version] = (this.byVersion[version] ?? 0) + 1;
    this.times.requestqueuetimems.record(queueMs);
    this.times.localtimems.record(localMs);
    this.times.remotetimems.record(remoteMs);
    this.times.responsequeuetimems.record(responseQueueMs);
    this.times.totaltimems.record(totalMs);
  }
}

export class RequestStats {
  readonly #byName = new Map<string, ApiRequestStats>();

  api(name: string): ApiRequestStats {
    let s = this.#byName.get(name);
    if (s === undefined) {
      s = new ApiRequestStats();
      this.#byName.set(name, s);
    }
    return s;
  }

  entries(): [string, ApiRequestStats][] {
    return [...this.#byName];
  }
}

/**
 * Time a request spends waiting for something other than this broker's own work: acks=all
 * produce waiting for the followers, a long-poll fetch waiting for data (Kafka's purgatory,
 * RemoteTimeMs). Overlapping waits (one per partition) count once: the union of the intervals.
 */
export class RequestTiming {
  remoteMs = 0;
  #open = 0;
  #openedAt = 0;

  /** `p`, with its pending time counted as remote. */
  wait<T>(p: Promise<T>): Promise<T> {
    if (this.#open++ === 0) this.#openedAt = performance.now();
    return p.finally(() => {
      if (--this.#open === 0) this.remoteMs += performance.now() - this.#openedAt;
    });
  }
}

/** `p` counted as remote time of the request when metrics are on. */
export function remoteWait<T>(timing: RequestTiming | undefined, p: Promise<T>): Promise<T> {
  return timing === undefined ? p : timing.wait(p);
}
