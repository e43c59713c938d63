// Snappy in Kafka comes in two shapes (CLIENTS.md §2.3):
// - raw snappy (one block: uvarint uncompressed length + elements), written by librdkafka;
// - xerial framing, written by Java's snappy-java `SnappyOutputStream`: the 8-byte magic
//   `82 'SNAPPY' 00`, int32 version, int32 compatible version, then blocks of
//   `int32 compressed length + raw snappy block`.
// Decompression detects the framing; compression writes raw by default (Java reads both, since
// snappy-java's input stream falls back to raw when the magic is absent) and xerial on request.
import { corruptData, tooLarge } from './limits.js';
import { snappyLib } from './native.js';

const XERIAL_MAGIC = Buffer.from([0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00]);
const XERIAL_HEADER_SIZE = 16;
/** snappy-java's default block size; Kafka uses the default stream. */
const XERIAL_BLOCK_SIZE = 32 * 1024;

export function isXerial(buf: Uint8Array): boolean {
  if (buf.length < XERIAL_HEADER_SIZE) return false;
  for (let i = 0; i < XERIAL_MAGIC.length; i++) if (buf[i] !== XERIAL_MAGIC[i]) return false;
  return true;
}

/** The uncompressed length a raw snappy block declares in its uvarint preamble. */
export function rawSnappyLength(buf: Uint8Array, start: number, end: number): number {
  let result = 0;
  let shift = 0;
  for (let i = start; i < end && shift <= 28; i++) {
    const b = buf[i]!;
    result += (b & 0x7f) * 2 ** shift;
    if ((b & 0x80) === 0) {
      if (result > 0xffffffff) break;
      return result;
    }
    shift += 7;
  }
  throw corruptData('invalid snappy length preamble');
}

function toBuffer(buf: Uint8Array): Buffer {
  return Buffer.isBuffer(buf) ? buf : Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
}

/** Splits a xerial stream into raw blocks, checking every length against the input and the cap. */
function xerialBlocks(buf: Buffer, maxSize: number): { blocks: Buffer[]; total: number } {
  const blocks: Buffer[] = [];
  let total = 0;
  let pos = XERIAL_HEADER_SIZE;
  while (pos < buf.length) {
    if (pos + 4 > buf.length) throw corruptData('truncated xerial snappy block length');
    const len = buf.readInt32BE(pos);
    pos += 4;
    if (len < 0 || pos + len > buf.length)
      throw corruptData(`xerial snappy block length ${len} out of bounds`);
    const block = buf.subarray(pos, pos + len);
    total += rawSnappyLength(block, 0, block.length);
    if (total > maxSize) throw tooLarge('snappy (xerial)', total, maxSize);
    blocks.push(block);
    pos += len;
  }
  return { blocks, total };
}

function checkRaw(buf: Buffer, maxSize: number): void {
  const n = rawSnappyLength(buf, 0, buf.length);
  if (n > maxSize) throw tooLarge('snappy', n, maxSize);
}

function uncompressRawSync(block: Buffer): Buffer {
  try {
    return snappyLib().uncompressSync(block, { asBuffer: true }) as Buffer;
  } catch (err) {
    throw corruptData('invalid snappy data', err);
  }
}

export function snappyDecompressSync(input: Uint8Array, maxSize: number): Buffer {
  const buf = toBuffer(input);
  if (!isXerial(buf)) {
    checkRaw(buf, maxSize);
    return uncompressRawSync(buf);
  }
  const { blocks, total } = xerialBlocks(buf, maxSize);
  const out = Buffer.allocUnsafe(total);
  let pos = 0;
  for (const block of blocks) pos += copyChecked(uncompressRawSync(block), out, pos);
  return out;
}

export async function snappyDecompress(input: Uint8Array, maxSize: number): Promise<Buffer> {
  const buf = toBuffer(input);
  if (!isXerial(buf)) {
    checkRaw(buf, maxSize);
    try {
      return (await snappyLib().uncompress(buf, { asBuffer: true })) as Buffer;
    } catch (err) {
      throw corruptData('invalid snappy data', err);
    }
  }
  const { blocks, total } = xerialBlocks(buf, maxSize);
  const out = Buffer.allocUnsafe(total);
  let pos = 0;
  for (const block of blocks) {
    let part: Buffer;
    try {
      part = (await snappyLib().uncompress(block, { asBuffer: true })) as Buffer;
    } catch (err) {
      throw corruptData('invalid snappy data', err);
    }
    pos += copyChecked(part, out, pos);
  }
  return out;
}

function copyChecked(part: Buffer, out: Buffer, pos: number): number {
  // The preamble promised part.length bytes; a lying preamble must not overrun `out`.
  if (pos + part.length > out.length) throw corruptData('snappy block longer than its preamble');
  return part.copy(out, pos);
}

export function snappyCompressSync(buf: Uint8Array, xerial = false): Buffer {
  if (!xerial) return snappyLib().compressSync(buf);
  const parts: Buffer[] = [xerialHeader()];
  for (let pos = 0; pos < buf.length; pos += XERIAL_BLOCK_SIZE) {
    parts.push(xerialBlock(snappyLib().compressSync(buf.subarray(pos, pos + XERIAL_BLOCK_SIZE))));
  }
  return Buffer.concat(parts);
}

export async function snappyCompress(buf: Uint8Array, xerial = false): Promise<Buffer> {
  if (!xerial) return snappyLib().compress(buf);
  const parts: Buffer[] = [xerialHeader()];
  for (let pos = 0; pos < buf.length; pos += XERIAL_BLOCK_SIZE) {
    parts.push(xerialBlock(await snappyLib().compress(buf.subarray(pos, pos + XERIAL_BLOCK_SIZE))));
  }
  return Buffer.concat(parts);
}

function xerialHeader(): Buffer {
  const h = Buffer.alloc(XERIAL_HEADER_SIZE);
  XERIAL_MAGIC.copy(h, 0);
  h.writeInt32BE(1, 8); // version
  h.writeInt32BE(1, 12); // compatible version
  return h;
}

function xerialBlock(compressed: Buffer): Buffer {
  const len = Buffer.allocUnsafe(4);
  len.writeInt32BE(compressed.length, 0);
  return Buffer.concat([len, compressed]);
}
