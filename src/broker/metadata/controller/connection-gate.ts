// Where the controller waits after a CONNECTION_LOSS. The outcome of the failed call is unknown,
// so the caller re-reads before retrying; first it waits for the store to be connected again (the
// `disconnected`/`reconnected` events), or for the session to expire, which ends the term anyway.
// A loss that came with no disconnect event (a single lost reply) is retried at once a few times,
// then with a growing delay so a flapping store is not hammered.

import type { Clock } from '../../coordinator/runtime/clock.js';

const IMMEDIATE_RETRIES = 3;
const BASE_DELAY_MS = 50;
const MAX_DELAY_MS = 2_000;

export class ConnectionGate {
  #connected = true;
  #waiters: (() => void)[] = [];

  constructor(private readonly clock: Clock) {}

  get connected(): boolean {
    return this.#connected;
  }

  disconnected(): void {
    this.#connected = false;
  }

  /** Reconnected, or a new session after an expiry: waiters go on (and find out which). */
  connectedAgain(): void {
    this.#connected = true;
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const w of waiters) w();
  }

  /** Resolves when it is worth retrying after the `attempt`-th consecutive connection loss. */
  async afterConnectionLoss(attempt: number): Promise<void> {
    if (!this.#connected) {
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
      return;
    }
    if (attempt < IMMEDIATE_RETRIES) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      return;
    }
    const delay = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** (attempt - IMMEDIATE_RETRIES));
    await new Promise<void>((resolve) => {
      this.clock.setTimer(delay, resolve);
      // A disconnect followed by a reconnect should not wait out the whole delay.
      this.#waiters.push(resolve);
    });
  }
}
