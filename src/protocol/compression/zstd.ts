// zstd: standard zstd frames via @mongodb-js/zstd, which (in 1.2) only has async functions.
// Before decompressing we walk the frames' block headers to bound the output: a hostile frame
// can declare a huge content size or chain RLE blocks that each expand to 128 KiB from 1 byte.
import { corruptData, tooLarge } from './limits.js';
import { zstdLib } from './native.js';

const FRAME_MAGIC = 0xfd2fb528;
const MAX_BLOCK = 128 * 1024;
/** Kafka's default `compression.zstd.level`. */
export const ZSTD_DEFAULT_LEVEL = 3;

interface FrameScan {
  /** Upper bound of the decompressed size. */
  bound: number;
  /** Frames whose last compressed block may be partial: the bound's possible overshoot. */
  slack: number;
}

/** Walks a sequence of zstd (and skippable) frames; throws on broken structure. */
export function zstdScan(buf: Uint8Array, maxSize: number): FrameScan {
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  let pos = 0;
  let bound = 0;
  let slack = 0;
  if (buf.length < 4) throw corruptData('truncated zstd frame');
  while (pos < buf.length) {
    if (pos + 8 > buf.length) throw corruptData('truncated zstd frame header');
    const magic = view.getUint32(pos, true);
    if ((magic & 0xfffffff0) >>> 0 === 0x184d2a50) {
      pos += 8 + view.getUint32(pos + 4, true);
      continue;
    }
    if (magic !== FRAME_MAGIC) throw corruptData('not a zstd frame (bad magic)');
    const fhd = buf[pos + 4]!;
    if (fhd & 0x08) throw corruptData('zstd frame header reserved bit set');
    const singleSegment = (fhd & 0x20) !== 0;
    const fcsFlag = fhd >> 6;
    const fcsSize = fcsFlag === 0 ? (singleSegment ? 1 : 0) : 1 << fcsFlag;
    const dictSize = [0, 1, 2, 4][fhd & 3]!;
    pos += 5 + (singleSegment ? 0 : 1) + dictSize;
    if (pos + fcsSize > buf.length) throw corruptData('truncated zstd frame header');
    if (fcsSize > 0) {
      let fcs = 0;
      for (let i = fcsSize - 1; i >= 0; i--) fcs = fcs * 256 + buf[pos + i]!;
      if (fcsSize === 2) fcs += 256;
      // The native decoder may allocate the declared size up front: refuse before it can.
      if (fcs > maxSize) throw tooLarge('zstd', fcs, maxSize);
    }
    pos += fcsSize;
    for (;;) {
      if (pos + 3 > buf.length) throw corruptData('truncated zstd block header');
      const header = buf[pos]! | (buf[pos + 1]! << 8) | (buf[pos + 2]! << 16);
      pos += 3;
      const type = (header >> 1) & 3;
      const size = header >>> 3;
      if (type === 3) throw corruptData('reserved zstd block type');
      if (size > MAX_BLOCK) throw corruptData(`zstd block size ${size} exceeds 128 KiB`);
      if (type === 2) bound += MAX_BLOCK;
      else bound += size; // raw and RLE blocks regenerate exactly `size` bytes
      pos += type === 1 ? 1 : size;
      if (pos > buf.length) throw corruptData('truncated zstd block');
      if (header & 1) break; // Last_Block
    }
    slack += MAX_BLOCK;
    if (fhd & 0x04) pos += 4; // content checksum
    if (pos > buf.length) throw corruptData('truncated zstd checksum');
  }
  return { bound, slack };
}

function asBuffer(buf: Uint8Array): Buffer {
  return Buffer.isBuffer(buf) ? buf : Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
}

export async function zstdDecompress(buf: Uint8Array, maxSize: number): Promise<Buffer> {
  const { bound, slack } = zstdScan(buf, maxSize);
  // Compressed blocks are counted at 128 KiB; only the last one of each frame may be shorter.
  if (bound - slack > maxSize) throw tooLarge('zstd', bound, maxSize);
  let out: Buffer;
  try {
    out = await zstdLib().decompress(asBuffer(buf));
  } catch (err) {
    throw corruptData('invalid zstd data', err);
  }
  if (out.length > maxSize) throw tooLarge('zstd', out.length, maxSize);
  return out;
}

export function zstdCompress(buf: Uint8Array, level = ZSTD_DEFAULT_LEVEL): Promise<Buffer> {
  return zstdLib().compress(asBuffer(buf), level);
}
