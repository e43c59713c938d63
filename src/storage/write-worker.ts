// Small segment writes go to disk through one worker thread, many per wake-up, instead of one
// libuv thread-pool request each. A thread-pool write costs the main thread ~10 µs whatever its
// size (request object, queue lock, waking a pool thread, the completion callback and its
// microtask checkpoint), which with many partitions appending small batches is most of an
// append's cost. Here the main thread copies the bytes into a shared ring and writes a command
// (fd, ring offset, length, file position); once per event-loop turn it publishes them with a
// single `Atomics.notify`; the worker `pwrite`s every command it finds and answers with one
// message per `REPORT_EVERY` writes. The logs stage writes only when several of them start one
// in the same turn (`local-log.ts`): a lone write gains nothing from the hand-over.
//
// Only the way the bytes reach the kernel changes: a write completes (and its append may be
// acknowledged) once `pwrite` returned, as with `fs.write`. Writes larger than
// `STAGED_WRITE_MAX_BYTES`, writes while the ring or the command slots are full, and every write
// before the worker is online or after it died go through `fs.write` as before. If the worker
// exits, the writes it had not confirmed are issued again through `fs.write` from the ring
// (rewriting the same bytes at the same position is harmless).
import { Worker } from 'node:worker_threads';
import { writeFully } from './fs-util.js';

/** Writes (groups of batches) up to this size are staged; larger ones need no copy. */
export const STAGED_WRITE_MAX_BYTES = 32 * 1024;
const RING_BYTES = 4 * 1024 * 1024;
const SLOTS = 4096; // a power of two: slot = sequence & (SLOTS - 1)
const FIELDS = 4; // fd, ring offset, length, file position
const REPORT_EVERY = 16;

// Plain CommonJS, evaluated as the worker's script: runs the same from the sources (tsx) and
// from dist/. Sequence numbers are int32 counters that wrap.
const WORKER_SOURCE = `'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const { writeSync } = require('node:fs');
const control = new Int32Array(workerData.control);
const commands = new Float64Array(workerData.commands);
const ring = Buffer.from(workerData.ring);
let done = 0;
let failures = null;
let unreported = 0;
const report = () => {
  parentPort.postMessage(failures === null ? done : { done, failures });
  failures = null;
  unreported = 0;
};
for (;;) {
  Atomics.wait(control, 0, done);
  while (done !== Atomics.load(control, 0)) {
    const at = (done & ${SLOTS - 1}) * ${FIELDS};
    const fd = commands[at];
    let offset = commands[at + 1];
    let length = commands[at + 2];
    let position = commands[at + 3];
    try {
      while (length > 0) {
        const n = writeSync(fd, ring, offset, length, position);
        if (n <= 0) throw Object.assign(new Error('pwrite wrote nothing'), { code: 'EIO' });
        offset += n;
        length -= n;
        position += n;
      }
    } catch (err) {
      (failures ??= []).push([done, String(err.code ?? 'EIO'), String(err.message)]);
    }
    done = (done + 1) | 0;
    // Report in slices, so that the main thread works on the first completions (and queues
    // the next writes) while this thread writes the rest.
    if (++unreported === ${REPORT_EVERY}) report();
  }
  if (unreported > 0) report();
}
`;

type Done = (err: Error | null) => void;
type Failure = [seq: number, code: string, message: string];

class WriteWorker {
  #worker: Worker | null = null;
  #online = false;
  #dead = false;
  readonly #control = new Int32Array(new SharedArrayBuffer(4));
  readonly #commands = new Float64Array(new SharedArrayBuffer(SLOTS * FIELDS * 8));
  readonly #ring = Buffer.from(new SharedArrayBuffer(RING_BYTES));
  readonly #callbacks: (Done | undefined)[] = new Array(SLOTS);
  /** Absolute ring position (laps × size + offset) where each slot's bytes start. */
  readonly #starts = new Float64Array(SLOTS);
  /** Next sequence number to hand out; `#published` is what the worker has been told. */
  #next = 0;
  #published = 0;
  /** Oldest sequence not yet confirmed. */
  #oldest = 0;
  #inFlight = 0;
  /** Absolute ring position of the next allocation. */
  #ringNext = 0;
  #publishQueued = false;
  #batching = false;
  #onlineWaiters: ((online: boolean) => void)[] = [];
  /** Writes that went through the worker (the others went through the thread pool). */
  staged = 0;
  /** Times the worker was woken (publications that found it asleep; a measure for benchmarks). */
  wakeups = 0;

  /**
   * Takes a copy of `bufs` (`bytes` in all) to be written at `position` of `fd`, and calls
   * `done` once written. Returns false, taking nothing, when the caller must write itself.
   */
  tryWrite(fd: number, bufs: readonly Buffer[], bytes: number, position: number, done: Done): boolean {
    if (!this.#online) {
      this.#start();
      return false;
    }
    if (bytes > STAGED_WRITE_MAX_BYTES || this.#inFlight >= SLOTS) return false;
    // Bytes go where they share the source's alignment to 8: V8 copies into shared memory word
    // by word only then (byte by byte otherwise, 3-4 times slower for 1 KiB).
    const align = bufs[0]!.byteOffset & 7;
    let start = this.#ringNext + ((align - this.#ringNext) & 7);
    const offset = start % RING_BYTES;
    if (offset + bytes > RING_BYTES) start += RING_BYTES - offset + align; // no write wraps around
    if (this.#inFlight > 0 && start + bytes > this.#starts[this.#oldest & (SLOTS - 1)]! + RING_BYTES)
      return false; // would overwrite bytes not yet written
    let at = start % RING_BYTES;
    const ringOffset = at;
    for (let i = 0; i < bufs.length; i++) {
      this.#ring.set(bufs[i]!, at);
      at += bufs[i]!.length;
    }
    this.#ringNext = start + bytes;
    const seq = this.#next;
    const slot = seq & (SLOTS - 1);
    const c = slot * FIELDS;
    this.#commands[c] = fd;
    this.#commands[c + 1] = ringOffset;
    this.#commands[c + 2] = bytes;
    this.#commands[c + 3] = position;
    this.#starts[slot] = start;
    this.#callbacks[slot] = done;
    this.#next = (seq + 1) | 0;
    this.staged++;
    if (this.#inFlight++ === 0) this.#worker!.ref();
    if (!this.#publishQueued && !this.#batching) {
      this.#publishQueued = true;
      // Once the current run of appends is over: one wake-up for all of them.
      queueMicrotask(this.#publish);
    }
    return true;
  }

  /**
   * Runs `fn`, which stages writes, and tells the worker about all of them once it returned
   * (the per-turn submission of the logs' writes: cheaper than a microtask per turn).
   */
  batch(fn: () => void): void {
    this.#batching = true;
    try {
      fn();
    } finally {
      this.#batching = false;
      this.#publish();
    }
  }

  readonly #publish = (): void => {
    this.#publishQueued = false;
    if (this.#dead || this.#published === this.#next) return;
    this.#published = this.#next;
    Atomics.store(this.#control, 0, this.#next);
    this.wakeups += Atomics.notify(this.#control, 0);
  };

  #start(): void {
    if (this.#worker !== null || this.#dead) return;
    let worker: Worker;
    try {
      worker = this.#spawn();
    } catch {
      this.#dead = true; // no threads here (resource limits): the thread pool does it all
      return;
    }
    this.#worker = worker;
    worker.on('online', () => {
      if (!this.#dead) this.#online = true;
      if (this.#onlineWaiters.length > 0 && this.#inFlight === 0) worker.unref();
      for (const w of this.#onlineWaiters.splice(0)) w(this.#online);
    });
    worker.on('message', (m: number | { done: number; failures: Failure[] }) => this.#confirm(m));
    // An 'error' is followed by 'exit'; the listener keeps it from being an uncaught exception.
    worker.on('error', () => undefined);
    worker.on('exit', () => this.#onExit());
    // Only writes in flight keep the process alive (after the listeners: a 'message' listener
    // refs the worker's port).
    worker.unref();
  }

  /** Starts the worker if needed; resolves once it takes writes (false: it never will). */
  ready(): Promise<boolean> {
    this.#start();
    if (this.#online || this.#dead) return Promise.resolve(this.#online);
    this.#worker?.ref(); // someone waits for it: the process must not exit meanwhile
    return new Promise((resolve) => this.#onlineWaiters.push(resolve));
  }

  #spawn(): Worker {
    return new Worker(WORKER_SOURCE, {
      eval: true,
      execArgv: [],
      workerData: {
        control: this.#control.buffer,
        commands: this.#commands.buffer,
        ring: this.#ring.buffer,
      },
      resourceLimits: { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 4 },
    });
  }

  #confirm(m: number | { done: number; failures: Failure[] }): void {
    let done: number;
    let failed: Map<number, Error> | null = null;
    if (typeof m === 'number') done = m;
    else {
      done = m.done;
      failed = new Map(
        m.failures.map(([seq, code, message]) => [seq, Object.assign(new Error(message), { code })]),
      );
    }
    let thrown: unknown = null;
    while (this.#oldest !== done && this.#inFlight > 0) {
      const seq = this.#oldest;
      const slot = seq & (SLOTS - 1);
      const cb = this.#callbacks[slot]!;
      this.#callbacks[slot] = undefined;
      this.#oldest = (seq + 1) | 0;
      if (--this.#inFlight === 0) this.#worker?.unref();
      try {
        cb(failed?.get(seq) ?? null);
      } catch (err) {
        // A throwing callback is a bug, but must not leave the other writes unconfirmed.
        thrown ??= err;
      }
    }
    if (thrown !== null) throw thrown;
  }

  /** The worker is gone: what it did not confirm is written again through the thread pool. */
  #onExit(): void {
    this.#dead = true;
    this.#online = false;
    this.#worker = null;
    for (const w of this.#onlineWaiters.splice(0)) w(false);
    while (this.#inFlight > 0) {
      const slot = this.#oldest & (SLOTS - 1);
      const cb = this.#callbacks[slot]!;
      const c = slot * FIELDS;
      const fd = this.#commands[c]!;
      const offset = this.#commands[c + 1]!;
      const length = this.#commands[c + 2]!;
      const position = this.#commands[c + 3]!;
      this.#callbacks[slot] = undefined;
      this.#oldest = (this.#oldest + 1) | 0;
      this.#inFlight--;
      // The ring is not reused any more, so the bytes stay put until written.
      writeFully(fd, this.#ring.subarray(offset, offset + length), position, cb);
    }
  }

  /** Stops the worker (tests: the fallback and the re-issue of unconfirmed writes). */
  async terminate(): Promise<void> {
    const worker = this.#worker;
    this.#dead = true;
    this.#online = false;
    if (worker !== null) await worker.terminate();
  }
}

let shared: WriteWorker | null = null;

/** The process's write worker, shared by every log (started on first use). */
export function writeWorker(): WriteWorker {
  shared ??= new WriteWorker();
  return shared;
}

/** Stops the shared worker and forgets it: the next write starts a new one (tests). */
export async function restartWriteWorker(): Promise<void> {
  const old = shared;
  shared = null;
  await old?.terminate();
}
