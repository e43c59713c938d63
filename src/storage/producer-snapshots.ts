// The `.snapshot` files of one partition: producer state at a segment boundary, written when a
// segment rolls and at clean shutdown, so that recovery replays only the batches after the
// newest usable snapshot instead of the whole log.
import { promises as fsp } from 'node:fs';
import { join } from 'node:path';
import { offsetName, SNAPSHOT_SUFFIX } from './file-names.js';
import { readFileOrNull, writeFileAtomic } from './fs-util.js';
import { decodeSnapshot, type SnapshotEntry } from './producer-snapshot.js';

export class ProducerSnapshots {
  readonly #dir: string;
  /** Offsets of the snapshot files on disk, ascending. */
  #offsets: bigint[];

  constructor(dir: string, offsets: readonly bigint[]) {
    this.#dir = dir;
    this.#offsets = [...offsets].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  }

  get offsets(): readonly bigint[] {
    return this.#offsets;
  }

  #path(offset: bigint): string {
    return join(this.#dir, offsetName(offset) + SNAPSHOT_SUFFIX);
  }

  has(offset: bigint): boolean {
    return this.#offsets.includes(offset);
  }

  async write(offset: bigint, data: Buffer, sync: boolean): Promise<void> {
    await writeFileAtomic(this.#path(offset), data, sync);
    if (!this.#offsets.includes(offset)) {
      this.#offsets.push(offset);
      this.#offsets.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    }
  }

  /**
   * The newest snapshot at or below `maxOffset` that decodes; corrupt ones are deleted on the
   * way (recovery then replays more of the log instead).
   */
  async readLatest(maxOffset: bigint): Promise<{ offset: bigint; entries: SnapshotEntry[] } | null> {
    for (let i = this.#offsets.length - 1; i >= 0; i--) {
      const offset = this.#offsets[i]!;
      if (offset > maxOffset) continue;
      const raw = await readFileOrNull(this.#path(offset));
      const entries = raw === null ? null : decodeSnapshot(raw);
      if (entries !== null) return { offset, entries };
      await this.#delete(offset);
    }
    return null;
  }

  async #delete(offset: bigint): Promise<void> {
    this.#offsets = this.#offsets.filter((o) => o !== offset);
    await fsp.rm(this.#path(offset), { force: true });
  }

  /** Removes snapshots strictly below `offset` except the newest of them (still a valid base). */
  async deleteBelow(offset: bigint): Promise<void> {
    const below = this.#offsets.filter((o) => o < offset);
    for (const o of below.slice(0, -1)) await this.#delete(o);
  }

  /** Removes snapshots above `offset` (after truncation they describe data that is gone). */
  async deleteAbove(offset: bigint): Promise<void> {
    for (const o of this.#offsets.filter((x) => x > offset)) await this.#delete(o);
  }

  async deleteAll(): Promise<void> {
    for (const o of [...this.#offsets]) await this.#delete(o);
  }
}
