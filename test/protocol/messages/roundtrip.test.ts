// Every API × every valid version × request and response: build sample values from the schema
// (minimal, rich and seeded random), write, read back, compare with what the schema says must come
// back (absent fields as defaults), check field order, and check write(read(x)) is byte-identical.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { API_BY_KEY } from '../../../src/protocol/messages/index.js';
import { Reader } from '../../../src/protocol/primitives/reader.js';
import { Writer } from '../../../src/protocol/primitives/writer.js';
import type { MessageSpec } from '../../../tools/gen-protocol/schema.js';
import { buildStruct, expected, fieldOrderProblems, type Obj, Rng, type Variant } from './sample-values.js';
import { loadApiSchemas, versionsOf } from './schemas.js';

type WriteFn = (w: Writer, v: number, value: never) => void;
type ReadFn = (r: Reader, v: number) => unknown;

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

test('API table matches the schemas', () => {
  const schemas = loadApiSchemas();
  assert.ok(schemas.length >= 80);
  for (const s of schemas) {
    const d = API_BY_KEY[s.key];
    assert.ok(d, `API ${s.key} missing`);
    assert.equal(d.name, s.name);
    assert.equal(d.minVersion, s.request.validVersions.lo);
    assert.equal(d.maxVersion, s.request.validVersions.hi);
    const flex = s.request.flexibleVersions;
    assert.equal(d.flexibleMinVersion, flex.lo <= flex.hi ? flex.lo : Number.POSITIVE_INFINITY);
  }
  assert.equal(API_BY_KEY.filter((d) => d !== undefined).length, schemas.length);
});

for (const api of loadApiSchemas()) {
  test(`round trip ${api.name} (key ${api.key}) every version`, () => {
    const d = API_BY_KEY[api.key]!;
    let n = 0;
    for (const v of versionsOf(api.request)) {
      n += roundTrip(api.request, v, d.writeRequest as WriteFn, d.readRequest, api.key * 1000 + v);
      n += roundTrip(api.response, v, d.writeResponse as WriteFn, d.readResponse, api.key * 1000 + 500 + v);
    }
    assert.ok(n > 0);
    // One past the range is refused in both directions.
    const bad = api.request.validVersions.hi + 1;
    assert.throws(() => d.readRequest(new Reader(Buffer.alloc(64)), bad), {
      name: 'DecodeError',
      code: 'UNSUPPORTED_VERSION',
    });
    assert.throws(() => d.writeResponse(new Writer(), bad, {} as never), {
      name: 'EncodeError',
      code: 'UNSUPPORTED_VERSION',
    });
  });
}
