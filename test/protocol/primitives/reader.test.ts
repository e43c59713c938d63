import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DecodeError } from '../../../src/protocol/primitives/errors.js';
import { Reader, ZERO_UUID } from '../../../src/protocol/primitives/reader.js';

const R = (hex: string) => new Reader(Buffer.from(hex.replace(/ /g, ''), 'hex'));

function throwsCode(fn: () => unknown, code: string): void {
  assert.throws(fn, (e: unknown) => e instanceof DecodeError && e.code === code, code);
}

test('fixed-width reads are big-endian and bounds-checked', () => {
  const r = R('ff 8000 7fff ffff 80000000 ffffffff 8000000000000000 7fffffffffffffff 3ff8000000000000 02 00');
  assert.equal(r.int8(), -1);
  assert.equal(r.int16(), -32768);
  assert.equal(r.int16(), 32767);
  assert.equal(r.uint16(), 65535);
  assert.equal(r.int32(), -2147483648);
  assert.equal(r.uint32(), 4294967295);
  assert.equal(r.int64(), -(2n ** 63n));
  assert.equal(r.int64(), 2n ** 63n - 1n);
  assert.equal(r.float64(), 1.5);
  assert.equal(r.bool(), true, 'non-zero reads as true');
  assert.equal(r.bool(), false);
  assert.equal(r.remaining, 0);
  for (const fn of [
    'int8',
    'bool',
    'int16',
    'uint16',
    'int32',
    'uint32',
    'int64',
    'float64',
    'uuid',
  ] as const) {
    throwsCode(() => R('00')[fn === 'int8' || fn === 'bool' ? 'int64' : fn](), 'TRUNCATED');
  }
});

test('uuid is Kafka text form', () => {
  assert.equal(R('00'.repeat(16)).uuid(), ZERO_UUID);
  const r = R('ffffffffffffffffffffffffffffffff');
  assert.equal(r.uuid(), '_____________________w');
});

test('classic and compact strings', () => {
  assert.equal(R('0003 616263').string(), 'abc');
  assert.equal(R('ffff').nullableString(), null);
  assert.equal(R('0000').string(), '');
  assert.equal(R('04 616263').compactString(), 'abc');
  assert.equal(R('00').compactNullableString(), null);
  assert.equal(R('01').compactString(), '');
  const u = Buffer.from('héllo ✓ 𝄞', 'utf8');
  const r = new Reader(Buffer.concat([Buffer.from([0, u.length]), u]));
  assert.equal(r.string(), 'héllo ✓ 𝄞');
  const long = `${'x'.repeat(100)}é`;
  const lb = Buffer.from(long);
  assert.equal(new Reader(Buffer.concat([Buffer.from([0, lb.length]), lb])).string(), long);
});

test('string failures', () => {
  throwsCode(() => R('ffff').string(), 'NULL_NOT_ALLOWED');
  throwsCode(() => R('fffe').nullableString(), 'NEGATIVE_LENGTH');
  throwsCode(() => R('8000').string(), 'NEGATIVE_LENGTH');
  throwsCode(() => R('0005 6162').string(), 'TRUNCATED');
  throwsCode(() => R('7fff').string(), 'TRUNCATED');
  throwsCode(() => R('00').compactString(), 'NULL_NOT_ALLOWED');
  throwsCode(() => R('0a 6162').compactNullableString(), 'TRUNCATED');
  // Invalid UTF-8: lone continuation byte, overlong encoding, surrogate, truncated sequence —
  // in short (JS fast path) and long (native validation) strings.
  for (const bad of ['80', 'c0af', 'eda080', 'e282', 'ff']) {
    const b = Buffer.from(bad, 'hex');
    throwsCode(() => new Reader(Buffer.concat([Buffer.from([0, b.length]), b])).string(), 'INVALID_UTF8');
    const long = Buffer.concat([Buffer.alloc(60, 0x61), b]);
    throwsCode(
      () => new Reader(Buffer.concat([Buffer.from([long.length + 1]), long])).compactString(),
      'INVALID_UTF8',
    );
  }
});

test('strings of every length decode as UTF-8, ASCII or not, valid or not (all three decode paths)', () => {
  const frame = (b: Buffer) => Buffer.concat([Buffer.from([b.length >> 8, b.length & 0xff]), b]);
  for (let len = 0; len <= 300; len++) {
    const ascii = Buffer.from(Array.from({ length: len }, (_, i) => 0x21 + ((i * 7) % 94)));
    const s = new Reader(frame(ascii)).string();
    assert.equal(s, ascii.toString('utf8'), `ascii of ${len}`);
    assert.equal(new Map([[ascii.toString('utf8'), len]]).get(s), len, 'usable as a Map key');
    if (len < 2) continue;
    // A two-byte character at the end, in the middle and at the start.
    for (const at of [len - 2, (len - 2) >> 1, 0]) {
      const b = Buffer.from(ascii);
      b[at] = 0xc3;
      b[at + 1] = 0xa9;
      assert.equal(new Reader(frame(b)).string(), b.toString('utf8'), `é at ${at} of ${len}`);
      b[at + 1] = 0x28; // not a continuation byte
      throwsCode(() => new Reader(frame(b)).string(), 'INVALID_UTF8');
    }
  }
});

test('bytes are zero-copy subarrays', () => {
  const src = Buffer.from('00000003010203' + '04aabbcc' + 'ffffffff' + '00', 'hex');
  const r = new Reader(src);
  const b = r.bytes();
  assert.deepEqual([...b], [1, 2, 3]);
  assert.equal(b.buffer, src.buffer, 'shares memory');
  assert.deepEqual([...r.compactBytes()], [0xaa, 0xbb, 0xcc]);
  assert.equal(r.nullableBytes(), null);
  assert.equal(r.compactNullableBytes(), null);
  throwsCode(() => R('ffffffff').bytes(), 'NULL_NOT_ALLOWED');
  throwsCode(() => R('fffffff0').nullableBytes(), 'NEGATIVE_LENGTH');
  throwsCode(() => R('7fffffff 00').bytes(), 'TRUNCATED');
  throwsCode(() => R('ffffffff0f').compactBytes(), 'TRUNCATED');
});

test('array counts are checked before allocation', () => {
  assert.equal(R('ffffffff').arrayLength(4), -1);
  assert.equal(R('00').compactArrayLength(4), -1);
  assert.equal(R('00000002 0000000000000000').arrayLength(4), 2);
  throwsCode(() => R('7fffffff 00000000').arrayLength(1), 'COUNT_TOO_LARGE');
  throwsCode(() => R('00000002 00000000').arrayLength(4), 'COUNT_TOO_LARGE');
  throwsCode(() => R('80000000').arrayLength(1), 'NEGATIVE_LENGTH');
  throwsCode(() => R('ffffffff0f').compactArrayLength(1), 'COUNT_TOO_LARGE');
  // A zero minimum size still counts one byte per element (as Kafka does).
  throwsCode(() => R('00000005 00').arrayLength(0), 'COUNT_TOO_LARGE');
});

test('tagged fields: skip and bounded tag windows', () => {
  const r = R('02 00 02 aaaa 05 01 ff 7f');
  r.skipTaggedFields();
  assert.equal(r.int8(), 0x7f);
  throwsCode(() => R('01 00 05 aa').skipTaggedFields(), 'TRUNCATED');
  // A value read inside a tag window cannot run past the declared size.
  const t = R('01 03 01 02 0000');
  t.uvarint();
  t.uvarint();
  const size = t.uvarint();
  const saved = t.beginTag(size);
  throwsCode(() => t.int32(), 'TRUNCATED');
  t.endTag(saved);
  assert.equal(t.remaining, 2);
  throwsCode(() => R('05').beginTag(5), 'TRUNCATED');
});

test('reader window', () => {
  const r = new Reader(Buffer.from('0102030405', 'hex'), 1, 3);
  assert.equal(r.int16(), 0x0203);
  throwsCode(() => r.int8(), 'TRUNCATED');
  throwsCode(() => new Reader(Buffer.alloc(2), 0, 3), 'TRUNCATED');
});
