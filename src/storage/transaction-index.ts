// `.txnindex`: the aborted transactions whose abort marker lies in this segment, Kafka's
// 34-byte entries (version int16 = 0, producerId int64, firstOffset int64, lastOffset int64,
// lastStableOffset int64). Read-committed fetches return the entries overlapping the fetched
// range so consumers can drop aborted records. Entries are appended to the file as markers are
// written (aborts are rare), so the file is as current as the `.log`.
import { promises as fsp } from 'node:fs';
import { readFileOrNull, writeFileAtomic } from './fs-util.js';

export interface AbortedTxnEntry {
  producerId: bigint;
  firstOffset: bigint;
  /** Offset of the abort marker. */
  lastOffset: bigint;
  lastStableOffset: bigint;
}

const ENTRY = 34;
const VERSION = 0;

function encode(entries: readonly AbortedTxnEntry[]): Buffer {
  const buf = Buffer.alloc(entries.length * ENTRY);
  entries.forEach((e, i) => {
    const at = i * ENTRY;
    buf.writeInt16BE(VERSION, at);
    buf.writeBigInt64BE(e.producerId, at + 2);
    buf.writeBigInt64BE(e.firstOffset, at + 10);
    buf.writeBigInt64BE(e.lastOffset, at + 18);
    buf.writeBigInt64BE(e.lastStableOffset, at + 26);
  });
  return buf;
}

export class TransactionIndex {
  path: string;
  #entries: AbortedTxnEntry[] = [];

  constructor(path: string) {
    this.path = path;
  }

  get entries(): readonly AbortedTxnEntry[] {
    return this.#entries;
  }

  /** Loads the file; false when it is corrupt (entries are then empty, to be rebuilt). */
  async load(): Promise<boolean> {
    const raw = await readFileOrNull(this.path);
    this.#entries = [];
    if (raw === null) return true;
    if (raw.length % ENTRY !== 0) return false;
    for (let at = 0; at < raw.length; at += ENTRY) {
      const e: AbortedTxnEntry = {
        producerId: raw.readBigInt64BE(at + 2),
        firstOffset: raw.readBigInt64BE(at + 10),
        lastOffset: raw.readBigInt64BE(at + 18),
        lastStableOffset: raw.readBigInt64BE(at + 26),
      };
      if (raw.readInt16BE(at) !== VERSION || e.firstOffset > e.lastOffset || e.firstOffset < 0n) {
        this.#entries = [];
        return false;
      }
      this.#entries.push(e);
    }
    return true;
  }

  async append(entry: AbortedTxnEntry): Promise<void> {
    this.#entries.push(entry);
    await fsp.appendFile(this.path, encode([entry]));
  }

  /**
   * Adds the entries overlapping [fetchOffset, upperBound) to `out`. Returns true when the search
   * is complete: an entry's marker was written when the LSO had already reached `upperBound`, so
   * every transaction overlapping the range was decided by then and later segments hold nothing
   * more for it.
   */
  collect(fetchOffset: bigint, upperBound: bigint, out: AbortedTxnEntry[]): boolean {
    for (const e of this.#entries) {
      if (e.lastOffset >= fetchOffset && e.firstOffset < upperBound) out.push(e);
      if (e.lastStableOffset >= upperBound) return true;
    }
    return false;
  }

  /** Removes entries whose marker is at or after `offset` (log truncation). */
  async truncateTo(offset: bigint): Promise<void> {
    const kept = this.#entries.filter((e) => e.lastOffset < offset);
    if (kept.length === this.#entries.length) return;
    this.#entries = kept;
    await this.rewrite();
  }

  async reset(entries: AbortedTxnEntry[] = []): Promise<void> {
    this.#entries = entries;
    await this.rewrite();
  }

  async rewrite(): Promise<void> {
    if (this.#entries.length === 0) {
      await fsp.rm(this.path, { force: true });
      return;
    }
    await writeFileAtomic(this.path, encode(this.#entries), false);
  }
}
