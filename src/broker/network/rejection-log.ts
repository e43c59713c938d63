// Warnings about refused requests (garbage bytes, an oversized frame, an unknown API key or
// version, a body that does not decode), each with the client's address, as Kafka's
// SocketServer logs them. Rate-limited: a client hammering the port with junk must not flood the
// log, so at most `perWindow` lines per window, then one line saying how many were left out.

import type { Logger } from '../logger.js';

export class RejectionLog {
  #windowStart = Number.NEGATIVE_INFINITY;
  #logged = 0;
  #suppressed = 0;

  constructor(
    private readonly logger: Logger,
    private readonly perWindow = 10,
    private readonly windowMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** One refused request from `client` (host:port), closed for `reason`. */
  report(client: string, reason: string): void {
    const t = this.now();
    if (t - this.#windowStart >= this.windowMs) {
      if (this.#suppressed > 0) {
        this.logger.log('warn', 'more requests were rejected (not logged one by one)', {
          count: this.#suppressed,
          windowMs: this.windowMs,
        });
      }
      this.#windowStart = t;
      this.#logged = 0;
      this.#suppressed = 0;
    }
    if (this.#logged >= this.perWindow) {
      this.#suppressed++;
      return;
    }
    this.#logged++;
    this.logger.log('warn', 'rejected a request and closed the connection', { client, reason });
  }
}
