// Hostile input: truncated frames at every length, oversized and negative lengths, impossible
// array counts, invalid UTF-8, and a seeded fuzz loop of mutated frames across every API and
// version. Decoding must fail with a DecodeError (never another exception, never a hang), and
// whatever does decode must re-encode and decode to the same value.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { API_BY_KEY } from '../../../src/protocol/messages/index.js';
import type { ApiDescriptor } from '../../../src/protocol/messages/runtime.js';
import { DecodeError } from '../../../src/protocol/primitives/errors.js';
import { Reader } from '../../../src/protocol/primitives/reader.js';
import { Writer } from '../../../src/protocol/primitives/writer.js';
import type { MessageSpec } from '../../../tools/gen-protocol/schema.js';
import { buildStruct, Rng, type Variant } from './sample-values.js';
import { loadApiSchemas, versionsOf } from './schemas.js';

interface Sample {
  api: ApiDescriptor;
  request: boolean;
  version: number;
  bytes: Buffer;
}

function decode(s: { api: ApiDescriptor; request: boolean }, version: number, bytes: Buffer): unknown {
  const r = new Reader(bytes);
  return s.request ? s.api.readRequest(r, version) : s.api.readResponse(r, version);
}

function encode(s: { api: ApiDescriptor; request: boolean }, version: number, value: unknown): Buffer {
  const w = new Writer();
  if (s.request) s.api.writeRequest(w, version, value);
  else s.api.writeResponse(w, version, value);
  return w.toBuffer();
}

function samples(variants: Variant[]): Sample[] {
  const out: Sample[] = [];
  const rng = new Rng(2024);
  for (const a of loadApiSchemas()) {
    const api = API_BY_KEY[a.key]!;
    for (const v of versionsOf(a.request)) {
      for (const [m, request] of [
        [a.request, true],
        [a.response, false],
      ] as [MessageSpec, boolean][]) {
        for (const variant of variants) {
          const value = buildStruct(m, m.root, v, variant, rng);
          out.push({ api, request, version: v, bytes: encode({ api, request }, v, value) });
        }
      }
    }
  }
  return out;
}

function expectDecodeError(fn: () => unknown, what: string, code?: string): void {
  try {
    fn();
  } catch (e) {
    if (!(e instanceof DecodeError)) throw new Error(`${what}: threw ${String(e)} instead of a DecodeError`);
    if (code !== undefined) assert.equal(e.code, code, what);
    return;
  }
  assert.fail(`${what}: decoded without error`);
}

test('truncated bodies fail with DecodeError at every length', () => {
  let cuts = 0;
  for (const s of samples(['minimal', 'rich'])) {
    const n = s.bytes.length;
    // Every length for small bodies; for large ones every length near both ends plus a spread.
    const step = n <= 400 ? 1 : Math.ceil(n / 200);
    for (let len = 0; len < n; len += len < 64 || len > n - 64 ? 1 : step) {
      const what = `${s.api.name} v${s.version} ${s.request ? 'request' : 'response'} cut at ${len}/${n}`;
      expectDecodeError(() => decode(s, s.version, s.bytes.subarray(0, len)), what);
      cuts++;
    }
  }
  assert.ok(cuts > 50000, `only ${cuts} cuts`);
});

const h = (s: string) => Buffer.from(s.replace(/\s+/g, ''), 'hex');
const metadata = { api: API_BY_KEY[3]!, request: true };
const produce = { api: API_BY_KEY[0]!, request: true };

test('oversized, negative and null lengths; huge counts; invalid UTF-8', () => {
  // Metadata v1 request: Topics count 2^31-1 with 4 bytes left.
  expectDecodeError(() => decode(metadata, 1, h('7fffffff 00000000')), 'count 2^31-1', 'COUNT_TOO_LARGE');
  expectDecodeError(() => decode(metadata, 1, h('80000000')), 'count -2^31', 'NEGATIVE_LENGTH');
  expectDecodeError(() => decode(metadata, 0, h('ffffffff')), 'null topics in v0', 'NULL_NOT_ALLOWED');
  // Flexible: compact count 2^32-2.
  expectDecodeError(() => decode(metadata, 12, h('ffffffff0f 00')), 'compact count', 'COUNT_TOO_LARGE');
  expectDecodeError(() => decode(metadata, 12, h('ffffffffff')), 'uvarint too long', 'VARINT_TOO_LONG');
  // Metadata v1: one topic whose name has a length beyond the frame, a negative length, bad UTF-8.
  expectDecodeError(() => decode(metadata, 1, h('00000001 0010 6162')), 'string past frame', 'TRUNCATED');
  expectDecodeError(() => decode(metadata, 1, h('00000001 fffe')), 'negative string', 'NEGATIVE_LENGTH');
  expectDecodeError(() => decode(metadata, 1, h('00000001 ffff')), 'null name', 'NULL_NOT_ALLOWED');
  expectDecodeError(() => decode(metadata, 1, h('00000001 0002 c328')), 'bad utf-8', 'INVALID_UTF8');
  // Produce v3: records length 2^31-1 and -2.
  const head = 'ffff ffff 00007530 00000001 000174 00000001 00000000';
  expectDecodeError(() => decode(produce, 3, h(`${head} 7fffffff 00`)), 'records past frame', 'TRUNCATED');
  expectDecodeError(() => decode(produce, 3, h(`${head} fffffffe`)), 'negative records', 'NEGATIVE_LENGTH');
  assert.deepEqual(decode(produce, 3, h(`${head} ffffffff`)), {
    transactionalId: null,
    acks: -1,
    timeoutMs: 30000,
    topicData: [{ name: 't', partitionData: [{ index: 0, records: null }] }],
  });
  // A tagged value that claims more bytes than the frame has (ApiVersions v3 response, tag 3).
  const av = { api: API_BY_KEY[18]!, request: false };
  expectDecodeError(() => decode(av, 3, h('0000 01 00000000 01 03 05 01')), 'tag size', 'TRUNCATED');
  // A known tagged value longer than its declared size.
  expectDecodeError(
    () => decode(av, 3, h('0000 01 00000000 01 01 02 0000000000000007')),
    'tag overrun',
    'TRUNCATED',
  );
});

type Mutator = (b: Buffer, rng: Rng) => Buffer;

const MUTATORS: Mutator[] = [
  (b, rng) => {
    if (b.length > 0) b[rng.int(b.length)]! ^= 1 << rng.int(8);
    return b;
  },
  (b, rng) => {
    if (b.length > 0) b[rng.int(b.length)] = rng.int(256);
    return b;
  },
  (b, rng) => {
    // Overwrite 4 bytes with a hostile length/count.
    const vals = [0x7fffffff, -1, -2, 0x80000000 | 0, 0x00ffffff, 0x00000100];
    if (b.length >= 4) b.writeInt32BE(vals[rng.int(vals.length)]!, rng.int(b.length - 3));
    return b;
  },
  (b, rng) => {
    if (b.length >= 2) b.writeInt16BE([0x7fff, -1, -2, 0x0100][rng.int(4)]!, rng.int(b.length - 1));
    return b;
  },
  (b, rng) => b.subarray(0, rng.int(b.length + 1)),
  (b, rng) => {
    const at = rng.int(b.length + 1);
    return Buffer.concat([b.subarray(0, at), rng.bytes(1 + rng.int(4)), b.subarray(at)]);
  },
  (b, rng) => {
    const at = rng.int(b.length + 1);
    return Buffer.concat([b.subarray(0, at), b.subarray(Math.min(b.length, at + 1 + rng.int(4)))]);
  },
  (b, rng) => {
    // Varint bombs: continuation bytes.
    const at = rng.int(b.length + 1);
    return Buffer.concat([b.subarray(0, at), Buffer.alloc(1 + rng.int(10), 0xff), b.subarray(at)]);
  },
];

test('seeded fuzz: 100,000 mutated frames across APIs and versions', (t) => {
  const corpus = samples(['rich', 'random']);
  const rng = new Rng(0xfeed);
  const started = Date.now();
  let decoded = 0;
  let rejected = 0;
  const ITERATIONS = 100_000;
  for (let i = 0; i < ITERATIONS; i++) {
    const s = corpus[rng.int(corpus.length)]!;
    let b: Buffer = Buffer.from(s.bytes);
    const rounds = 1 + rng.int(3);
    for (let k = 0; k < rounds; k++) b = MUTATORS[rng.int(MUTATORS.length)]!(b, rng);
    // Mostly the frame's own version, sometimes a neighbouring one (version confusion).
    const version =
      rng.int(8) === 0
        ? Math.max(s.api.minVersion, Math.min(s.api.maxVersion, s.version + rng.int(3) - 1))
        : s.version;
    let value: unknown;
    try {
      value = decode(s, version, b);
    } catch (e) {
      if (!(e instanceof DecodeError)) {
        assert.fail(
          `iteration ${i}: ${s.api.name} v${version} ${s.request ? 'req' : 'res'} threw ${String(e)}`,
        );
      }
      rejected++;
      continue;
    }
    decoded++;
    // Whatever decodes is a valid value of that version: it must re-encode and read back equal.
    const again = encode(s, version, value);
    assert.deepStrictEqual(decode(s, version, again), value, `iteration ${i}: re-encode mismatch`);
  }
  const ms = Date.now() - started;
  assert.equal(decoded + rejected, ITERATIONS);
  assert.ok(
    rejected > ITERATIONS / 10 && decoded > ITERATIONS / 20,
    `decoded ${decoded}, rejected ${rejected}`,
  );
  // How long it took is reported, not asserted: a loaded machine is slow, not wrong.
  t.diagnostic(`${ITERATIONS} frames in ${ms} ms: ${decoded} decoded and re-encoded, ${rejected} rejected`);
});
