// Reusable receive buffers for large request frames. A 1 MB produce request copied into a fresh
// allocation costs the page faults of 256 new pages (kernel zeroing included) and a GC-tracked
// external allocation; the same copy into a warm, recycled buffer is a plain memcpy. Profiles
// of the broker under a librdkafka producer showed that copy as over half of its CPU time.
//
// Buffers come in size classes (eight per power of two, so a frame wastes at most 1/8 of its
// class), frames are subarrays of a class buffer. A frame goes back to the pool only when its
// request handler declared that nothing keeps a reference to the request's bytes once it has
// finished (see `ApiHandler.releasesRequest`); other frames are simply left to the GC. Idle
// buffers are capped in total and dropped after a period without demand, so a burst does not pin
// memory for ever.

/** Frames below this size are not pooled (Node's allocator serves them cheaply). */
export const DEFAULT_MIN_POOLED_BYTES = 64 * 1024;
/** Frames above this size are not pooled (rare; not worth keeping idle). */
export const DEFAULT_MAX_POOLED_BYTES = 16 * 1024 * 1024;
export const DEFAULT_MAX_IDLE_BYTES = 32 * 1024 * 1024;
/** Idle buffers unused for a whole period are released. */
export const DEFAULT_TRIM_INTERVAL_MS = 30_000;

export interface BufferPoolOptions {
  readonly minPooledBytes?: number;
  readonly maxPooledBytes?: number;
  readonly maxIdleBytes?: number;
  readonly trimIntervalMs?: number;
  /**
   * Pooled buffers live in SharedArrayBuffers: network threads write a response that references
   * them (a fetch read) without a copy (`threads/remote-connections.ts`).
   */
  readonly shared?: boolean;
}

/**
 * The class size for `n` bytes: eight classes per power of two, so `n` is rounded up by less
 * than 1/8 of itself.
 */
export function sizeClass(n: number): number {
  if (n <= 16) return 16;
  const bits = 32 - Math.clz32(n - 1); // 2^(bits-1) < n <= 2^bits
  const step = 2 ** (bits - 4);
  return Math.ceil(n / step) * step;
}

export class BufferPool {
  readonly minPooledBytes: number;
  readonly maxPooledBytes: number;
  readonly maxIdleBytes: number;
  private readonly shared: boolean;
  /** Idle buffers by class size. */
  private readonly free = new Map<number, Buffer[]>();
  /** Backing stores handed out and not yet returned: guards against double or foreign release. */
  private readonly lent = new WeakSet<ArrayBufferLike>();
  private idle = 0;
  private usedSinceTrim = false;
  private readonly timer: NodeJS.Timeout | null;

  constructor(opts: BufferPoolOptions = {}) {
    this.minPooledBytes = opts.minPooledBytes ?? DEFAULT_MIN_POOLED_BYTES;
    this.maxPooledBytes = opts.maxPooledBytes ?? DEFAULT_MAX_POOLED_BYTES;
    this.maxIdleBytes = opts.maxIdleBytes ?? DEFAULT_MAX_IDLE_BYTES;
    this.shared = opts.shared === true;
    const every = opts.trimIntervalMs ?? DEFAULT_TRIM_INTERVAL_MS;
    this.timer = every > 0 ? setInterval(() => this.trim(), every) : null;
    this.timer?.unref();
  }

  /** Bytes held by idle buffers. */
  get idleBytes(): number {
    return this.idle;
  }

  /** A buffer of exactly `size` bytes with unspecified content. */
  acquire(size: number): Buffer {
    if (size < this.minPooledBytes || size > this.maxPooledBytes) return Buffer.allocUnsafe(size);
    this.usedSinceTrim = true;
    const cls = sizeClass(size);
    const list = this.free.get(cls);
    let whole = list?.pop();
    if (whole !== undefined) this.idle -= cls;
    // Slow: a buffer of its own, never a slice of Node's shared pool.
    else whole = this.shared ? Buffer.from(new SharedArrayBuffer(cls)) : Buffer.allocUnsafeSlow(cls);
    this.lent.add(whole.buffer);
    return whole.subarray(0, size);
  }

  /**
   * Returns a frame obtained from `acquire`. The caller guarantees that nothing reads or keeps
   * the frame's bytes any more. Frames that were not pooled, or are already back, are ignored.
   */
  release(frame: Buffer): void {
    const store = frame.buffer;
    if (!this.lent.has(store)) return;
    this.lent.delete(store);
    const cls = store.byteLength;
    if (this.idle + cls > this.maxIdleBytes) return;
    let list = this.free.get(cls);
    if (list === undefined) {
      list = [];
      this.free.set(cls, list);
    }
    list.push(Buffer.from(store, 0, cls));
    this.idle += cls;
  }

  /** Drops every idle buffer if nothing was acquired since the previous trim. */
  trim(): void {
    if (!this.usedSinceTrim) this.clear();
    this.usedSinceTrim = false;
  }

  clear(): void {
    this.free.clear();
    this.idle = 0;
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.clear();
  }
}
