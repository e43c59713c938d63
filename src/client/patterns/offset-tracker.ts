// Where a partition may safely be committed while its records finish out of order: the commit
// point is the lowest offset that was handed out and has not finished, or — when everything
// handed out has finished — one past the highest offset handed out. Committing there means a
// crash re-delivers every unfinished record (and the finished ones above it), never skips one.
//
// Only unfinished offsets are stored, in ascending order (records of a partition are handed
// out in offset order, so each new one is appended). Memory is therefore proportional to the
// records in flight — bounded by the consumer's maxInFlightRecords — and not to the distance
// between the commit point and the newest record, which a slow key can make arbitrarily large.
// Offsets need not be contiguous: compaction and transaction markers leave gaps, which the
// commit point steps over because it only ever names offsets that were seen (or the one after).

export class PartitionOffsetTracker {
  /** Unfinished offsets, ascending. */
  readonly #pending: bigint[] = [];
  /** One past the highest offset handed out; null until the first record. */
  #next: bigint | null = null;
  /** The commit point last reported as committed (to skip commits that would change nothing). */
  #committed: bigint | null = null;

  /** A record was handed out for processing. Offsets must arrive in ascending order. */
  started(offset: bigint): void {
    if (this.#next !== null && offset < this.#next)
      throw new RangeError(`offset ${offset} handed out after ${this.#next - 1n}: offsets must ascend`);
    this.#pending.push(offset);
    this.#next = offset + 1n;
  }

  /** The record at `offset` finished (or was skipped). Unknown offsets are ignored. */
  finished(offset: bigint): void {
    const i = this.#indexOf(offset);
    if (i >= 0) this.#pending.splice(i, 1);
  }

  /** Records handed out and not finished. */
  get unfinished(): number {
    return this.#pending.length;
  }

  /** The offset to commit: a crash re-delivers everything from here. Null before any record. */
  commitPoint(): bigint | null {
    if (this.#pending.length > 0) return this.#pending[0]!;
    return this.#next;
  }

  /** The commit point if it moved since the last `markCommitted`, else null. */
  commitPointToSend(): bigint | null {
    const c = this.commitPoint();
    return c !== null && c !== this.#committed ? c : null;
  }

  markCommitted(offset: bigint): void {
    if (this.#committed === null || offset > this.#committed) this.#committed = offset;
  }

  #indexOf(offset: bigint): number {
    const a = this.#pending;
    let lo = 0;
    let hi = a.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const v = a[mid]!;
      if (v === offset) return mid;
      if (v < offset) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }
}
