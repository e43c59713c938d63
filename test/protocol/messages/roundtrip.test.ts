// Every API × every valid version × request and response: build sample values from the schema
// (minimal, rich and seeded random) and round-trip them (see roundtrip-check.ts).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { API_BY_KEY } from '../../../src/protocol/messages/index.js';
import { Reader } from '../../../src/protocol/primitives/reader.js';
import { Writer } from '../../../src/protocol/primitives/writer.js';
import { roundTrip, type WriteFn } from './roundtrip-check.js';
import { loadApiSchemas, versionsOf } from './schemas.js';

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
