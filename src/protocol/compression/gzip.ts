// gzip: a standard gzip stream (RFC 1952) in both directions, via node:zlib. zlib enforces the
// output cap itself (`maxOutputLength`), so a bomb is stopped while inflating.
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type { CompressionError } from './errors.js';
import { corruptData, tooLarge } from './limits.js';

const gzipAsync = promisify(zlib.gzip);
const gunzipAsync = promisify(zlib.gunzip);

export function gzipCompressSync(buf: Uint8Array): Buffer {
  return zlib.gzipSync(buf);
}

export function gzipCompress(buf: Uint8Array): Promise<Buffer> {
  return gzipAsync(buf);
}

export function gzipDecompressSync(buf: Uint8Array, maxSize: number): Buffer {
  try {
    return zlib.gunzipSync(buf, { maxOutputLength: maxSize });
  } catch (err) {
    throw mapError(err, buf.length, maxSize);
  }
}

export async function gzipDecompress(buf: Uint8Array, maxSize: number): Promise<Buffer> {
  try {
    return await gunzipAsync(buf, { maxOutputLength: maxSize });
  } catch (err) {
    throw mapError(err, buf.length, maxSize);
  }
}

function mapError(err: unknown, inputSize: number, maxSize: number): CompressionError {
  if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') {
    return tooLarge(`gzip (${inputSize} bytes in)`, undefined, maxSize);
  }
  return corruptData('invalid gzip data', err);
}
