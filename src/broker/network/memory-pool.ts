// Broker-wide budget for the bytes of requests that have been admitted but not yet answered
// (Kafka's `queued.max.request.bytes`). Like Kafka's SimpleMemoryPool, an allocation succeeds
// while anything is left, even if it overshoots: a single request larger than the whole budget
// must still be served when the broker is otherwise idle, or it would wait forever.

export class MemoryPool {
  private usedBytes = 0;
  private waiters: (() => void)[] = [];
  private readonly exhaustionListeners = new Set<(exhausted: boolean) => void>();

  /** `capacity <= 0` means unlimited. */
  constructor(readonly capacity: number) {}

  get used(): number {
    return this.usedBytes;
  }

  get exhausted(): boolean {
    return this.capacity > 0 && this.usedBytes >= this.capacity;
  }

  tryAllocate(bytes: number): boolean {
    if (this.exhausted) return false;
    const wasExhausted = this.exhausted;
    this.usedBytes += bytes;
    if (!wasExhausted && this.exhausted) this.emit(true);
    return true;
  }

  release(bytes: number): void {
    const wasExhausted = this.exhausted;
    this.usedBytes -= bytes;
    if (this.usedBytes < 0) this.usedBytes = 0;
    if (wasExhausted && !this.exhausted) this.emit(false);
    // Wake waiters one at a time: each retries its allocation, and may exhaust the pool again.
    while (!this.exhausted && this.waiters.length > 0) this.waiters.shift()!();
  }

  /** Calls `cb` once when memory may be available again. Returns a cancel function. */
  waitForMemory(cb: () => void): () => void {
    this.waiters.push(cb);
    return () => {
      const i = this.waiters.indexOf(cb);
      if (i >= 0) this.waiters.splice(i, 1);
    };
  }

  /** `listener(true)` when the budget is spent, `listener(false)` when memory is back. */
  onExhaustionChange(listener: (exhausted: boolean) => void): () => void {
    this.exhaustionListeners.add(listener);
    return () => this.exhaustionListeners.delete(listener);
  }

  private emit(exhausted: boolean): void {
    for (const l of this.exhaustionListeners) l(exhausted);
  }
}
