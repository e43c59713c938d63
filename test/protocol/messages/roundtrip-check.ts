// Shared round-trip check: write a sample value, read it back, compare with what the schema says
// must come back, check field order, and check write(read(x)) is byte-identical.

import assert from 'node:assert/strict';
import { Reader } from '../../../src/protocol/primitives/reader.js';
import { Writer } from '../../../src/protocol/primitives/writer.js';
import type { MessageSpec } from '../../../tools/gen-protocol/schema.js';
import { buildStruct, expected, fieldOrderProblems, type Obj, Rng, type Variant } from './sample-values.js';

export type WriteFn = (w: Writer, v: number, value: never) => void;
export type ReadFn = (r: Reader, v: number) => unknown;

const VARIANTS: Variant[] = ['minimal', 'rich', 'random', 'random', 'random'];

export function roundTrip(m: MessageSpec, v: number, write: WriteFn, read: ReadFn, seed: number): number {
  let checked = 0;
  const rng = new Rng(seed);
  for (const variant of VARIANTS) {
    const value = buildStruct(m, m.root, v, variant, rng);
    const where = `${m.name} v${v} ${variant}`;
    const w = new Writer(64);
    write(w, v, value as never);
    const bytes = w.toBuffer();
    assert.equal(w.length, bytes.length, `${where}: Writer.length`);
    const r = new Reader(bytes);
    const back = read(r, v) as Obj;
    assert.equal(r.remaining, 0, `${where}: bytes left after read`);
    assert.deepStrictEqual(back, expected(m.root, v, value), where);
    assert.deepStrictEqual(fieldOrderProblems(m.root, back), [], where);
    const w2 = new Writer();
    write(w2, v, back as never);
    assert.ok(w2.toBuffer().equals(bytes), `${where}: write(read(x)) differs`);
    checked++;
  }
  return checked;
}
