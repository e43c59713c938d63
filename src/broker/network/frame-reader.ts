// Request framing for one connection: `int32 size` + `size` bytes, from whatever the socket read.
//
// Bytes arrive two ways. Normally the socket reads into a buffer this reader chooses
// (`readTarget`, see `socket-reads.ts`): the unfilled tail of a large frame being received, so the
// kernel copies the bytes straight into the frame the handler will get, or else a staging buffer
// shared by every connection of the thread, from which each frame is copied once into a buffer of
// its own before the read returns (so the staging buffer can serve the next read of any
// connection). Otherwise (TLS, or a Node without the hook) the socket's own chunks are `push`ed.
//
// A size is judged before any of its body is buffered (`FrameSink.refuse`), and a frame's buffer
// exists only once the memory budget admitted it (`FrameSink.admit`). While it does not, the bytes
// already read are held (copied: a read buffer is not ours to keep) and the socket is paused by
// the connection; `resume` goes on from there.

/** Where frames go, and who decides whether they may be buffered. */
export interface FrameSink {
  /** Why a frame of `size` bytes may not be received (the connection then closes), or null. */
  refuse(size: number): string | null;
  /**
   * A buffer of exactly `size` bytes once the memory budget admits the frame; null = not now:
   * the reader holds its input until `resume` is called.
   */
  admit(size: number): Buffer | null;
  /** A refused size: nothing more is read. */
  reject(reason: string): void;
  /** A complete frame, in arrival order. */
  frame(frame: Buffer): void;
}

/** Reads go straight into a frame when at least this much of it is missing. */
export const DIRECT_READ_MIN = 32 * 1024;
/** The staging buffer's size: what libuv asks for by default. */
export const STAGING_BYTES = 64 * 1024;

let staging: Buffer | null = null;

/**
 * The staging buffer of this thread. Shared by all connections: a read into it is consumed
 * (copied into frames, or held) before the read callback returns, and JavaScript runs one
 * callback at a time.
 */
function stagingBuffer(): Buffer {
  staging ??= Buffer.allocUnsafeSlow(STAGING_BYTES);
  return staging;
}

export class FrameReader {
  /** The frame being filled, once admitted. */
  private frame: Buffer | null = null;
  private filled = 0;
  /** Size of the frame being received, or -1 while its size prefix is incomplete. */
  private size = -1;
  /** A size prefix split between two reads. */
  private readonly prefix = Buffer.alloc(4);
  private prefixFilled = 0;
  /** Input read while the memory budget held the next frame back (a copy). */
  private held: Buffer | null = null;
  /** What `readTarget` returned, when it was part of `frame`. */
  private direct: Buffer | null = null;
  private stopped = false;

  constructor(private readonly sink: FrameSink) {}

  /** True when no frame is partly received and no input waits: the connection is quiet. */
  get idle(): boolean {
    return this.size < 0 && this.prefixFilled === 0 && this.held === null;
  }

  /** Waiting for the memory budget. */
  get blocked(): boolean {
    return this.held !== null;
  }

  /** Where the next socket read should go (see the file comment). */
  readTarget(): Buffer {
    const frame = this.frame;
    if (frame !== null && this.held === null && frame.length - this.filled >= DIRECT_READ_MIN) {
      this.direct = frame.subarray(this.filled);
      return this.direct;
    }
    this.direct = null;
    return stagingBuffer();
  }

  /** `n` bytes were read into `target`, a buffer `readTarget` returned. */
  read(n: number, target: Buffer): void {
    if (this.stopped) return;
    if (this.direct === null || target !== this.direct) {
      this.push(target, 0, n);
      return;
    }
    this.direct = null;
    this.filled += n;
    if (this.filled === this.size) this.complete();
  }

  /** Bytes the reader may not keep: what it needs is copied before this returns. */
  push(buf: Buffer, start: number, end: number): void {
    if (this.stopped || start >= end) return;
    if (this.held !== null) {
      this.held = Buffer.concat([this.held, buf.subarray(start, end)]);
      return;
    }
    this.consume(buf, start, end);
  }

  /** Memory may be available again: takes up the held input. */
  resume(): void {
    const held = this.held;
    if (held === null || this.stopped) return;
    this.held = null;
    if (this.frame === null && this.size >= 0 && !this.admit()) {
      this.held = held;
      return;
    }
    this.consume(held, 0, held.length);
  }

  /**
   * Reads nothing more. Returns the size of the frame that was admitted and not completed, if any (its
   * memory is the caller's to release), and its buffer if nothing can write into it any more: a
   * frame the socket was last told to read into is left to the garbage collector, since the
   * socket may still read (into nowhere) after the connection closed.
   */
  stop(): { admitted: number; buffer: Buffer | null } | null {
    this.stopped = true;
    this.held = null;
    const frame = this.frame;
    this.frame = null;
    if (frame === null) return null;
    return { admitted: this.size, buffer: this.direct === null ? frame : null };
  }

  private consume(buf: Buffer, start: number, end: number): void {
    let pos = start;
    while (!this.stopped) {
      if (this.frame === null) {
        if (this.size < 0) {
          if (this.prefixFilled === 0 && end - pos >= 4) {
            this.size = buf.readInt32BE(pos);
            pos += 4;
          } else {
            const n = Math.min(4 - this.prefixFilled, end - pos);
            buf.copy(this.prefix, this.prefixFilled, pos, pos + n);
            this.prefixFilled += n;
            pos += n;
            if (this.prefixFilled < 4) return;
            this.prefixFilled = 0;
            this.size = this.prefix.readInt32BE(0);
          }
          const refused = this.sink.refuse(this.size);
          if (refused !== null) {
            this.stopped = true;
            this.sink.reject(refused);
            return;
          }
        }
        if (!this.admit()) {
          if (pos < end) this.held = Buffer.from(buf.subarray(pos, end));
          else this.held = Buffer.alloc(0);
          return;
        }
      }
      const frame = this.frame!;
      const n = Math.min(end - pos, this.size - this.filled);
      if (n > 0) {
        buf.copy(frame, this.filled, pos, pos + n);
        this.filled += n;
        pos += n;
      }
      if (this.filled < this.size) return;
      this.complete();
      if (pos >= end) return;
    }
  }

  private admit(): boolean {
    const frame = this.sink.admit(this.size);
    if (frame === null) return false;
    this.frame = frame;
    this.filled = 0;
    return true;
  }

  private complete(): void {
    const frame = this.frame!;
    this.frame = null;
    this.size = -1;
    this.sink.frame(frame);
  }
}
