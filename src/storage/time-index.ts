// `.timeindex`: sparse map from the largest timestamp seen so far (int64) to the offset
// (relative, int32) of the batch holding it; entries only when the timestamp grows. Used by
// ListOffsets by time and by time-based retention (the segment's largest timestamp).
import { SparseIndex } from './sparse-index.js';

export interface TimestampOffsetEntry {
  timestamp: bigint;
  offset: bigint;
}

const ENTRY = 12;

export class TimeIndex extends SparseIndex {
  constructor(path: string, baseOffset: bigint, maxIndexBytes: number) {
    super(path, baseOffset, ENTRY, maxIndexBytes);
  }

  #tsAt(i: number): bigint {
    return this.buf.readBigInt64BE(i * ENTRY);
  }

  #relAt(i: number): number {
    return this.buf.readInt32BE(i * ENTRY + 8);
  }

  get lastEntry(): TimestampOffsetEntry | null {
    if (this.count === 0) return null;
    return {
      timestamp: this.#tsAt(this.count - 1),
      offset: this.baseOffset + BigInt(this.#relAt(this.count - 1)),
    };
  }

  /** Appends (timestamp, offset) when the timestamp is larger than the last entry's. */
  maybeAppend(timestamp: bigint, offset: bigint): void {
    if (this.count > 0 && timestamp <= this.#tsAt(this.count - 1)) return;
    const rel = Number(offset - this.baseOffset);
    if (this.count > 0 && rel < this.#relAt(this.count - 1)) return;
    const at = this.slot();
    this.buf.writeBigInt64BE(timestamp, at);
    this.buf.writeInt32BE(rel, at + 8);
  }

  /** The offset to start scanning from for the first record with timestamp ≥ `timestamp`. */
  lookup(timestamp: bigint): bigint {
    let lo = 0;
    let hi = this.count - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (this.#tsAt(mid) < timestamp) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    // Entries hold the running maximum, so every batch up to the last entry below the target
    // has only smaller timestamps: scanning can start there.
    return found < 0 ? this.baseOffset : this.baseOffset + BigInt(this.#relAt(found));
  }

  /** Drops entries whose offset is ≥ `offset`. */
  truncateToOffset(offset: bigint): void {
    const rel = offset - this.baseOffset;
    let n = this.count;
    while (n > 0 && BigInt(this.#relAt(n - 1)) >= rel) n--;
    this.truncateEntries(n);
  }

  protected sane(): boolean {
    let prevTs = -(2n ** 63n);
    let prevRel = -1;
    for (let i = 0; i < this.count; i++) {
      const ts = this.#tsAt(i);
      const rel = this.#relAt(i);
      if (ts < prevTs || rel < prevRel || rel < 0) return false;
      prevTs = ts;
      prevRel = rel;
    }
    return true;
  }
}
