// Waits for the high watermark of one partition led here (Kafka's DelayedProduce, per
// partition): acks=all produce requests and coordinator writes park until the HW reaches the end
// of what they appended. The answer, as Kafka's Partition.checkEnoughReplicasReachOffset: once
// the HW has reached the offset, NONE when the (maximal) ISR still has min.insync.replicas
// members, else NOT_ENOUGH_REPLICAS_AFTER_APPEND (an ISR shrink is what lets the HW pass a
// follower that stopped); REQUEST_TIMED_OUT at the deadline; NOT_LEADER_OR_FOLLOWER when this
// broker stops leading the partition (or shuts down). The partition calls `check` after every
// HW or ISR change of its own.

import { ErrorCode } from '../../protocol/errors.js';

interface Waiter {
  readonly required: bigint;
  readonly minIsr: number;
  readonly resolve: (code: number) => void;
  timer: NodeJS.Timeout | null;
}

function verdict(required: bigint, minIsr: number, highWatermark: bigint, isrSize: number): number | null {
  if (highWatermark < required) return null;
  return isrSize >= minIsr ? ErrorCode.NONE : ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND;
}

export class CommitWaiters {
  readonly #waiters = new Set<Waiter>();

  get size(): number {
    return this.#waiters.size;
  }

  /** Resolves with an error code (NONE: committed); never rejects. */
  wait(
    required: bigint,
    minIsr: number,
    timeoutMs: number,
    highWatermark: bigint,
    isrSize: number,
  ): Promise<number> {
    const now = verdict(required, minIsr, highWatermark, isrSize);
    if (now !== null) return Promise.resolve(now);
    if (timeoutMs <= 0) return Promise.resolve(ErrorCode.REQUEST_TIMED_OUT);
    return new Promise((resolve) => {
      const w: Waiter = { required, minIsr, resolve, timer: null };
      w.timer = setTimeout(() => this.#finish(w, ErrorCode.REQUEST_TIMED_OUT), timeoutMs);
      this.#waiters.add(w);
    });
  }

  /** Completes every waiter whose offset the high watermark has reached. */
  check(highWatermark: bigint, isrSize: number): void {
    if (this.#waiters.size === 0) return;
    for (const w of this.#waiters) {
      const code = verdict(w.required, w.minIsr, highWatermark, isrSize);
      if (code !== null) this.#finish(w, code);
    }
  }

  /** Completes every waiter with `code` (leadership lost, shutdown). */
  failAll(code: number): void {
    for (const w of this.#waiters) this.#finish(w, code);
  }

  #finish(w: Waiter, code: number): void {
    if (!this.#waiters.delete(w)) return;
    if (w.timer !== null) clearTimeout(w.timer);
    w.resolve(code);
  }
}
