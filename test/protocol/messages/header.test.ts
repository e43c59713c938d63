import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  readRequestHeader,
  readResponseHeader,
  requestHeaderVersion,
  responseHeaderVersion,
  writeRequestHeader,
  writeResponseHeader,
} from '../../../src/protocol/messages/index.js';
import { DecodeError } from '../../../src/protocol/primitives/errors.js';
import { Reader } from '../../../src/protocol/primitives/reader.js';
import { Writer } from '../../../src/protocol/primitives/writer.js';

const h = (s: string) => Buffer.from(s.replace(/\s+/g, ''), 'hex');

test('header versions follow flexibility, with the two historical exceptions', () => {
  assert.equal(requestHeaderVersion(0, 8), 1); // Produce v8 classic
  assert.equal(requestHeaderVersion(0, 9), 2); // Produce v9 flexible
  assert.equal(responseHeaderVersion(0, 8), 0);
  assert.equal(responseHeaderVersion(0, 9), 1);
  assert.equal(requestHeaderVersion(7, 0), 0); // ControlledShutdown v0
  assert.equal(requestHeaderVersion(7, 1), 1);
  assert.equal(requestHeaderVersion(18, 3), 2);
  assert.equal(requestHeaderVersion(18, 99), 2, 'a too-new ApiVersions request is still parsed as flexible');
  for (let v = 0; v <= 5; v++)
    assert.equal(responseHeaderVersion(18, v), 0, 'ApiVersions response header is v0');
  assert.equal(requestHeaderVersion(9999, 0), 1, 'unknown API key: non-flexible header');
  assert.equal(requestHeaderVersion(-1, 0), 1);
});

test('request header v0/v1/v2 round trip and known bytes', () => {
  const cases = [
    {
      h: { requestApiKey: 7, requestApiVersion: 0, correlationId: 9, clientId: null },
      hex: '0007 0000 00000009',
    },
    {
      h: { requestApiKey: 3, requestApiVersion: 1, correlationId: 9, clientId: 'ab' },
      hex: '0003 0001 00000009 0002 6162',
    },
    {
      h: { requestApiKey: 3, requestApiVersion: 1, correlationId: 9, clientId: null },
      hex: '0003 0001 00000009 ffff',
    },
    // v2: ClientId is still int16-prefixed, then the tag section.
    {
      h: { requestApiKey: 3, requestApiVersion: 12, correlationId: -1, clientId: 'ab' },
      hex: '0003 000c ffffffff 0002 6162 00',
    },
    {
      h: { requestApiKey: 18, requestApiVersion: 7, correlationId: 1, clientId: null },
      hex: '0012 0007 00000001 ffff 00',
    },
  ];
  for (const c of cases) {
    const w = new Writer();
    writeRequestHeader(w, c.h);
    assert.equal(w.toBuffer().toString('hex'), c.hex.replace(/ /g, ''));
    const r = new Reader(Buffer.concat([w.toBuffer(), h('ee')]));
    // Header v0 has no ClientId: it reads as the schema default, the empty string.
    const want = c.h.requestApiKey === 7 && c.h.requestApiVersion === 0 ? { ...c.h, clientId: '' } : c.h;
    assert.deepEqual(readRequestHeader(r), want);
    assert.equal(r.int8(), -18, 'reader stops right after the header');
  }
  // Unknown tags in header v2 are skipped.
  const r = new Reader(h('0003 000c 00000001 0000 01 05 02 aaaa 7f'));
  assert.deepEqual(readRequestHeader(r), {
    requestApiKey: 3,
    requestApiVersion: 12,
    correlationId: 1,
    clientId: '',
  });
  assert.equal(r.int8(), 0x7f);
});

test('request header failures are DecodeErrors', () => {
  for (const hex of [
    '',
    '00',
    '0003 000c',
    '0003 0001 00000001',
    '0003 0001 00000001 0005 61',
    '0003 000c 00000001 ffff',
  ]) {
    assert.throws(() => readRequestHeader(new Reader(h(hex))), DecodeError, hex);
  }
});

test('response header v0/v1', () => {
  const w = new Writer();
  writeResponseHeader(w, 42, 0);
  writeResponseHeader(w, 43, 1);
  assert.equal(w.toBuffer().toString('hex'), '0000002a' + '0000002b00');
  const r = new Reader(h('0000002a 0000002b 02 00 01 ff 01 00 7f'));
  assert.equal(readResponseHeader(r, 0), 42);
  assert.equal(readResponseHeader(r, 1), 43);
  assert.equal(r.int8(), 0x7f);
});
