// A bounded LRU of open file descriptors shared by every segment of every log, so that 10,000+
// partitions (each with several segments) never exhaust the process's descriptor limit. Files
// are opened lazily on first use; an fd that is in use (pinned by a read or write in flight) is
// never closed under its user.
import { closeFd, openFd } from './fs-util.js';

/**
 * Identity of a file in the cache. The path may change (rename to `.deleted`, swap after
 * cleaning) while the descriptor stays valid, so entries are keyed by this object.
 */
export class FileRef {
  constructor(public path: string) {}
}

interface Entry {
  fd: number;
  opening: Promise<number> | null;
  pins: number;
  /** Close as soon as the last user releases it (file deleted/renamed away). */
  doomed: boolean;
}

export class FileHandleCache {
  readonly #max: number;
  readonly #entries = new Map<FileRef, Entry>();

  constructor(maxOpen: number) {
    this.#max = Math.max(2, maxOpen);
  }

  get openCount(): number {
    return this.#entries.size;
  }

  /**
   * Pins the descriptor of `ref` (opened read-write on first use) and returns it; synchronously
   * when it is already open. Every acquire must be paired with `release(ref)`.
   */
  acquire(path: FileRef): number | Promise<number> {
    let e = this.#entries.get(path);
    if (e !== undefined) {
      this.#entries.delete(path);
      this.#entries.set(path, e);
      e.pins++;
      return e.opening ?? e.fd;
    }
    const entry: Entry = { fd: -1, opening: null, pins: 1, doomed: false };
    entry.opening = openFd(path.path, 'r+').then(
      (fd) => {
        entry.fd = fd;
        entry.opening = null;
        return fd;
      },
      (err: unknown) => {
        if (this.#entries.get(path) === entry) this.#entries.delete(path);
        throw err;
      },
    );
    e = entry;
    this.#entries.set(path, e);
    this.#evict();
    return e.opening!;
  }

  release(path: FileRef): void {
    const e = this.#entries.get(path);
    if (e === undefined) return;
    e.pins--;
    if (e.pins <= 0 && e.doomed) this.#close(path, e);
    else if (this.#entries.size > this.#max) this.#evict();
  }

  /** Runs `fn` with the pinned descriptor of `ref`. */
  async with<T>(path: FileRef, fn: (fd: number) => Promise<T>): Promise<T> {
    const fd = await this.acquire(path);
    try {
      return await fn(fd);
    } finally {
      this.release(path);
    }
  }

  /** Registers a descriptor the caller opened itself (a file just created). */
  adopt(path: FileRef, fd: number): void {
    const old = this.#entries.get(path);
    if (old !== undefined) this.#close(path, old);
    this.#entries.set(path, { fd, opening: null, pins: 0, doomed: false });
    this.#evict();
  }

  /** Closes the descriptor of `ref` now, or when its last user releases it. */
  forget(path: FileRef): void {
    const e = this.#entries.get(path);
    if (e === undefined) return;
    if (e.pins > 0) e.doomed = true;
    else this.#close(path, e);
  }

  async closeAll(): Promise<void> {
    const all = [...this.#entries.entries()];
    this.#entries.clear();
    await Promise.all(
      all.map(async ([, e]) => {
        const fd = e.opening ? await e.opening.catch(() => -1) : e.fd;
        if (fd >= 0) await closeFd(fd).catch(() => undefined);
      }),
    );
  }

  #evict(): void {
    if (this.#entries.size <= this.#max) return;
    for (const [path, e] of this.#entries) {
      if (this.#entries.size <= this.#max) break;
      if (e.pins === 0 && e.opening === null) this.#close(path, e);
    }
  }

  #close(path: FileRef, e: Entry): void {
    if (this.#entries.get(path) === e) this.#entries.delete(path);
    const fd = e.fd;
    if (e.opening !== null) {
      e.opening
        .then(
          (f) => closeFd(f),
          () => undefined,
        )
        .catch(() => undefined);
    } else if (fd >= 0) {
      closeFd(fd).catch(() => undefined);
    }
  }
}
