// Time source for coordinators. Shards never read Date.now() or call setTimeout directly:
// going through a Clock lets unit tests drive session timeouts, rebalance delays and offset
// expiry deterministically with MockClock instead of sleeping.

export interface TimerHandle {
  cancel(): void;
}

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Runs `fn` once after `delayMs`; the handle cancels it. */
  setTimer(delayMs: number, fn: () => void): TimerHandle;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer(delayMs, fn) {
    const t = setTimeout(fn, Math.max(0, delayMs));
    // Coordinator timers (session expiry, retention checks) must never keep a process alive.
    t.unref();
    return { cancel: () => clearTimeout(t) };
  },
};

interface MockEntry {
  due: number;
  seq: number;
  fn: () => void;
  cancelled: boolean;
}

/** A clock that only moves when told to; timers fire in due order inside `advance`. */
export class MockClock implements Clock {
  #now: number;
  #seq = 0;
  #timers: MockEntry[] = [];

  constructor(startMs = 1_700_000_000_000) {
    this.#now = startMs;
  }

  now(): number {
    return this.#now;
  }

  setTimer(delayMs: number, fn: () => void): TimerHandle {
    const entry: MockEntry = {
      due: this.#now + Math.max(0, delayMs),
      seq: this.#seq++,
      fn,
      cancelled: false,
    };
    this.#timers.push(entry);
    return {
      cancel: () => {
        entry.cancelled = true;
      },
    };
  }

  /** Number of timers not yet fired nor cancelled. */
  get pendingTimers(): number {
    return this.#timers.filter((t) => !t.cancelled).length;
  }

  /**
   * Moves time forward by `ms`, firing every timer that falls due, in order, each with the
   * clock set to its due time (a timer scheduled by another timer within the window fires too).
   */
  advance(ms: number): void {
    const target = this.#now + ms;
    for (;;) {
      this.#timers = this.#timers.filter((t) => !t.cancelled);
      let next: MockEntry | undefined;
      for (const t of this.#timers) {
        if (
          t.due <= target &&
          (next === undefined || t.due < next.due || (t.due === next.due && t.seq < next.seq))
        ) {
          next = t;
        }
      }
      if (next === undefined) break;
      next.cancelled = true;
      this.#now = Math.max(this.#now, next.due);
      next.fn();
    }
    this.#now = target;
  }
}
