// Compression codecs of Kafka record batches (CLIENTS.md §2.3). Each function takes a codec
// id (0-4, as in the batch attributes) or name. Sync variants exist for every codec whose
// library has a sync API; zstd (@mongodb-js/zstd 1.2) is async-only.
import { CompressionCodec, type CompressionName, codecId } from './codec.js';
import { CompressionError } from './errors.js';
import { gzipCompress, gzipCompressSync, gzipDecompress, gzipDecompressSync } from './gzip.js';
import { type DecompressOptions, resolveMaxSize, tooLarge } from './limits.js';
import { lz4Compress, lz4CompressSync, lz4Decompress, lz4DecompressSync } from './lz4.js';
import { snappyCompress, snappyCompressSync, snappyDecompress, snappyDecompressSync } from './snappy.js';
import { zstdCompress, zstdDecompress } from './zstd.js';

export type { CompressionCodecId, CompressionName } from './codec.js';
export { CompressionCodec, codecId, codecName } from './codec.js';
export type { CompressionErrorName } from './errors.js';
export { CompressionError } from './errors.js';
export type { DecompressOptions } from './limits.js';
export { DEFAULT_MAX_DECOMPRESSED_SIZE } from './limits.js';
export { fixLegacyLz4HeaderChecksum } from './lz4.js';

export interface CompressOptions {
  /** Snappy only: write snappy-java's xerial framing (as Java producers do) instead of raw. */
  xerial?: boolean;
  /** zstd only: compression level (default 3, Kafka's default). */
  level?: number;
}

function resolve(codec: CompressionName | number): number {
  const id = codecId(codec);
  if (id < 0)
    throw new CompressionError('UNSUPPORTED_COMPRESSION_TYPE', `unknown compression codec ${codec}`);
  return id;
}

function noSyncZstd(): CompressionError {
  return new CompressionError(
    'UNSUPPORTED_COMPRESSION_TYPE',
    'zstd has no synchronous API; use the async function',
  );
}

function copyChecked(buf: Uint8Array, maxSize: number): Buffer {
  if (buf.length > maxSize) throw tooLarge('none', buf.length, maxSize);
  return Buffer.from(buf);
}

export async function compress(
  codec: CompressionName | number,
  buf: Uint8Array,
  options?: CompressOptions,
): Promise<Buffer> {
  switch (resolve(codec)) {
    case CompressionCodec.GZIP:
      return gzipCompress(buf);
    case CompressionCodec.SNAPPY:
      return snappyCompress(buf, options?.xerial);
    case CompressionCodec.LZ4:
      return lz4Compress(buf);
    case CompressionCodec.ZSTD:
      return zstdCompress(buf, options?.level);
    default:
      return Buffer.from(buf);
  }
}

/** Synchronous compression; throws UNSUPPORTED_COMPRESSION_TYPE for zstd. */
export function compressSync(
  codec: CompressionName | number,
  buf: Uint8Array,
  options?: CompressOptions,
): Buffer {
  switch (resolve(codec)) {
    case CompressionCodec.GZIP:
      return gzipCompressSync(buf);
    case CompressionCodec.SNAPPY:
      return snappyCompressSync(buf, options?.xerial);
    case CompressionCodec.LZ4:
      return lz4CompressSync(buf);
    case CompressionCodec.ZSTD:
      throw noSyncZstd();
    default:
      return Buffer.from(buf);
  }
}

/**
 * Decompresses `buf`. Corrupt data → CompressionError CORRUPT_MESSAGE; output larger than
 * `options.maxSize` → MESSAGE_TOO_LARGE, detected before the output is allocated where the
 * format allows it (snappy and zstd declare sizes, lz4 and zstd blocks have bounded sizes,
 * zlib stops inflating at the cap).
 */
export async function decompress(
  codec: CompressionName | number,
  buf: Uint8Array,
  options?: DecompressOptions,
): Promise<Buffer> {
  const max = resolveMaxSize(options);
  switch (resolve(codec)) {
    case CompressionCodec.GZIP:
      return gzipDecompress(buf, max);
    case CompressionCodec.SNAPPY:
      return snappyDecompress(buf, max);
    case CompressionCodec.LZ4:
      return lz4Decompress(buf, max);
    case CompressionCodec.ZSTD:
      return zstdDecompress(buf, max);
    default:
      return copyChecked(buf, max);
  }
}

/** Synchronous decompression; throws UNSUPPORTED_COMPRESSION_TYPE for zstd. */
export function decompressSync(
  codec: CompressionName | number,
  buf: Uint8Array,
  options?: DecompressOptions,
): Buffer {
  const max = resolveMaxSize(options);
  switch (resolve(codec)) {
    case CompressionCodec.GZIP:
      return gzipDecompressSync(buf, max);
    case CompressionCodec.SNAPPY:
      return snappyDecompressSync(buf, max);
    case CompressionCodec.LZ4:
      return lz4DecompressSync(buf, max);
    case CompressionCodec.ZSTD:
      throw noSyncZstd();
    default:
      return copyChecked(buf, max);
  }
}
