// The write queue of a log and the per-turn start of every log's writes (`local-log.ts` runs
// them). A log's queue holds, in write order, groups of batches to write, segment rolls and
// tasks that must run at that point of the order (producer snapshots); one op runs at a time.
import type { LogSegment, PlacedBatch } from './log-segment.js';
import { writeWorker } from './write-worker.js';

/**
 * Consecutive batches of one segment that go to disk together with one (p)writev, and settle
 * together: the appends awaiting them (`whenLastAppendWritten`) are settled in one pass.
 * One group per append in the common case (an append awaited before the next), so it allocates
 * as little as it can: its batch list starts with its first batch, and the promise of an append
 * settles through its `PlacedBatch`.
 */
export interface WriteGroup {
  kind: 'batch';
  segment: LogSegment;
  batches: PlacedBatch[];
  bytes: number;
  records: number;
  /**
   * Run in order after the write (e.g. the `.txnindex` entry of an abort marker); null when
   * there are none, so ordinary appends cost no extra await.
   */
  after: ((segment: LogSegment) => Promise<void>)[] | null;
}

export interface RollOp {
  kind: 'roll';
  previous: LogSegment;
  next: LogSegment;
}

/** Work that must happen at this point of the write order (e.g. a producer snapshot). */
export interface TaskOp {
  kind: 'task';
  run: () => Promise<void>;
}

export type Op = WriteGroup | RollOp | TaskOp;

// A promise's settle functions without a closure per promise.
let settleResolve: (value: unknown) => void = () => undefined;
let settleReject: (err: unknown) => void = () => undefined;
function captureSettlers(resolve: (value: unknown) => void, reject: (err: unknown) => void): void {
  settleResolve = resolve;
  settleReject = reject;
}

/**
 * A promise for the last batch of `group`, resolved with `value` once the group is written
 * (`resolveGroup`), rejected if it fails: one promise per append that asks, none for the others.
 */
export function settleLast<T>(group: WriteGroup, value: T): Promise<T> {
  const promise = new Promise<T>(captureSettlers as never);
  const placed = group.batches[group.batches.length - 1]!;
  placed.resolve = settleResolve;
  placed.reject = settleReject;
  placed.value = value;
  return promise;
}

export function resolveGroup(group: WriteGroup): void {
  const batches = group.batches;
  for (let i = 0; i < batches.length; i++) {
    const b = batches[i]!;
    if (b.resolve !== null) b.resolve(b.value);
  }
}

export function rejectGroup(group: WriteGroup, err: unknown): void {
  const batches = group.batches;
  for (let i = 0; i < batches.length; i++) batches[i]!.reject?.(err);
}

/** What the scheduler starts: a log's queue, up to its first write. */
export interface WriteStarter {
  /** `stage`: small writes may go through the write worker (several logs write this turn). */
  startWrites(stage: boolean): void;
}

// Writes start once per event-loop turn, for every log at once (after the turn's I/O callbacks:
// the check phase). The appends of a turn (a Produce request's partitions, or the next appends
// that completed writes released) then reach the write worker together, one wake-up for all of
// them (`write-worker.ts`), or libuv's thread pool back to back, instead of one at a time
// between stretches of JavaScript, each waking an idle thread (a futex wake and often a context
// switch, which cost the main thread more than the write itself). Appends that arrive meanwhile
// for the same segment join the pending group.
let ready: WriteStarter[] = [];
let submitScheduled = false;

function submitReady(): void {
  submitScheduled = false;
  const logs = ready;
  ready = [];
  // The worker pays off when it takes several writes per wake-up; a lone write (one partition
  // appending, each append awaited) costs the same hops either way and goes to the thread pool.
  if (logs.length === 1) logs[0]!.startWrites(false);
  else writeWorker().batch(() => startAll(logs));
}

function startAll(logs: WriteStarter[]): void {
  for (let i = 0; i < logs.length; i++) logs[i]!.startWrites(true);
}

/** Starts `log`'s writes at the end of this event-loop turn, with every other log's. */
export function scheduleWrites(log: WriteStarter): void {
  ready.push(log);
  if (!submitScheduled) {
    submitScheduled = true;
    setImmediate(submitReady);
  }
}

/**
 * The ops of one log in write order: a plain array with a head index, emptied by resetting both
 * ends (`shift()` would trim the array's storage and the next push allocate it again, for every
 * append).
 */
export class OpQueue {
  #ops: (Op | undefined)[] = [];
  #head = 0;
  #end = 0;

  get size(): number {
    return this.#end - this.#head;
  }

  push(op: Op): void {
    this.#ops[this.#end++] = op;
  }

  shift(): Op | undefined {
    if (this.#head === this.#end) return undefined;
    const op = this.#ops[this.#head]!;
    this.#ops[this.#head++] = undefined;
    if (this.#head === this.#end) this.#head = this.#end = 0;
    return op;
  }
}
