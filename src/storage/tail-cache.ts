// In-memory copies of the most recently written batches of each log, so that consumers and
// followers at the tail are served without a file read. One global byte budget over all logs,
// evicted oldest-first; a log's entries are always a contiguous run of its newest batches.
//
// The cache owns what it holds: batches are copied, never referenced, so the buffer an append
// came from (a network frame) can be reused as soon as the append has completed. Copies go into
// one ring-shaped arena of `maxBytes`, allocated once: appending then costs a memcpy, not a fresh
// allocation (whose page faults and GC cost more than the write itself for 64 KiB batches). The
// arena's FIFO order is the eviction order. Since arena bytes are reused, reads always copy out.
// Only batches up to `maxCopyBytes` are cached; a larger one clears the log's entries instead
// (they must stay contiguous) and is read back from the page cache like everything older.

interface TailEntry {
  /** The log's cache holding it (the budget evicts across logs). */
  owner: TailCache;
  baseOffset: bigint;
  lastOffset: bigint;
  /** Arena offset and length of the bytes; valid while the entry is live. */
  at: number;
  length: number;
  /** Absolute arena position of the first byte (laps × size + offset). */
  start: number;
}

/**
 * Default largest batch the cache copies. Copying costs about as much as the write itself for
 * large batches, and a large batch read back from the page cache is one cheap `fs.read`.
 */
export const DEFAULT_TAIL_COPY_BYTES = 16 * 1024;

export class TailCacheBudget {
  readonly maxBytes: number;
  readonly maxCopyBytes: number;
  #arena: Buffer | null = null;
  /** Absolute position of the next allocation; entries live in [next - maxBytes, next). */
  #next = 0;
  #fifo: TailEntry[] = [];
  #head = 0;

  constructor(maxBytes: number, maxCopyBytes: number = DEFAULT_TAIL_COPY_BYTES) {
    this.maxBytes = Math.max(0, Math.floor(maxBytes));
    this.maxCopyBytes = Math.min(maxCopyBytes, Math.floor(this.maxBytes / 8));
  }

  /** Bytes of the arena in use by live and not yet reclaimed entries. */
  get used(): number {
    const head = this.#fifo[this.#head];
    return head === undefined ? 0 : this.#next - head.start;
  }

  /** The arena (allocated on first use); entries index into it. */
  get arena(): Buffer {
    this.#arena ??= Buffer.allocUnsafeSlow(this.maxBytes);
    return this.#arena;
  }

  /** Copies `src` into the arena for `cache`, evicting the oldest entries it overwrites. */
  add(cache: TailCache, src: Buffer, baseOffset: bigint, lastOffset: bigint): TailEntry {
    const size = this.maxBytes;
    const arena = this.arena;
    let start = this.#next;
    if ((start % size) + src.length > size) start += size - (start % size); // wrap: skip the tail gap
    const end = start + src.length;
    while (this.#head < this.#fifo.length && this.#fifo[this.#head]!.start < end - size) {
      const old = this.#fifo[this.#head]!;
      this.#fifo[this.#head++] = undefined as never;
      old.owner.evictIfFirst(old);
    }
    if (this.#head > 1024 && this.#head * 2 > this.#fifo.length) {
      this.#fifo = this.#fifo.slice(this.#head);
      this.#head = 0;
    }
    const at = start % size;
    arena.set(src, at); // TypedArray#set: no view allocated per copy, unlike Buffer#copy
    const entry: TailEntry = { owner: cache, baseOffset, lastOffset, at, length: src.length, start };
    this.#fifo.push(entry);
    this.#next = end;
    return entry;
  }
}

export class TailCache {
  readonly #budget: TailCacheBudget;
  #entries: TailEntry[] = [];
  #head = 0;

  constructor(budget: TailCacheBudget) {
    this.#budget = budget;
  }

  get size(): number {
    return this.#entries.length - this.#head;
  }

  /**
   * Adds (a copy of) a batch just written; it must directly follow the previous one. The
   * cache never keeps a reference to `buf`.
   */
  add(buf: Buffer, baseOffset: bigint, lastOffset: bigint): void {
    if (this.#budget.maxBytes <= 0) return;
    if (buf.length > this.#budget.maxCopyBytes) {
      this.clear();
      return;
    }
    this.#entries.push(this.#budget.add(this, buf, baseOffset, lastOffset));
  }

  /** Budget eviction: drops `entry` if it is still this cache's oldest. */
  evictIfFirst(entry: TailEntry): boolean {
    if (this.#entries[this.#head] !== entry) return false;
    this.#entries[this.#head++] = undefined as never;
    if (this.#head === this.#entries.length) {
      this.#entries = [];
      this.#head = 0;
    }
    return true;
  }

  /** Forgets entries below `offset` (their segment is no longer active). */
  dropBelow(offset: bigint): void {
    while (this.#head < this.#entries.length && this.#entries[this.#head]!.lastOffset < offset) {
      this.#entries[this.#head++] = undefined as never;
    }
    if (this.#head === this.#entries.length) {
      this.#entries = [];
      this.#head = 0;
    }
  }

  /** Forgets every entry (their arena bytes are reclaimed as the arena wraps). */
  clear(): void {
    this.#entries = [];
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
    const entries = this.#entries;
    if (this.#head >= entries.length || fetchOffset < entries[this.#head]!.baseOffset) return null;
    let lo = this.#head;
    let hi = entries.length - 1;
    let first = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (entries[mid]!.lastOffset >= fetchOffset) {
        first = mid;
        hi = mid - 1;
      } else lo = mid + 1;
    }
    if (first < 0) return null;
    let bytes = 0;
    let end = first;
    while (end < entries.length) {
      const e = entries[end]!;
      if (e.lastOffset >= upperBound) break;
      if (bytes + e.length > maxBytes && !(bytes === 0 && minOneBatch)) break;
      bytes += e.length;
      end++;
    }
    if (end === first) return Buffer.alloc(0);
    const out = allocate ? allocate(bytes) : Buffer.allocUnsafeSlow(bytes);
    const arena = this.#budget.arena;
    let at = 0;
    for (let i = first; i < end; i++) {
      const e = entries[i]!;
      arena.copy(out, at, e.at, e.at + e.length);
      at += e.length;
    }
    return out;
  }
}
