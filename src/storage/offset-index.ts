// `.index`: sparse map from offset (relative to the segment's base offset, int32) to the file
// position (int32) of a batch; one entry per `index.interval.bytes` of log. Kafka's layout.
import { SparseIndex } from './sparse-index.js';

export interface OffsetPosition {
  offset: bigint;
  position: number;
}

const ENTRY = 8;

export class OffsetIndex extends SparseIndex {
  constructor(path: string, baseOffset: bigint, maxIndexBytes: number) {
    super(path, baseOffset, ENTRY, maxIndexBytes);
  }

  #relAt = (i: number): number => this.buf.readInt32BE(i * ENTRY);

  #posAt(i: number): number {
    return this.buf.readInt32BE(i * ENTRY + 4);
  }

  /** Adds `offset` → `position`; offsets and positions must grow. */
  append(offset: bigint, position: number): void {
    const rel = Number(offset - this.baseOffset);
    if (this.count > 0 && (rel <= this.#relAt(this.count - 1) || position <= this.#posAt(this.count - 1)))
      return;
    const at = this.slot();
    this.buf.writeInt32BE(rel, at);
    this.buf.writeInt32BE(position, at + 4);
  }

  /** The last entry whose offset is ≤ `offset`, or (base offset, 0). */
  lookup(offset: bigint): OffsetPosition {
    const rel = offset - this.baseOffset;
    if (this.count === 0 || rel < 0n) return { offset: this.baseOffset, position: 0 };
    const target = rel > 0x7fffffffn ? 0x7fffffff : Number(rel);
    const i = this.floorIndex(target, this.#relAt);
    if (i < 0) return { offset: this.baseOffset, position: 0 };
    return { offset: this.baseOffset + BigInt(this.#relAt(i)), position: this.#posAt(i) };
  }

  /**
   * The largest indexed batch position in (`after`, `limit`], or -1: a batch boundary that lets
   * a read of whole batches be sized exactly.
   */
  floorPosition(limit: number, after: number): number {
    let lo = 0;
    let hi = this.count - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const pos = this.#posAt(mid);
      if (pos <= limit) {
        found = pos;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found > after ? found : -1;
  }

  /** The first entry whose position is ≥ `position`, as an entry count to keep. */
  #countBelowPosition(position: number): number {
    let n = this.count;
    while (n > 0 && this.#posAt(n - 1) >= position) n--;
    return n;
  }

  /** Drops entries at or after `offset`. */
  truncateToOffset(offset: bigint): void {
    const rel = offset - this.baseOffset;
    let n = this.count;
    while (n > 0 && BigInt(this.#relAt(n - 1)) >= rel) n--;
    this.truncateEntries(n);
  }

  /** Drops entries pointing at or beyond `position` (the `.log` was cut there). */
  truncateToPosition(position: number): void {
    this.truncateEntries(this.#countBelowPosition(position));
  }

  get lastOffset(): bigint {
    return this.count === 0 ? this.baseOffset : this.baseOffset + BigInt(this.#relAt(this.count - 1));
  }

  protected sane(segmentSize: number): boolean {
    let prevRel = -1;
    let prevPos = -1;
    for (let i = 0; i < this.count; i++) {
      const rel = this.#relAt(i);
      const pos = this.#posAt(i);
      if (rel <= prevRel || pos <= prevPos || pos >= segmentSize) return false;
      prevRel = rel;
      prevPos = pos;
    }
    return true;
  }
}
