import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DecodeError } from '../../../src/protocol/primitives/errors.js';
import {
  readUVarint,
  readVarint,
  readVarlong,
  readVarlongNumber,
  uvarintSize,
  varintSize,
  varlongNumberSize,
  varlongSize,
  writeUVarint,
  writeVarint,
  writeVarlong,
  writeVarlongNumber,
} from '../../../src/protocol/primitives/varint.js';

const cursor = (hex: string) => {
  const buf = Buffer.from(hex.replace(/ /g, ''), 'hex');
  return { buf, pos: 0, end: buf.length };
};

function enc(fn: (b: Buffer, p: number) => number): string {
  const b = Buffer.alloc(16);
  return b.subarray(0, fn(b, 0)).toString('hex');
}

// CLIENTS.md §1.5 examples, then the 32/64-bit extremes.
const VARINTS: [number, string][] = [
  [0, '00'],
  [-1, '01'],
  [1, '02'],
  [63, '7e'],
  [-64, '7f'],
  [64, '8001'],
  [2147483647, 'feffffff0f'],
  [-2147483648, 'ffffffff0f'],
];

test('zig-zag varint vectors', () => {
  for (const [v, hex] of VARINTS) {
    assert.equal(
      enc((b, p) => writeVarint(b, p, v)),
      hex,
      `encode ${v}`,
    );
    const c = cursor(hex);
    assert.equal(readVarint(c), v, `decode ${hex}`);
    assert.equal(c.pos, hex.length / 2);
    assert.equal(varintSize(v), hex.length / 2);
  }
});

test('unsigned varint vectors', () => {
  const cases: [number, string][] = [
    [0, '00'],
    [1, '01'],
    [127, '7f'],
    [128, '8001'],
    [300, 'ac02'],
    [16383, 'ff7f'],
    [16384, '808001'],
    [4294967295, 'ffffffff0f'],
  ];
  for (const [v, hex] of cases) {
    assert.equal(
      enc((b, p) => writeUVarint(b, p, v)),
      hex,
    );
    assert.equal(readUVarint(cursor(hex)), v);
    assert.equal(uvarintSize(v), hex.length / 2);
  }
});

test('varlong vectors (bigint and number paths)', () => {
  const cases: [bigint, string][] = [
    [0n, '00'],
    [-1n, '01'],
    [1n, '02'],
    [63n, '7e'],
    [-64n, '7f'],
    [64n, '8001'],
    [2n ** 31n, '8080808010'],
    [-(2n ** 63n), 'ffffffffffffffffff01'],
    [2n ** 63n - 1n, 'feffffffffffffffff01'],
    [1700000000000n, '80a0abfef962'], // python-computed: zigzag 3400000000000,
  ];
  for (const [v, hex] of cases) {
    assert.equal(
      enc((b, p) => writeVarlong(b, p, v)),
      hex,
      `encode ${v}`,
    );
    const c = cursor(hex);
    assert.equal(readVarlong(c), v, `decode ${hex}`);
    assert.equal(c.pos, hex.length / 2);
    assert.equal(varlongSize(v), hex.length / 2);
    if (v >= -(2n ** 53n) + 1n && v <= 2n ** 53n - 1n) {
      const n = Number(v);
      assert.equal(
        enc((b, p) => writeVarlongNumber(b, p, n)),
        hex,
      );
      assert.equal(readVarlongNumber(cursor(hex)), n);
      assert.equal(varlongNumberSize(n), hex.length / 2);
    } else {
      assert.throws(() => readVarlongNumber(cursor(hex)), { code: 'UNSAFE_INTEGER' });
    }
  }
  for (const n of [2 ** 53 - 1, -(2 ** 53 - 1), 123456789012, -987654321098]) {
    const hex = enc((b, p) => writeVarlongNumber(b, p, n));
    assert.equal(
      hex,
      enc((b, p) => writeVarlong(b, p, BigInt(n))),
    );
    assert.equal(readVarlongNumber(cursor(hex)), n);
  }
});

test('malformed varints are DecodeErrors', () => {
  const bad: [string, (c: ReturnType<typeof cursor>) => unknown, string][] = [
    ['', readUVarint, 'TRUNCATED'],
    ['80', readUVarint, 'TRUNCATED'],
    ['ffffffff', readVarint, 'TRUNCATED'],
    ['ffffffff10', readUVarint, 'VARINT_TOO_LONG'],
    ['ffffffffff01', readUVarint, 'VARINT_TOO_LONG'],
    ['ffffffffffffffffff', readVarlong, 'TRUNCATED'],
    ['ffffffffffffffffff02', readVarlong, 'VARINT_TOO_LONG'],
    ['ffffffffffffffffff8001', readVarlong, 'VARINT_TOO_LONG'],
    ['8080', readVarlongNumber, 'TRUNCATED'],
  ];
  for (const [hex, fn, code] of bad) {
    assert.throws(
      () => fn(cursor(hex)),
      (e: unknown) => e instanceof DecodeError && e.code === code,
      `${hex} → ${code}`,
    );
  }
});

test('varint round trip over a sweep of values', () => {
  const b = Buffer.alloc(16);
  for (let i = 0; i < 2000; i++) {
    const v = Math.round(Math.sin(i) * 2 ** (i % 32)) | 0;
    const end = writeVarint(b, 0, v);
    const c = { buf: b, pos: 0, end };
    assert.equal(readVarint(c), v);
    const big = BigInt(v) * BigInt(i + 1) * 1000003n;
    const end2 = writeVarlong(b, 0, big);
    assert.equal(readVarlong({ buf: b, pos: 0, end: end2 }), big);
  }
});
