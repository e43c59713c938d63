// Leader epoch → first offset written in that epoch (Kafka's LeaderEpochFileCache), persisted
// in the partition's `leader-epoch-checkpoint`. Followers use `endOffsetFor` (OffsetForLeaderEpoch)
// to find where their log diverges from the leader's and truncate there.
import { type EpochEntry, readEpochCheckpoint, writeEpochCheckpoint } from './checkpoint-file.js';
import type { EpochEndOffset } from './types.js';

export const UNDEFINED_EPOCH = -1;
export const UNDEFINED_EPOCH_OFFSET = -1n;

export class LeaderEpochCache {
  readonly #path: string;
  #entries: EpochEntry[];
  /** Serialises file writes; each write persists the state at the time it runs. */
  #writing: Promise<void> = Promise.resolve();
  #dirty = false;

  private constructor(path: string, entries: EpochEntry[]) {
    this.#path = path;
    this.#entries = entries;
  }

  /** Loads the checkpoint; `corrupt` tells the caller to rebuild the cache from the batches. */
  static async load(path: string): Promise<{ cache: LeaderEpochCache; corrupt: boolean }> {
    const entries = await readEpochCheckpoint(path);
    return { cache: new LeaderEpochCache(path, entries ?? []), corrupt: entries === null };
  }

  static empty(path: string): LeaderEpochCache {
    return new LeaderEpochCache(path, []);
  }

  get entries(): readonly EpochEntry[] {
    return this.#entries;
  }

  get latestEpoch(): number {
    const entries = this.#entries;
    return entries.length === 0 ? UNDEFINED_EPOCH : entries[entries.length - 1]!.epoch;
  }

  get isEmpty(): boolean {
    return this.#entries.length === 0;
  }

  /**
   * Records that `epoch` starts at `startOffset` (called for each batch whose epoch is newer
   * than the latest). Entries that the new one contradicts (same or later start offset, or
   * later epoch) are dropped, as Kafka does. Returns true when the cache changed.
   */
  assign(epoch: number, startOffset: bigint): boolean {
    if (epoch < 0) return false;
    const last = this.#entries.at(-1);
    if (last !== undefined && last.epoch === epoch) return false;
    if (last !== undefined && epoch < last.epoch && startOffset >= last.startOffset) return false;
    this.#entries = this.#entries.filter((e) => e.epoch < epoch && e.startOffset < startOffset);
    this.#entries.push({ epoch, startOffset });
    this.#dirty = true;
    return true;
  }

  /**
   * OffsetForLeaderEpoch: the end offset of `epoch` is the start offset of the first epoch
   * above it, or the log end offset for the latest epoch; (-1, -1) when `epoch` is newer than
   * anything known. An epoch older than the first one answers with that first start offset.
   */
  endOffsetFor(epoch: number, logEndOffset: bigint): EpochEndOffset {
    const entries = this.#entries;
    if (epoch === UNDEFINED_EPOCH || entries.length === 0) {
      return { leaderEpoch: UNDEFINED_EPOCH, endOffset: UNDEFINED_EPOCH_OFFSET };
    }
    if (epoch === this.latestEpoch) return { leaderEpoch: epoch, endOffset: logEndOffset };
    let floor: EpochEntry | undefined;
    for (const e of entries) {
      if (e.epoch > epoch) {
        return floor === undefined
          ? { leaderEpoch: epoch, endOffset: e.startOffset }
          : { leaderEpoch: floor.epoch, endOffset: e.startOffset };
      }
      floor = e;
    }
    return { leaderEpoch: UNDEFINED_EPOCH, endOffset: UNDEFINED_EPOCH_OFFSET };
  }

  /** Epoch of the batch containing `offset`, or -1 when it precedes every entry. */
  epochForOffset(offset: bigint): number {
    let found = UNDEFINED_EPOCH;
    for (const e of this.#entries) {
      if (e.startOffset > offset) break;
      found = e.epoch;
    }
    return found;
  }

  /** Truncation of the log to `endOffset`: forget epochs that start at or after it. */
  truncateFromEnd(endOffset: bigint): void {
    const kept = this.#entries.filter((e) => e.startOffset < endOffset);
    if (kept.length !== this.#entries.length) {
      this.#entries = kept;
      this.#dirty = true;
    }
  }

  /**
   * The log start moved to `startOffset`: drop epochs that end before it and move the start of
   * the one containing it up to `startOffset`.
   */
  truncateFromStart(startOffset: bigint): void {
    let i = 0;
    while (i + 1 < this.#entries.length && this.#entries[i + 1]!.startOffset <= startOffset) i++;
    const first = this.#entries[i];
    if (first === undefined || (i === 0 && first.startOffset >= startOffset)) return;
    this.#entries = [
      { epoch: first.epoch, startOffset: first.startOffset < startOffset ? startOffset : first.startOffset },
      ...this.#entries.slice(i + 1),
    ];
    this.#dirty = true;
  }

  clear(): void {
    if (this.#entries.length === 0) return;
    this.#entries = [];
    this.#dirty = true;
  }

  /**
   * Persists the cache if it changed since the last write. With `syncDir: false` the caller
   * fsyncs the directory itself. Resolves true when a file was written.
   */
  async flush(syncDir = true): Promise<boolean> {
    if (!this.#dirty) {
      await this.#writing;
      return false;
    }
    this.#dirty = false;
    const snapshot = this.#entries.slice();
    const mode = syncDir ? true : 'file';
    this.#writing = this.#writing.then(
      () => writeEpochCheckpoint(this.#path, snapshot, mode),
      () => writeEpochCheckpoint(this.#path, snapshot, mode),
    );
    await this.#writing;
    return true;
  }
}
