// A network thread's request frames. Each frame has an ArrayBuffer of its own (never a slice of
// Node's shared 8 KiB pool), because the frame is transferred whole to the event loop, which
// detaches it here. A frame whose handler released it (Produce) comes back transferred with its
// outcome and is kept for the next frame of its size class, so a producer's large frames are
// copied into warm memory, as with the single-thread `BufferPool`.

import { BufferPool, sizeClass } from '../buffer-pool.js';

export class FramePool extends BufferPool {
  /** Idle buffers by class size. */
  readonly #free = new Map<number, ArrayBuffer[]>();
  #idle = 0;
  #usedSinceTrim = false;

  override get idleBytes(): number {
    return this.#idle;
  }

  override acquire(size: number): Buffer {
    this.#usedSinceTrim = true;
    const cls = sizeClass(size);
    const store = this.#free.get(cls)?.pop();
    if (store === undefined) return Buffer.allocUnsafeSlow(cls).subarray(0, size);
    this.#idle -= cls;
    return Buffer.from(store, 0, size);
  }

  /** A frame that was never handed over (its connection closed while reading it). */
  override release(frame: Buffer): void {
    if (frame.byteOffset === 0 && frame.buffer instanceof ArrayBuffer) this.adopt(frame.buffer);
  }

  /** A frame's buffer, back from the event loop: nothing references its bytes any more. */
  adopt(store: ArrayBuffer): void {
    const cls = store.byteLength;
    if (cls === 0 || cls !== sizeClass(cls) || cls > this.maxPooledBytes) return;
    if (this.#idle + cls > this.maxIdleBytes) return;
    let list = this.#free.get(cls);
    if (list === undefined) {
      list = [];
      this.#free.set(cls, list);
    }
    list.push(store);
    this.#idle += cls;
  }

  override trim(): void {
    if (!this.#usedSinceTrim) this.clear();
    this.#usedSinceTrim = false;
  }

  override clear(): void {
    this.#free.clear();
    this.#idle = 0;
  }
}
