import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import zlib from 'node:zlib';
import * as snappy from 'snappy';
import {
  CompressionError,
  type CompressionName,
  codecId,
  codecName,
  compress,
  compressSync,
  decompress,
  decompressSync,
  fixLegacyLz4HeaderChecksum,
} from '../../../src/protocol/compression/index.js';
import { lz4DecompressedBound } from '../../../src/protocol/compression/lz4.js';
import { xxhash32 } from '../../../src/protocol/compression/xxhash32.js';

const CODECS: CompressionName[] = ['none', 'gzip', 'snappy', 'lz4', 'zstd'];
const SAMPLE = Buffer.from(Array.from({ length: 2000 }, (_, i) => `record ${i % 37} payload;`).join(''));

function isCompressionError(name: string) {
  return (err: unknown) => err instanceof CompressionError && err.errorName === name;
}

describe('codec ids', () => {
  test('names and ids map both ways; unknown → -1', () => {
    assert.deepEqual(CODECS.map(codecId), [0, 1, 2, 3, 4]);
    assert.equal(codecName(3), 'lz4');
    assert.equal(codecId(5), -1);
    assert.equal(codecId(1.5), -1);
  });
  test('unknown codec → UNSUPPORTED_COMPRESSION_TYPE (76)', async () => {
    await assert.rejects(compress(7, SAMPLE), isCompressionError('UNSUPPORTED_COMPRESSION_TYPE'));
    assert.throws(
      () => decompressSync(5, SAMPLE),
      (e: unknown) => e instanceof CompressionError && e.code === 76,
    );
  });
});

describe('round trips', () => {
  for (const codec of CODECS) {
    test(`${codec} async`, async () => {
      const c = await compress(codec, SAMPLE);
      if (codec !== 'none') assert.ok(c.length < SAMPLE.length / 4, `${codec} should shrink repetitive data`);
      assert.deepEqual(await decompress(codec, c), SAMPLE);
    });
    if (codec === 'zstd') continue;
    test(`${codec} sync, interoperable with async`, async () => {
      const c = compressSync(codec, SAMPLE);
      assert.deepEqual(decompressSync(codec, c), SAMPLE);
      assert.deepEqual(await decompress(codec, c), SAMPLE);
    });
  }
  test('empty input round-trips for every codec', async () => {
    for (const codec of CODECS)
      assert.equal((await decompress(codec, await compress(codec, Buffer.alloc(0)))).length, 0);
  });
  test('zstd has no sync API → UNSUPPORTED_COMPRESSION_TYPE', () => {
    assert.throws(() => compressSync('zstd', SAMPLE), isCompressionError('UNSUPPORTED_COMPRESSION_TYPE'));
    assert.throws(() => decompressSync('zstd', SAMPLE), isCompressionError('UNSUPPORTED_COMPRESSION_TYPE'));
  });
  test('accepts Uint8Array views with an offset', async () => {
    const backing = Buffer.concat([Buffer.from('garbage'), await compress('lz4', SAMPLE)]);
    const view = new Uint8Array(backing.buffer, backing.byteOffset + 7, backing.length - 7);
    assert.deepEqual(await decompress('lz4', view), SAMPLE);
  });
});

describe('snappy framing', () => {
  /** Hand-built snappy-java xerial stream: magic, version 1, compatible 1, int32-length blocks. */
  function handXerial(chunks: Buffer[]): Buffer {
    const parts: Buffer[] = [
      Buffer.from([0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00, 0, 0, 0, 1, 0, 0, 0, 1]),
    ];
    for (const c of chunks) {
      const raw = snappy.compressSync(c);
      const len = Buffer.alloc(4);
      len.writeInt32BE(raw.length);
      parts.push(len, raw);
    }
    return Buffer.concat(parts);
  }
  test('decodes a hand-built xerial stream of several blocks (sync and async)', async () => {
    const a = SAMPLE.subarray(0, 30000);
    const b = SAMPLE.subarray(30000);
    const framed = handXerial([a, b]);
    assert.deepEqual(decompressSync('snappy', framed), SAMPLE);
    assert.deepEqual(await decompress('snappy', framed), SAMPLE);
  });
  test('xerial on compress writes the framing, in 32 KiB blocks, and reads back', async () => {
    const big = Buffer.concat([SAMPLE, SAMPLE, SAMPLE]);
    const framed = await compress('snappy', big, { xerial: true });
    assert.deepEqual(framed.subarray(0, 16), handXerial([]));
    const firstBlock = snappy.uncompressSync(framed.subarray(20, 20 + framed.readInt32BE(16))) as Buffer;
    assert.equal(firstBlock.length, 32 * 1024);
    assert.deepEqual(await decompress('snappy', framed), big);
    assert.deepEqual(compressSync('snappy', big, { xerial: true }), framed);
  });
  test('raw snappy (librdkafka) is the default', () => {
    assert.deepEqual(compressSync('snappy', SAMPLE), snappy.compressSync(SAMPLE));
  });
  test('xerial block length beyond the input → CORRUPT_MESSAGE', () => {
    const framed = handXerial([SAMPLE]);
    framed.writeInt32BE(framed.length, 16);
    assert.throws(() => decompressSync('snappy', framed), isCompressionError('CORRUPT_MESSAGE'));
  });
});

describe('corrupt input → CORRUPT_MESSAGE (2)', () => {
  const garbage = Buffer.from('this is not compressed data at all, not even close');
  for (const codec of ['gzip', 'snappy', 'lz4', 'zstd'] as const) {
    test(codec, async () => {
      await assert.rejects(
        decompress(codec, garbage),
        (e: unknown) => e instanceof CompressionError && e.code === 2,
      );
    });
  }
  test('truncated frames of every codec', async () => {
    for (const codec of ['gzip', 'lz4', 'zstd', 'snappy'] as const) {
      const c = await compress(codec, SAMPLE);
      await assert.rejects(
        decompress(codec, c.subarray(0, c.length - 9)),
        isCompressionError('CORRUPT_MESSAGE'),
        codec,
      );
    }
  });
});

describe('decompression bomb guard → MESSAGE_TOO_LARGE (10)', () => {
  const zeros = Buffer.alloc(8 * 1024 * 1024);
  for (const codec of ['gzip', 'snappy', 'lz4', 'zstd'] as const) {
    test(`${codec}: 8 MiB of zeros with a 1 MiB cap`, async () => {
      const c = await compress(codec, zeros);
      await assert.rejects(
        decompress(codec, c, { maxSize: 1 << 20 }),
        isCompressionError('MESSAGE_TOO_LARGE'),
      );
      assert.equal((await decompress(codec, c, { maxSize: 8 << 20 })).length, zeros.length);
    });
  }
  test('sync variants enforce the cap too', () => {
    for (const codec of ['gzip', 'snappy', 'lz4'] as const) {
      const c = compressSync(codec, zeros);
      assert.throws(
        () => decompressSync(codec, c, { maxSize: 1 << 20 }),
        isCompressionError('MESSAGE_TOO_LARGE'),
      );
    }
  });
  test('snappy: a lying 4 GiB length preamble is refused before decoding', () => {
    const bomb = Buffer.from([0xff, 0xff, 0xff, 0xff, 0x0f, 0x00]);
    assert.throws(() => decompressSync('snappy', bomb), isCompressionError('MESSAGE_TOO_LARGE'));
  });
  test('zstd: a frame declaring a huge content size is refused before decoding', async () => {
    // Frame header: magic, FHD = FCS 8 bytes + single segment, FCS = 2^40, then one raw block.
    const f = Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0xe0, 0, 0, 0, 0, 0, 1, 0, 0, 0x09, 0, 0, 0x41]);
    await assert.rejects(decompress('zstd', f), isCompressionError('MESSAGE_TOO_LARGE'));
  });
  test('zstd: RLE blocks (1 byte → 128 KiB each) are counted before decoding', async () => {
    const blocks: Buffer[] = [];
    for (let i = 0; i < 100; i++) {
      const last = i === 99 ? 1 : 0;
      const h = ((128 * 1024) << 3) | (1 << 1) | last; // RLE, 128 KiB
      blocks.push(Buffer.from([h & 0xff, (h >> 8) & 0xff, (h >> 16) & 0xff, 0x61]));
    }
    // FHD 0: no FCS, window descriptor follows (0x58 → 8 MiB window).
    const f = Buffer.concat([Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x58]), ...blocks]);
    await assert.rejects(
      decompress('zstd', f, { maxSize: 1 << 20 }),
      isCompressionError('MESSAGE_TOO_LARGE'),
    );
    assert.equal((await decompress('zstd', f, { maxSize: 100 * 128 * 1024 })).length, 100 * 128 * 1024);
  });
  test('lz4 bound walks blocks without decoding', async () => {
    const c = await compress('lz4', zeros);
    const bound = lz4DecompressedBound(c);
    assert.ok(bound >= zeros.length && bound <= zeros.length + 64 * 1024, `bound ${bound}`);
  });
  test('no codec: copying an oversized buffer is refused too', async () => {
    await assert.rejects(
      decompress('none', SAMPLE, { maxSize: 10 }),
      isCompressionError('MESSAGE_TOO_LARGE'),
    );
  });
});

describe('lz4 legacy header checksum (KAFKA-3160)', () => {
  test('xxhash32 matches reference vectors', () => {
    assert.equal(xxhash32(Buffer.alloc(0)), 0x02cc5d05);
    assert.equal(xxhash32(Buffer.from('a')), 0x550d7456);
    assert.equal(xxhash32(Buffer.from('Nobody inspects the spammish repetition')), 0xe2293b2f);
  });
  test('a frame whose HC covers the magic too is repaired and then decodes', async () => {
    const good = await compress('lz4', SAMPLE);
    const broken = Buffer.from(good);
    broken[6] = (xxhash32(broken, 0, 6) >>> 8) & 0xff; // the pre-0.10 computation
    assert.notEqual(broken[6], good[6]);
    await assert.rejects(decompress('lz4', broken), isCompressionError('CORRUPT_MESSAGE'));
    assert.deepEqual(fixLegacyLz4HeaderChecksum(broken), good);
    assert.deepEqual(await decompress('lz4', fixLegacyLz4HeaderChecksum(broken)), SAMPLE);
  });
});

test('gzip output is a standard gzip stream', async () => {
  assert.deepEqual(zlib.gunzipSync(await compress('gzip', SAMPLE)), SAMPLE);
});
