// LZ4 in Kafka is the LZ4 *frame* format (magic 04 22 4D 18), one frame per records area; Java
// writes independent 64 KiB blocks without checksums, librdkafka uses liblz4's frame API. Both
// decode with lz4-napi's frame functions (lz4_flex), which also emit that layout by default.
//
// Before decompressing we walk the frame's block headers (cheap, no decoding) to bound the
// output: each block expands to at most the frame's declared maximum block size. That makes the
// bomb guard exact enough without trusting the optional content-size field.
import { corruptData, tooLarge } from './limits.js';
import { lz4Lib } from './native.js';
import { xxhash32 } from './xxhash32.js';

const FRAME_MAGIC = 0x184d2204;
const BLOCK_MAX_SIZES: Record<number, number> = { 4: 64 << 10, 5: 256 << 10, 6: 1 << 20, 7: 4 << 20 };

const BOUND_SLACK = 4 << 20;

function isSkippable(magic: number): boolean {
  return (magic & 0xfffffff0) >>> 0 === 0x184d2a50;
}

/** Upper bound of the decompressed size of a sequence of LZ4 frames; throws on broken structure. */
export function lz4DecompressedBound(buf: Uint8Array): number {
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  let pos = 0;
  let bound = 0;
  if (buf.length < 7) throw corruptData('truncated lz4 frame');
  while (pos < buf.length) {
    if (pos + 4 > buf.length) throw corruptData('truncated lz4 frame magic');
    const magic = view.getUint32(pos, true);
    if (isSkippable(magic)) {
      if (pos + 8 > buf.length) throw corruptData('truncated lz4 skippable frame');
      pos += 8 + view.getUint32(pos + 4, true);
      continue;
    }
    if (magic !== FRAME_MAGIC) throw corruptData('not an lz4 frame (bad magic)');
    if (pos + 7 > buf.length) throw corruptData('truncated lz4 frame descriptor');
    const flg = buf[pos + 4]!;
    const blockMax = BLOCK_MAX_SIZES[(buf[pos + 5]! >> 4) & 7];
    if (flg >> 6 !== 1 || blockMax === undefined) throw corruptData('unsupported lz4 frame descriptor');
    const blockChecksum = (flg & 0x10) !== 0;
    const contentChecksum = (flg & 0x04) !== 0;
    pos += 4 + 2 + ((flg & 0x08) !== 0 ? 8 : 0) + ((flg & 0x01) !== 0 ? 4 : 0) + 1;
    for (;;) {
      if (pos + 4 > buf.length) throw corruptData('truncated lz4 block header');
      const word = view.getUint32(pos, true);
      pos += 4;
      if (word === 0) break; // EndMark
      const size = word & 0x7fffffff;
      if (size > blockMax) throw corruptData(`lz4 block size ${size} exceeds the frame maximum ${blockMax}`);
      // An uncompressed block (high bit set) expands to exactly its size.
      bound += word & 0x80000000 ? size : blockMax;
      pos += size + (blockChecksum ? 4 : 0);
      if (pos > buf.length) throw corruptData('truncated lz4 block');
    }
    pos += contentChecksum ? 4 : 0;
    if (pos > buf.length) throw corruptData('truncated lz4 content checksum');
  }
  return bound;
}

function checkBound(buf: Uint8Array, maxSize: number): void {
  const bound = lz4DecompressedBound(buf);
  // The bound counts every compressed block at the frame's maximum block size, so a legitimate
  // frame can overshoot its real size by up to one block (4 MiB at most). Rejecting only beyond
  // that slack never refuses valid data, and still caps what decoding can allocate at
  // maxSize + 4 MiB; the exact limit is then enforced on the real size.
  if (bound > maxSize + BOUND_SLACK) throw tooLarge('lz4', bound, maxSize);
}

function checkActual(out: Buffer, maxSize: number): Buffer {
  if (out.length > maxSize) throw tooLarge('lz4', out.length, maxSize);
  return out;
}

function asBuffer(buf: Uint8Array): Buffer {
  return Buffer.isBuffer(buf) ? buf : Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
}

export function lz4DecompressSync(buf: Uint8Array, maxSize: number): Buffer {
  checkBound(buf, maxSize);
  let out: Buffer;
  try {
    out = lz4Lib().decompressFrameSync(asBuffer(buf));
  } catch (err) {
    throw corruptData('invalid lz4 frame', err);
  }
  return checkActual(out, maxSize);
}

export async function lz4Decompress(buf: Uint8Array, maxSize: number): Promise<Buffer> {
  checkBound(buf, maxSize);
  let out: Buffer;
  try {
    out = await lz4Lib().decompressFrame(buf);
  } catch (err) {
    throw corruptData('invalid lz4 frame', err);
  }
  return checkActual(out, maxSize);
}

export function lz4CompressSync(buf: Uint8Array): Buffer {
  return lz4Lib().compressFrameSync(asBuffer(buf));
}

export function lz4Compress(buf: Uint8Array): Promise<Buffer> {
  return lz4Lib().compressFrame(buf);
}

/**
 * Kafka < 0.10 (magic 0) computed the frame-descriptor checksum over the magic number too
 * (KAFKA-3160); Java reads magic-0 lz4 with the check disabled and librdkafka patches the byte.
 * Returns a copy with the correct HC byte (or the input itself if it is not an lz4 frame).
 */
export function fixLegacyLz4HeaderChecksum(buf: Uint8Array): Uint8Array {
  if (buf.length < 7 || new DataView(buf.buffer, buf.byteOffset, 4).getUint32(0, true) !== FRAME_MAGIC) {
    return buf;
  }
  const flg = buf[4]!;
  const descEnd = 6 + ((flg & 0x08) !== 0 ? 8 : 0) + ((flg & 0x01) !== 0 ? 4 : 0);
  if (descEnd >= buf.length) return buf;
  const copy = Buffer.from(buf);
  copy[descEnd] = (xxhash32(copy, 4, descEnd) >>> 8) & 0xff;
  return copy;
}
