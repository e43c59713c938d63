// In-memory copies of the most recently written batches of each log, so that consumers and
// followers at the tail are served without a file read. One global byte budget, evicted
// oldest-first across all logs; a log's entries are always a contiguous run of its newest
// written batches.
//
// The cache owns what it holds: batches are copied, never referenced, so the buffer an append
// came from (a network frame) can be reused as soon as the append has completed. Only batches up
// to `maxCopyBytes` are cached: copying small batches is cheap and they are where a file read
// per fetch would hurt most; a large batch clears the log's entries instead (they must stay
// contiguous) and is read back from the page cache like everything older.

interface TailEntry {
  baseOffset: bigint;
  lastOffset: bigint;
  buf: Buffer;
  cost: number;
}

/** Default largest batch the cache copies. */
export const DEFAULT_TAIL_COPY_BYTES = 64 * 1024;
/** Bookkeeping per entry (objects, buffer header), counted against the budget. */
const ENTRY_OVERHEAD = 128;

export class TailCacheBudget {
  readonly maxBytes: number;
  readonly maxCopyBytes: number;
  used = 0;
  #fifo: { cache: TailCache; entry: TailEntry }[] = [];
  #head = 0;

  constructor(maxBytes: number, maxCopyBytes: number = DEFAULT_TAIL_COPY_BYTES) {
    this.maxBytes = maxBytes;
    this.maxCopyBytes = Math.min(maxCopyBytes, Math.floor(maxBytes / 8));
  }

  add(cache: TailCache, entry: TailEntry): void {
    this.used += entry.cost;
    this.#fifo.push({ cache, entry });
    while (this.used > this.maxBytes && this.#head < this.#fifo.length) {
      const old = this.#fifo[this.#head]!;
      this.#fifo[this.#head++] = undefined as never;
      if (old.cache.evictIfFirst(old.entry)) this.used -= old.entry.cost;
    }
    if (this.#head > 1024 && this.#head * 2 > this.#fifo.length) {
      this.#fifo = this.#fifo.slice(this.#head);
      this.#head = 0;
    }
  }

  release(cost: number): void {
    this.used -= cost;
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
    const copy = Buffer.allocUnsafe(buf.length);
    buf.copy(copy);
    const entry = { baseOffset, lastOffset, buf: copy, cost: buf.length + ENTRY_OVERHEAD };
    this.#entries.push(entry);
    this.#budget.add(this, entry);
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

  /** Forgets entries below `offset` (their segment is no longer active) or all of them. */
  dropBelow(offset: bigint): void {
    while (this.#head < this.#entries.length && this.#entries[this.#head]!.lastOffset < offset) {
      this.#budget.release(this.#entries[this.#head]!.cost);
      this.#entries[this.#head++] = undefined as never;
    }
    if (this.#head === this.#entries.length) {
      this.#entries = [];
      this.#head = 0;
    }
  }

  clear(): void {
    for (let i = this.#head; i < this.#entries.length; i++) this.#budget.release(this.#entries[i]!.cost);
    this.#entries = [];
    this.#head = 0;
  }

  /**
   * Serves a read from memory when the batch containing `fetchOffset` is cached: whole batches
   * with last offset below `upperBound`, within `maxBytes` (at least one if `minOneBatch`).
   * Returns null when the cache does not cover `fetchOffset`.
   */
  read(fetchOffset: bigint, maxBytes: number, upperBound: bigint, minOneBatch: boolean): Buffer | null {
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
      if (bytes + e.buf.length > maxBytes && !(bytes === 0 && minOneBatch)) break;
      bytes += e.buf.length;
      end++;
    }
    if (end === first) return Buffer.alloc(0);
    if (end === first + 1) return entries[first]!.buf;
    const out = Buffer.allocUnsafeSlow(bytes);
    let at = 0;
    for (let i = first; i < end; i++) {
      entries[i]!.buf.copy(out, at);
      at += entries[i]!.buf.length;
    }
    return out;
  }
}
