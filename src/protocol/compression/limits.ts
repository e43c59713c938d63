// Decompression bomb guard shared by every codec. A hostile 1 MiB batch can expand to gigabytes
// (zstd RLE blocks, gzip of zeros), so each codec establishes an upper bound on the output
// *before* it allocates, and fails with MESSAGE_TOO_LARGE when that bound exceeds the limit.
import { constants } from 'node:buffer';
import { CompressionError } from './errors.js';

/** Default cap on one decompressed records area: larger than any sane batch, far below RAM. */
export const DEFAULT_MAX_DECOMPRESSED_SIZE = 256 * 1024 * 1024;

export interface DecompressOptions {
  /** Maximum decompressed size in bytes (default `DEFAULT_MAX_DECOMPRESSED_SIZE`). */
  maxSize?: number;
}

export function resolveMaxSize(options: DecompressOptions | undefined): number {
  const max = options?.maxSize ?? DEFAULT_MAX_DECOMPRESSED_SIZE;
  if (!(max > 0)) throw new RangeError(`maxSize must be positive, got ${max}`);
  return Math.min(max, constants.MAX_LENGTH);
}

export function tooLarge(what: string, size: number | undefined, max: number): CompressionError {
  const got = size === undefined ? 'decompressed size' : `decompressed size ${size}`;
  return new CompressionError('MESSAGE_TOO_LARGE', `${what}: ${got} exceeds the limit ${max}`);
}

export function corruptData(what: string, cause?: unknown): CompressionError {
  const detail = cause instanceof Error ? `: ${cause.message}` : '';
  return new CompressionError('CORRUPT_MESSAGE', `${what}${detail}`, { cause });
}
