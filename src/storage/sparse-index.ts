// Shared machinery of the `.index` and `.timeindex` files: fixed-size big-endian entries kept
// in a growable in-memory buffer, loaded lazily from disk and written back whole when the
// segment rolls or the log closes. Node cannot mmap, so unlike Kafka the active segment's
// index is not in the page cache after a process crash; recovery rebuilds it from the `.log`
// (the active segment is always past the recovery point, so it is scanned anyway).
import { closeFd, fsyncFd, openFd, readFileOrNull, writeAt } from './fs-util.js';

export abstract class SparseIndex {
  path: string;
  readonly baseOffset: bigint;
  readonly entrySize: number;
  /** Entries beyond this make the index full (segment.index.bytes), which forces a roll. */
  readonly maxEntries: number;
  protected buf: Buffer;
  protected count = 0;
  /** The in-memory entries differ from the file. */
  #dirty = false;

  protected constructor(path: string, baseOffset: bigint, entrySize: number, maxIndexBytes: number) {
    this.path = path;
    this.baseOffset = baseOffset;
    this.entrySize = entrySize;
    this.maxEntries = Math.max(1, Math.floor(maxIndexBytes / entrySize));
    this.buf = Buffer.alloc(0);
  }

  get entries(): number {
    return this.count;
  }

  get isFull(): boolean {
    return this.count >= this.maxEntries;
  }

  get sizeInBytes(): number {
    return this.count * this.entrySize;
  }

  /** Checks the loaded entries; false makes the caller rebuild the index from the log. */
  protected abstract sane(segmentSize: number): boolean;

  /**
   * Loads the file. Returns false when it is missing, has a partial entry, or fails the sanity
   * check; the index is then empty and must be rebuilt.
   */
  async load(segmentSize: number): Promise<boolean> {
    const raw = await readFileOrNull(this.path);
    if (raw === null || raw.length % this.entrySize !== 0 || raw.length / this.entrySize > this.maxEntries) {
      this.reset();
      return false;
    }
    // Do not keep a mostly empty read buffer alive for the life of the segment.
    this.buf = raw.length * 2 < raw.buffer.byteLength ? Buffer.from(raw) : raw;
    this.count = raw.length / this.entrySize;
    if (!this.sane(segmentSize)) {
      this.reset();
      return false;
    }
    this.#dirty = false;
    return true;
  }

  reset(): void {
    this.buf = Buffer.alloc(0);
    this.count = 0;
    this.#dirty = true;
  }

  /** Room for one more entry; grows by doubling. */
  protected slot(): number {
    const at = this.count * this.entrySize;
    if (at + this.entrySize > this.buf.length) {
      const next = Buffer.alloc(Math.max(this.entrySize * 16, this.buf.length * 2));
      this.buf.copy(next, 0, 0, at);
      this.buf = next;
    }
    this.count++;
    this.#dirty = true;
    return at;
  }

  /** Keeps the first `n` entries. */
  protected truncateEntries(n: number): void {
    if (n < this.count) {
      this.count = Math.max(0, n);
      this.#dirty = true;
    }
  }

  /** Index of the last entry whose key (read by `keyAt`) is ≤ `target`, or -1. */
  protected floorIndex(target: number, keyAt: (i: number) => number): number {
    let lo = 0;
    let hi = this.count - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (keyAt(mid) <= target) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found;
  }

  /** Writes the whole index to its file if it changed (segment roll, clean shutdown). */
  async persist(sync: boolean): Promise<void> {
    if (!this.#dirty) return;
    this.#dirty = false;
    const fd = await openFd(this.path, 'w');
    try {
      await writeAt(fd, this.buf.subarray(0, this.count * this.entrySize), 0);
      // An empty index needs no durability: missing or empty, it is rebuilt the same way.
      if (sync && this.count > 0) await fsyncFd(fd);
    } catch (err) {
      this.#dirty = true;
      throw err;
    } finally {
      await closeFd(fd);
    }
  }

  markDirty(): void {
    this.#dirty = true;
  }

  markClean(): void {
    this.#dirty = false;
  }
}
