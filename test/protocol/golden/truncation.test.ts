// Every real client frame cut short at every byte must fail with a typed DecodeError — never a
// RangeError or a partly decoded request — since a broker sees exactly such bytes when a frame
// header lies about its size.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { API_BY_KEY, decodeRequestHeader } from '../../../src/protocol/messages/index.js';
import { DecodeError } from '../../../src/protocol/primitives/errors.js';
import { fixture, manifest } from './load.js';

test('truncated golden frames fail with DecodeError at every cut', () => {
  for (const f of manifest().frames) {
    const body = fixture(f.file).subarray(4);
    for (let cut = 0; cut < body.length; cut++) {
      assert.throws(
        () => {
          const { header, reader } = decodeRequestHeader(body.subarray(0, cut));
          const api = API_BY_KEY[header.requestApiKey]!;
          api.readRequest(reader, header.requestApiVersion);
        },
        (e: unknown) => e instanceof DecodeError,
        `${f.file} cut at ${cut}`,
      );
    }
  }
});
