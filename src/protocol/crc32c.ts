// CRC-32C (Castagnoli), the checksum of RecordBatch v2 (bytes from Attributes to the end of the
// batch). The native @node-rs/crc32 implementation uses SSE4.2/ARMv8 CRC instructions, which is
// an order of magnitude faster than a table-driven JS loop on large batches.
import { crc32c as nativeCrc32c } from '@node-rs/crc32';

/**
 * CRC-32C of `buf`, as an unsigned 32-bit number. `initial` continues a previous CRC, so that
 * `crc32c(b, crc32c(a)) === crc32c(concat(a, b))`.
 */
export function crc32c(buf: Uint8Array, initial?: number): number {
  return nativeCrc32c(buf, initial) >>> 0;
}
