// Test helper: pulls the record batch out of the golden Produce v7 request frames that
// tools/capture-golden captured from real clients (test/fixtures/golden/). Parsed by hand so
// that these tests do not depend on the generated request codecs.
import { readFileSync } from 'node:fs';
import { repoFile } from '../../support/repo.js';

export function goldenFrame(file: string): Buffer {
  return readFileSync(repoFile(`test/fixtures/golden/${file}`));
}

/** Records field of the single partition of a Produce v3-v8 request frame (size-prefixed). */
export function produceRecords(frame: Buffer): Buffer {
  let p = 4 + 8; // size, api key, api version, correlation id
  p += 2 + Math.max(frame.readInt16BE(p), 0); // client id
  p += 2 + Math.max(frame.readInt16BE(p), 0); // transactional id
  p += 2 + 4 + 4; // acks, timeout, topic count
  p += 2 + frame.readInt16BE(p); // topic name
  p += 4 + 4; // partition count, partition index
  const size = frame.readInt32BE(p);
  return frame.subarray(p + 4, p + 4 + size);
}

/** The values kcat sent in tools/capture-golden/clients.ts (repeated here independently). */
export function kcatGoldenValue(i: number): string {
  return `value-${i} ${'the quick brown fox jumps over the lazy dog '.repeat(8).trim()}`;
}
