// In-memory copies of the most recently written batches of each log, so that consumers and
// followers at the tail are served without a file read. One global byte budget over all logs,
// oldest copies overwritten first; a log's entries are always a contiguous run of its newest
// batches.
//
// The cache owns what it holds: batches are copied, never referenced, so the buffer an append
// came from (a network frame) can be reused as soon as the append has completed. Copies go into
// one ring-shaped arena of `maxBytes`, allocated once: appending then costs a memcpy, not a fresh
// allocation (whose page faults and GC cost more than the write itself for 64 KiB batches). The
// arena's order is the eviction order. Since arena bytes are reused, reads always copy out.
// Only batches up to `maxCopyBytes` are cached; a larger one clears the log's entries instead
// (they must stay contiguous) and is read back from the page cache like everything older.
//
// Every small append adds an entry, so entries are not objects but rows of a ring of numbers
// per log. An object per entry lived as long as the arena holds it (~60,000 of them for 1 KiB
// batches), so each one was copied by two scavenges and promoted: more than the memcpy of the
// batch. Nor is there a global FIFO evicting other logs' entries as the arena wraps (a cache miss
// in another log's list per append): positions in the arena are absolute (laps × size + offset)
// and only grow, so a copy is intact while it starts at or after `next - maxBytes`, and each log
// drops its overwritten oldest entries itself when it next adds or reads.

/**
 * Default largest batch the cache copies. Copying costs about as much as the write itself for
 * large batches, and a large batch read back from the page cache is one cheap `fs.read`.
 */
export const DEFAULT_TAIL_COPY_BYTES = 16 * 1024;

/** Offsets are kept as doubles, exact up to 2^53; a batch beyond (no log gets there) is not cached. */
const MAX_CACHED_OFFSET = BigInt(Number.MAX_SAFE_INTEGER);

export class TailCacheBudget {
  readonly maxBytes: number;
  readonly maxCopyBytes: number;
  #arena: Buffer | null = null;
  /** Absolute position of the next copy; copies starting before `next - maxBytes` are overwritten. */
  #next = 0;

  constructor(maxBytes: number, maxCopyBytes: number = DEFAULT_TAIL_COPY_BYTES) {
    this.maxBytes = Math.max(0, Math.floor(maxBytes));
    this.maxCopyBytes = Math.min(maxCopyBytes, Math.floor(this.maxBytes / 8));
  }

  /** The arena (allocated on first use); entries index into it. */
  get arena(): Buffer {
    this.#arena ??= Buffer.allocUnsafeSlow(this.maxBytes);
    return this.#arena;
  }

  /** Absolute start of the oldest copy that may still be intact. */
  get liveFrom(): number {
    return this.#next - this.maxBytes;
  }

  /** Copies `src` into the arena and returns the copy's absolute start (offset: start % maxBytes). */
  add(src: Buffer): number {
    const size = this.maxBytes;
    let start = this.#next;
    const offset = start % size;
    if (offset + src.length > size) start += size - offset; // wrap: skip the tail gap
    this.arena.set(src, start % size); // TypedArray#set: no view allocated per copy, unlike Buffer#copy
    this.#next = start + src.length;
    return start;
  }
}

// A log's entries: rows of FIELDS numbers in a ring, oldest first, in a plain array (its
// numbers unboxed, as in a typed array, but without a typed array's ~200 bytes of objects and
// off-heap store: 10,000 partitions each hold a few entries).
const FIELDS = 4;
const BASE = 0; // base offset
const LAST = 1; // last offset
const START = 2; // absolute arena start
const LENGTH = 3;

export class TailCache {
  readonly #budget: TailCacheBudget;
  #rows: number[] = [];
  /** Ring capacity in entries (rows.length / FIELDS). */
  #capacity = 0;
  #head = 0;
  #count = 0;

  constructor(budget: TailCacheBudget) {
    this.#budget = budget;
  }

  /** Entries held (whose bytes are intact). */
  get size(): number {
    this.#dropOverwritten();
    return this.#count;
  }

  /** Index into the rows of the `i`-th entry from the oldest. */
  #row(i: number): number {
    const slot = this.#head + i;
    return (slot >= this.#capacity ? slot - this.#capacity : slot) * FIELDS;
  }

  /**
   * Adds (a copy of) a batch just written; it must directly follow the previous one. The
   * cache never keeps a reference to `buf`.
   */
  add(buf: Buffer, baseOffset: bigint, lastOffset: bigint): void {
    if (this.#budget.maxBytes <= 0) return;
    if (buf.length > this.#budget.maxCopyBytes || lastOffset > MAX_CACHED_OFFSET) {
      this.clear();
      return;
    }
    const start = this.#budget.add(buf);
    this.#dropOverwritten();
    if (this.#count === this.#capacity) this.#grow();
    const r = this.#row(this.#count);
    const rows = this.#rows;
    rows[r + BASE] = Number(baseOffset);
    rows[r + LAST] = Number(lastOffset);
    rows[r + START] = start;
    rows[r + LENGTH] = buf.length;
    this.#count++;
  }

  #grow(): void {
    const capacity = Math.max(2, this.#capacity * 2);
    // Built by pushes, so that the array stays packed (`new Array(n)` is holey, and from ~100,000
    // elements a dictionary).
    const rows: number[] = [];
    for (let i = 0; i < this.#count; i++) {
      const from = this.#row(i);
      for (let f = 0; f < FIELDS; f++) rows.push(this.#rows[from + f]!);
    }
    while (rows.length < capacity * FIELDS) rows.push(0);
    this.#rows = rows;
    this.#capacity = capacity;
    this.#head = 0;
  }

  #dropFirst(): void {
    this.#head = this.#head + 1 === this.#capacity ? 0 : this.#head + 1;
    if (--this.#count === 0) this.#head = 0;
  }

  /** Drops the oldest entries whose arena bytes later copies (of any log) overwrote. */
  #dropOverwritten(): void {
    const live = this.#budget.liveFrom;
    while (this.#count > 0 && this.#rows[this.#row(0) + START]! < live) this.#dropFirst();
  }

  /** Forgets entries below `offset` (their segment is no longer active). */
  dropBelow(offset: bigint): void {
    const below = Number(offset);
    while (this.#count > 0 && this.#rows[this.#row(0) + LAST]! < below) this.#dropFirst();
  }

  /** Forgets every entry (their arena bytes are reclaimed as the arena wraps). */
  clear(): void {
    this.#count = 0;
    this.#head = 0;
  }

  /**
   * Serves a read from memory when the batch containing `fetchOffset` is cached: whole batches
   * with last offset below `upperBound`, within `maxBytes` (at least one if `minOneBatch`),
   * copied into a fresh buffer. Returns null when the cache does not cover `fetchOffset`.
   */
  read(
    fetchOffset: bigint,
    maxBytes: number,
    upperBound: bigint,
    minOneBatch: boolean,
    allocate?: (size: number) => Buffer,
  ): Buffer | null {
    this.#dropOverwritten();
    const rows = this.#rows;
    const fetch = Number(fetchOffset);
    if (this.#count === 0 || fetch < rows[this.#row(0) + BASE]!) return null;
    // Offsets beyond 2^53 cannot be in the cache, and compare right as doubles below it.
    const bound = upperBound > MAX_CACHED_OFFSET ? Number.MAX_VALUE : Number(upperBound);
    let lo = 0;
    let hi = this.#count - 1;
    let first = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (rows[this.#row(mid) + LAST]! >= fetch) {
        first = mid;
        hi = mid - 1;
      } else lo = mid + 1;
    }
    if (first < 0) return null;
    let bytes = 0;
    let end = first;
    while (end < this.#count) {
      const r = this.#row(end);
      if (rows[r + LAST]! >= bound) break;
      const length = rows[r + LENGTH]!;
      if (bytes + length > maxBytes && !(bytes === 0 && minOneBatch)) break;
      bytes += length;
      end++;
    }
    if (end === first) return Buffer.alloc(0);
    const out = allocate ? allocate(bytes) : Buffer.allocUnsafeSlow(bytes);
    const arena = this.#budget.arena;
    const size = this.#budget.maxBytes;
    let at = 0;
    for (let i = first; i < end; i++) {
      const r = this.#row(i);
      const from = rows[r + START]! % size;
      const length = rows[r + LENGTH]!;
      arena.copy(out, at, from, from + length);
      at += length;
    }
    return out;
  }
}
