// The consumer's "something happened" signal and wakeup() (Kafka's ConsumerNetworkClient
// wakeup): poll() waits on `wait()`, which fetch responses, finished rebalance steps, seeks and
// close() end early through `signal()`. `wakeup()` makes the blocked operation — or the next
// one, if none is blocked — throw WakeupError exactly once.
import { WakeupError } from './consumer-errors.js';

export class Waker {
  #waiters: (() => void)[] = [];
  #pending = false;
  readonly #rejects = new Set<(e: Error) => void>();

  /** Resolves after `ms` or at the next signal(), whichever comes first. */
  wait(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.#waiters.push(done);
    });
  }

  signal(): void {
    const w = this.#waiters;
    if (w.length === 0) return;
    this.#waiters = [];
    for (const done of w) done();
  }

  wakeup(): void {
    this.#pending = true;
    for (const reject of this.#rejects) reject(new WakeupError());
    // A blocked wakeable operation consumed the wakeup; otherwise the next check throws.
    if (this.#rejects.size > 0) this.#pending = false;
    this.#rejects.clear();
    this.signal();
  }

  /** Throws WakeupError (once) if wakeup() was called since the last check. */
  check(): void {
    if (this.#pending) {
      this.#pending = false;
      throw new WakeupError();
    }
  }

  /** Races a blocking operation against wakeup(). */
  wakeable<T>(p: Promise<T>): Promise<T> {
    this.check();
    return new Promise<T>((resolve, reject) => {
      this.#rejects.add(reject);
      p.then(resolve, reject).finally(() => this.#rejects.delete(reject));
    });
  }
}
