// Kafka's text checkpoint files: a version line ("0"), an entry count, then one entry per line
// with space-separated fields. Used for the per-log-dir offset checkpoints
// (`recovery-point-offset-checkpoint`, `log-start-offset-checkpoint`,
// `replication-offset-checkpoint`, `cleaner-offset-checkpoint`) and each partition's
// `leader-epoch-checkpoint`. Writes are atomic (tmp + fsync + rename); a file that fails to
// parse is reported as corrupt (null) so callers fall back to recovery, never to guesses.
import { readFileOrNull, type SyncMode, writeFileAtomic } from './fs-util.js';

const VERSION = 0;
const INT64 = /^-?\d{1,19}$/;
const INT32 = /^-?\d{1,10}$/;

/** Splits a checkpoint body into entry lines; null when the header or count is wrong. */
function entryLines(text: string): string[][] | null {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  if (lines.length < 2 || lines[0]!.trim() !== String(VERSION)) return null;
  const countText = lines[1]!.trim();
  if (!/^\d{1,9}$/.test(countText)) return null;
  const count = Number(countText);
  if (lines.length !== count + 2) return null;
  return lines.slice(2).map((l) => l.trim().split(/\s+/));
}

function parseInt64(s: string | undefined): bigint | null {
  if (s === undefined || !INT64.test(s)) return null;
  const v = BigInt(s);
  return v >= -(2n ** 63n) && v < 2n ** 63n ? v : null;
}

function parseInt32(s: string | undefined): number | null {
  if (s === undefined || !INT32.test(s)) return null;
  const v = Number(s);
  return v >= -(2 ** 31) && v < 2 ** 31 ? v : null;
}

export function partitionKey(topic: string, partition: number): string {
  return `${topic}\u0000${partition}`;
}

/**
 * `topic partition offset` entries, keyed by `partitionKey`. Returns an empty map when the
 * file does not exist and null when it exists but is corrupt.
 */
export async function readOffsetCheckpoint(path: string): Promise<Map<string, bigint> | null> {
  const raw = await readFileOrNull(path);
  if (raw === null) return new Map();
  const lines = entryLines(raw.toString('utf8'));
  if (lines === null) return null;
  const out = new Map<string, bigint>();
  for (const fields of lines) {
    if (fields.length !== 3) return null;
    const partition = parseInt32(fields[1]);
    const offset = parseInt64(fields[2]);
    if (partition === null || partition < 0 || offset === null || fields[0] === '') return null;
    out.set(partitionKey(fields[0]!, partition), offset);
  }
  return out;
}

export interface OffsetCheckpointEntry {
  topic: string;
  partition: number;
  offset: bigint;
}

export function formatOffsetCheckpoint(entries: readonly OffsetCheckpointEntry[]): string {
  let s = `${VERSION}\n${entries.length}\n`;
  for (const e of entries) s += `${e.topic} ${e.partition} ${e.offset}\n`;
  return s;
}

export function writeOffsetCheckpoint(
  path: string,
  entries: readonly OffsetCheckpointEntry[],
): Promise<void> {
  return writeFileAtomic(path, formatOffsetCheckpoint(entries));
}

export interface EpochEntry {
  epoch: number;
  startOffset: bigint;
}

/** `leader-epoch-checkpoint`: `epoch startOffset` lines. Empty when missing, null when corrupt. */
export async function readEpochCheckpoint(path: string): Promise<EpochEntry[] | null> {
  const raw = await readFileOrNull(path);
  if (raw === null) return [];
  const lines = entryLines(raw.toString('utf8'));
  if (lines === null) return null;
  const out: EpochEntry[] = [];
  for (const fields of lines) {
    if (fields.length !== 2) return null;
    const epoch = parseInt32(fields[0]);
    const startOffset = parseInt64(fields[1]);
    if (epoch === null || epoch < 0 || startOffset === null || startOffset < 0n) return null;
    const prev = out.at(-1);
    // Entries must grow in both epoch and start offset; anything else is corruption.
    if (prev !== undefined && (epoch <= prev.epoch || startOffset < prev.startOffset)) return null;
    out.push({ epoch, startOffset });
  }
  return out;
}

export function writeEpochCheckpoint(
  path: string,
  entries: readonly EpochEntry[],
  sync: SyncMode = true,
): Promise<void> {
  let s = `${VERSION}\n${entries.length}\n`;
  for (const e of entries) s += `${e.epoch} ${e.startOffset}\n`;
  return writeFileAtomic(path, s, sync);
}
