// Round trip of the related data schemas (__consumer_offsets / __transaction_state records,
// consumer protocol metadata) and the header schemas, every version.

import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { test } from 'node:test';
import * as generated from '../../../src/protocol/messages/generated/index.js';
import * as requestHeader from '../../../src/protocol/messages/generated/request-header.js';
import * as responseHeader from '../../../src/protocol/messages/generated/response-header.js';
import { Reader } from '../../../src/protocol/primitives/reader.js';
import { Writer } from '../../../src/protocol/primitives/writer.js';
import { roundTrip } from './roundtrip-check.js';
import { loadDataSchema, loadHeaderSchema, SCHEMA_DIR, versionsOf } from './schemas.js';

type Codec = Record<string, unknown>;

function codecOf(mod: Codec, name: string) {
  const read = mod[`read${name}`];
  const write = mod[`write${name}`];
  assert.equal(typeof read, 'function', `read${name}`);
  assert.equal(typeof write, 'function', `write${name}`);
  return {
    read: read as (r: Reader, v: number) => unknown,
    write: write as (w: Writer, v: number, value: never) => void,
  };
}

const files = readdirSync(`${SCHEMA_DIR}related/`).filter((f) => f.endsWith('.json'));

test('every related data schema round-trips in every version', () => {
  assert.ok(files.length >= 8);
  for (const f of files) {
    const m = loadDataSchema(f);
    const { read, write } = codecOf(generated as Codec, m.name);
    for (const v of versionsOf(m)) roundTrip(m, v, write, read, v + 77);
  }
});

test('header schemas round-trip in every version', () => {
  for (const [file, mod] of [
    ['RequestHeader.json', requestHeader],
    ['ResponseHeader.json', responseHeader],
  ] as const) {
    const m = loadHeaderSchema(file);
    const { read, write } = codecOf(mod as Codec, m.name);
    for (const v of versionsOf(m)) roundTrip(m, v, write, read, v + 5);
  }
});

test('OffsetCommitValue v3 known bytes', () => {
  const value = {
    offset: 42n,
    leaderEpoch: 3,
    metadata: 'm',
    commitTimestamp: 1000n,
    expireTimestamp: -1n,
  };
  const w = new Writer();
  generated.writeOffsetCommitValue(w, 3, value);
  const hex = '000000000000002a' + '00000003' + '00016d' + '00000000000003e8';
  assert.equal(w.toBuffer().toString('hex'), hex);
  assert.deepEqual(generated.readOffsetCommitValue(new Reader(Buffer.from(hex, 'hex')), 3), value);
});
