import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EncodeError } from '../../../src/protocol/primitives/errors.js';
import { Reader } from '../../../src/protocol/primitives/reader.js';
import { Writer, ZERO_COPY_MIN } from '../../../src/protocol/primitives/writer.js';

const hex = (w: Writer) => w.toBuffer().toString('hex');

test('fixed-width writes', () => {
  const w = new Writer(64);
  w.int8(-1);
  w.int16(-32768);
  w.uint16(65535);
  w.int32(-2);
  w.uint32(4294967295);
  w.int64(-(2n ** 63n));
  w.int64(2n ** 63n - 1n);
  w.float64(1.5);
  w.bool(true);
  w.uuid('AAAAAAAAAAAAAAAAAAAAAA');
  assert.equal(
    hex(w),
    [
      'ff',
      '8000',
      'ffff',
      'fffffffe',
      'ffffffff',
      '8000000000000000',
      '7fffffffffffffff',
      '3ff8000000000000',
      '01',
    ].join('') + '00'.repeat(16),
  );
  assert.equal(w.length, 1 + 2 + 2 + 4 + 4 + 8 + 8 + 8 + 1 + 16);
});

test('strings: classic, compact, unicode, long, null', () => {
  const w = new Writer(64);
  w.string('abc');
  w.nullableString(null);
  w.compactString('abc');
  w.compactNullableString(null);
  w.compactString('');
  assert.equal(hex(w), '0003616263' + 'ffff' + '04616263' + '00' + '01');
  for (const s of ['héllo ✓ 𝄞', 'x'.repeat(300), `${'é'.repeat(50)}z`, 'y'.repeat(20000)]) {
    const ww = new Writer(16);
    ww.string(s);
    ww.compactString(s);
    const r = new Reader(ww.toBuffer());
    assert.equal(r.string(), s);
    assert.equal(r.compactString(), s);
    assert.equal(r.remaining, 0);
  }
  assert.throws(
    () => new Writer().string('é'.repeat(20000)),
    (e: unknown) => e instanceof EncodeError && e.code === 'STRING_TOO_LONG',
  );
  assert.throws(
    () => new Writer().uuid('short'),
    (e: unknown) => e instanceof EncodeError && e.code === 'INVALID_UUID',
  );
});

test('small bytes are copied, large bytes referenced as chunks', () => {
  const small = Buffer.from([1, 2, 3]);
  const large = Buffer.alloc(ZERO_COPY_MIN, 7);
  const w = new Writer(64);
  w.bytes(small);
  w.compactNullableBytes(large);
  w.int8(9);
  const chunks = w.finish();
  assert.equal(chunks.length, 3);
  assert.equal(chunks[1], large, 'large buffer is the same object (zero copy)');
  const all = w.toBuffer();
  assert.equal(all.length, w.length);
  const r = new Reader(all);
  assert.deepEqual([...r.bytes()], [1, 2, 3]);
  assert.ok(r.compactNullableBytes()!.equals(large));
  assert.equal(r.int8(), 9);
  small[0] = 99;
  assert.equal(all[4], 1, 'small bytes were copied');
});

test('growth keeps earlier bytes and never loses data', () => {
  const w = new Writer(64);
  for (let i = 0; i < 10000; i++) w.int32(i);
  const buf = w.toBuffer();
  assert.equal(buf.length, 40000);
  const r = new Reader(buf);
  for (let i = 0; i < 10000; i++) assert.equal(r.int32(), i);
});

test('size prefix reserved and patched across chunk boundaries', () => {
  const w = new Writer(64);
  const mark = w.beginSize();
  w.int16(1);
  w.raw(Buffer.alloc(5000, 1));
  for (let i = 0; i < 100; i++) w.int32(i);
  w.endSize(mark);
  const buf = w.toBuffer();
  assert.equal(buf.readInt32BE(0), buf.length - 4);
  const inner = new Writer(64);
  inner.int8(5);
  const outer = new Writer(64);
  outer.int8(1);
  const m2 = outer.beginSize();
  outer.taggedField(3, inner);
  outer.endSize(m2);
  assert.equal(hex(outer), '01' + '00000003' + '030105');
});

test('varints and array lengths', () => {
  const w = new Writer(8);
  w.uvarint(300);
  w.varint(-64);
  w.varlong(-(2n ** 63n));
  w.varlongNumber(-1);
  w.arrayLength(-1);
  w.compactArrayLength(-1);
  w.compactArrayLength(2);
  assert.equal(hex(w), 'ac02' + '7f' + 'ffffffffffffffffff01' + '01' + 'ffffffff' + '00' + '03');
});

test('int64 fast path and bigint path agree with Node at every boundary', () => {
  const edges = [
    0n,
    1n,
    -1n,
    2n ** 31n,
    -(2n ** 31n) - 1n,
    2n ** 32n,
    -(2n ** 32n),
    2n ** 53n - 1n,
    -(2n ** 53n) + 1n,
  ];
  const more = [2n ** 53n, -(2n ** 53n), 2n ** 53n + 1n, 2n ** 52n * 3n + 7n, 2n ** 63n - 1n, -(2n ** 63n)];
  const values = [
    ...edges,
    ...more,
    2n ** 21n * 2n ** 32n - 1n,
    -(2n ** 21n) * 2n ** 32n,
    2n ** 21n * 2n ** 32n,
  ];
  for (const v of values) {
    const w = new Writer(16);
    w.int64(v);
    const b = w.toBuffer();
    const ref = Buffer.alloc(8);
    ref.writeBigInt64BE(v);
    assert.ok(b.equals(ref), `write ${v}`);
    assert.equal(new Reader(ref).int64(), v, `read ${v}`);
  }
});
