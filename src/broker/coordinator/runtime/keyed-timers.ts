// The keyed one-shot timers of one shard (CoordinatorTimer). Every heartbeat reschedules its
// member's session timer, so rescheduling must be cheap: moving a deadline later only updates
// the entry, and the underlying clock timer, when it fires early, re-arms itself for the time
// left. Only a deadline moved earlier costs a cancel and a new clock timer. Observable
// behaviour is unchanged: a key fires once, at its latest deadline, with its latest operation.
import type { Clock, TimerHandle } from './clock.js';
import type { CoordinatorResult, CoordinatorTimer } from './coordinator-shard.js';

interface Entry<R> {
  due: number;
  op: () => CoordinatorResult<R, unknown>;
  handle: TimerHandle | null;
}

export class KeyedTimers<R> implements CoordinatorTimer<R> {
  readonly #entries = new Map<string, Entry<R>>();

  /** `run` executes a due operation (as a write on the shard). */
  constructor(
    private readonly clock: Clock,
    private readonly run: (op: () => CoordinatorResult<R, unknown>) => void,
  ) {}

  schedule(key: string, delayMs: number, op: () => CoordinatorResult<R, unknown>): void {
    const due = this.clock.now() + Math.max(0, delayMs);
    const existing = this.#entries.get(key);
    if (existing !== undefined && existing.due <= due) {
      existing.due = due;
      existing.op = op;
      return;
    }
    existing?.handle?.cancel();
    const entry: Entry<R> = { due, op, handle: null };
    this.#entries.set(key, entry);
    this.#arm(key, entry, due - this.clock.now());
  }

  cancel(key: string): void {
    this.#entries.get(key)?.handle?.cancel();
    this.#entries.delete(key);
  }

  isScheduled(key: string): boolean {
    return this.#entries.has(key);
  }

  get size(): number {
    return this.#entries.size;
  }

  /** Cancels everything (the shard is going away). */
  clear(): void {
    for (const e of this.#entries.values()) e.handle?.cancel();
    this.#entries.clear();
  }

  #arm(key: string, entry: Entry<R>, delayMs: number): void {
    entry.handle = this.clock.setTimer(delayMs, () => {
      if (this.#entries.get(key) !== entry) return;
      const left = entry.due - this.clock.now();
      if (left > 0) {
        this.#arm(key, entry, left);
        return;
      }
      this.#entries.delete(key);
      this.run(entry.op);
    });
  }
}
