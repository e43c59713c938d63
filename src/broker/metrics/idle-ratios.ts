// Kafka's RequestHandlerAvgIdlePercent and NetworkProcessorAvgIdlePercent, for a broker whose
// request handler is the event loop and whose network processors are the `num.network.threads`
// worker threads (the event loop itself with one thread): the idle fraction of each over the last
// minute, from Node's event-loop utilization, sampled every 5 s by an unref'd timer so that the
// value does not depend on who scrapes or how often. Brokers sharing a process (in-process test
// clusters) share its event loop, and so its figure.

import { type EventLoopUtilization, performance } from 'node:perf_hooks';
import type { Worker } from 'node:worker_threads';

const SAMPLE_MS = 5000;
/** Twelve intervals of 5 s: one minute (a younger broker: since it started). */
const SAMPLES = 13;

export class IdleRatios {
  readonly #loop: EventLoopUtilization[] = [];
  readonly #workers = new Map<Worker, EventLoopUtilization[]>();
  readonly #timer: NodeJS.Timeout;

  constructor(private readonly networkWorkers: () => readonly Worker[]) {
    this.#sample();
    this.#timer = setInterval(() => this.#sample(), SAMPLE_MS);
    this.#timer.unref();
  }

  /** The event loop's idle fraction (0–1): Kafka's request handler pool. */
  requestHandlerIdle(): number {
    return idleSince(this.#loop[0]!, performance.eventLoopUtilization());
  }

  /** The network threads' mean idle fraction; the event loop's when it does the network work. */
  networkProcessorIdle(): number {
    const workers = this.networkWorkers();
    if (workers.length === 0) return this.requestHandlerIdle();
    let sum = 0;
    for (const w of workers) {
      const now = w.performance.eventLoopUtilization();
      sum += idleSince(this.#workers.get(w)?.[0] ?? now, now);
    }
    return sum / workers.length;
  }

  close(): void {
    clearInterval(this.#timer);
  }

  #sample(): void {
    push(this.#loop, performance.eventLoopUtilization());
    const live = new Set(this.networkWorkers());
    for (const w of live) {
      let ring = this.#workers.get(w);
      if (ring === undefined) {
        ring = [];
        this.#workers.set(w, ring);
      }
      push(ring, w.performance.eventLoopUtilization());
    }
    // A network thread that died was started again as a new worker.
    for (const w of this.#workers.keys()) if (!live.has(w)) this.#workers.delete(w);
  }
}

function push(ring: EventLoopUtilization[], u: EventLoopUtilization): void {
  ring.push(u);
  if (ring.length > SAMPLES) ring.shift();
}

/**
 * Idle fraction between two cumulative readings; 1 when no time passed (nothing ran). Clamped:
 * a worker's readings, taken from another thread, can give a utilization a hair below 0.
 */
function idleSince(then: EventLoopUtilization, now: EventLoopUtilization): number {
  const d = performance.eventLoopUtilization(now, then);
  if (!(d.idle + d.active > 0)) return 1;
  return Math.min(1, Math.max(0, 1 - d.utilization));
}
