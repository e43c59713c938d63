// The journal of the local store (`samsa-metadata.journal` beside the snapshot): one JSON line per
// durable write, holding what changed since the line before — the topics written (whole: their
// assignment and every partition state), the topics gone, the config entities changed, and the
// small parts in full (scalars, pending deletions). An append and one fdatasync make a change
// durable, so a write costs what it changes, not the size of the whole state: rewriting the
// snapshot per change made creating topics one by one quadratic and cost two fsyncs per write.
//
// Each line carries a sequence number; the snapshot names the last one it holds, so a crash
// between a snapshot rewrite and the journal's truncation replays nothing twice. A crash during
// an append leaves a torn last line: it was never acknowledged, and is cut off at start.

import { type FileHandle, open } from 'node:fs/promises';
import { dirname } from 'node:path';
import {
  aclsFromFile,
  applyScalars,
  arr,
  corrupt,
  type FileTopic,
  FormatError,
  int,
  isObject,
  scalarsToFile,
  str,
  stringRecord,
  topicFromFile,
  topicToFile,
} from './local-store-file.js';
import type { DurableState } from './memory-state.js';
import type { VersionedAcls } from './records.js';

export const JOURNAL_FILE = 'samsa-metadata.journal';

/** What one journal line holds. */
interface JournalEntry extends ReturnType<typeof scalarsToFile> {
  seq: number;
  topics: FileTopic[];
  removedTopics: string[];
  /** Changed config entities by their `configKey`; null: the entity has no overrides left. */
  configs: Record<string, Record<string, string> | null>;
  pendingDeletions: string[];
  /** Changed ACL resources by `aclKey`; null: the resource has no ACLs left. Absent before ACLs. */
  acls?: Record<string, VersionedAcls | null>;
}

/**
 * The journal line taking `before` to `after` (two snapshots of the ensemble's state). The
 * ensemble replaces assignments, partition states and config records on change rather than
 * mutating them, so comparing references finds every change.
 */
export function journalLine(seq: number, before: DurableState, after: DurableState): string {
  const entry: JournalEntry = {
    seq,
    ...scalarsToFile(after),
    topics: [],
    removedTopics: [],
    configs: {},
    pendingDeletions: [...after.deletions],
  };
  for (const [name, t] of after.topics) {
    const old = before.topics.get(name);
    if (old === undefined || old.assignment !== t.assignment || old.states.size !== t.states.size) {
      entry.topics.push(topicToFile(t));
      continue;
    }
    for (const [p, st] of t.states) {
      if (old.states.get(p) !== st) {
        entry.topics.push(topicToFile(t));
        break;
      }
    }
  }
  for (const name of before.topics.keys()) if (!after.topics.has(name)) entry.removedTopics.push(name);
  for (const [key, value] of after.configs)
    if (before.configs.get(key) !== value) entry.configs[key] = { ...value };
  for (const key of before.configs.keys()) if (!after.configs.has(key)) entry.configs[key] = null;
  const acls: Record<string, VersionedAcls | null> = {};
  for (const [key, value] of after.acls) if (before.acls.get(key) !== value) acls[key] = value;
  for (const key of before.acls.keys()) if (!after.acls.has(key)) acls[key] = null;
  if (Object.keys(acls).length > 0) entry.acls = acls;
  return `${JSON.stringify(entry)}\n`;
}

/** Applies one parsed journal line to `s`. Throws FormatError. */
function applyEntry(s: DurableState, o: Record<string, unknown>): void {
  applyScalars(s, o);
  for (const t of arr(o['topics'], 'topics')) {
    const topic = topicFromFile(t);
    s.topics.set(topic.assignment.name, topic);
  }
  for (const name of arr(o['removedTopics'], 'removedTopics')) s.topics.delete(str(name, 'removed topic'));
  const configs = o['configs'];
  if (!isObject(configs)) throw new FormatError('configs is not an object');
  for (const [key, value] of Object.entries(configs)) {
    if (value === null) s.configs.delete(key);
    else s.configs.set(key, stringRecord(value, `${key} configs`));
  }
  s.deletions.clear();
  for (const d of arr(o['pendingDeletions'], 'pendingDeletions')) s.deletions.add(str(d, 'pending deletion'));
  const acls = o['acls'] ?? {};
  if (!isObject(acls)) throw new FormatError('acls is not an object');
  for (const [key, value] of Object.entries(acls)) {
    if (value === null) s.acls.delete(key);
    else s.acls.set(key, aclsFromFile(value));
  }
}

/**
 * Replays the journal at `path` onto `state` (which holds every entry up to `afterSeq`). Returns
 * the last sequence number applied and the length of the intact part: a torn last line — an
 * append a crash interrupted, never acknowledged — is left out. A damaged line before the last,
 * or a gap in the sequence, is CORRUPT.
 */
export function replayJournal(
  text: string,
  path: string,
  state: DurableState,
  afterSeq: number,
): { lastSeq: number; intactBytes: number } {
  let lastSeq = afterSeq;
  let offset = 0;
  while (offset < text.length) {
    const end = text.indexOf('\n', offset);
    if (end < 0) break;
    const line = text.slice(offset, end);
    let entry: Record<string, unknown> | null = null;
    try {
      const parsed: unknown = JSON.parse(line);
      if (isObject(parsed)) entry = parsed;
    } catch {
      // Decided below: torn if it is the last line.
    }
    if (entry === null) {
      if (text.indexOf('\n', end + 1) < 0) break;
      throw corrupt(path, `line at byte ${offset} is not a JSON object`);
    }
    try {
      const seq = int(entry['seq'], 'seq');
      if (seq > afterSeq) {
        if (seq !== lastSeq + 1) throw new FormatError(`entry ${seq} follows ${lastSeq}`);
        applyEntry(state, entry);
        lastSeq = seq;
      }
    } catch (e) {
      if (e instanceof FormatError) throw corrupt(path, e.message);
      throw e;
    }
    offset = end + 1;
  }
  return { lastSeq, intactBytes: Buffer.byteLength(text.slice(0, offset)) };
}

/** The open journal: appends made durable one fdatasync each. */
export class JournalWriter {
  #fh: FileHandle;
  #bytes: number;

  private constructor(fh: FileHandle, bytes: number) {
    this.#fh = fh;
    this.#bytes = bytes;
  }

  /** Opens (creating) the journal and cuts it to `intactBytes` (dropping a torn last line). */
  static async open(path: string, intactBytes: number): Promise<JournalWriter> {
    const fh = await open(path, 'a+');
    try {
      const { size } = await fh.stat();
      if (size > intactBytes) {
        await fh.truncate(intactBytes);
        await fh.datasync();
      }
      // The file's own creation must survive a power loss too.
      const dir = await open(dirname(path), 'r');
      try {
        await dir.sync();
      } finally {
        await dir.close();
      }
      return new JournalWriter(fh, Math.min(size, intactBytes));
    } catch (e) {
      await fh.close();
      throw e;
    }
  }

  get bytes(): number {
    return this.#bytes;
  }

  async append(line: string): Promise<void> {
    const data = Buffer.from(line);
    await this.#fh.write(data);
    await this.#fh.datasync();
    this.#bytes += data.length;
  }

  /** Empties the journal once a snapshot holds all of it. */
  async clear(): Promise<void> {
    await this.#fh.truncate(0);
    await this.#fh.datasync();
    this.#bytes = 0;
  }

  close(): Promise<void> {
    return this.#fh.close();
  }
}
