// Down-conversion of log entries to a legacy message format for fetchers that predate
// RecordBatch v2 (Kafka's RecordsUtil.downConvert + LazyDownConversionRecords):
// - control batches are dropped (old clients cannot parse them);
// - each v2 batch becomes one legacy entry set with the batch's own compression and timestamp
//   type (LogAppendTime: the batch's MaxTimestamp); headers, producer ids and sequences are lost;
// - records of *uncompressed* batches below the fetch offset are dropped, compressed batches are
//   kept whole (old clients skip the inner messages they did not ask for);
// - zstd has no legacy form: UNSUPPORTED_COMPRESSION_TYPE if the first batch is zstd, otherwise
//   the answer stops before it;
// - entries already at or below the target magic pass unchanged (a legacy entry above it is
//   decoded and re-encoded);
// - the answer holds whole converted entries up to max(input size, first converted batch), the
//   bound Kafka's lazy conversion sends (it may cut the last message instead; old clients drop a
//   partial trailing message anyway).
import { CompressionCodec } from '../compression/index.js';
import { decodeRecordBatch } from './decode.js';
import { RecordBatchError } from './errors.js';
import {
  compressionOf,
  isControl,
  readBatchHeader,
  TIMESTAMP_TYPE_MASK,
  TimestampType,
  timestampTypeOf,
} from './header.js';
import { iterateBatches } from './iterate.js';
import { decodeLegacyMessageSet, parseLegacyMessage } from './legacy.js';
import { encodeLegacyMessageSet, type LegacyRecordInput } from './legacy-encode.js';

export interface DownConvertOptions {
  /** Stored bytes were already verified (the log CRC-checks what it did not write): default false. */
  verifyCrc?: boolean;
  maxDecompressedSize?: number;
}

/**
 * Converts `records` (whole log entries, as a log read returns them) to magic `toMagic` (0 or 1).
 * Throws RecordBatchError UNSUPPORTED_COMPRESSION_TYPE when the first batch is zstd.
 */
export async function downConvertRecords(
  records: Buffer,
  toMagic: 0 | 1,
  fetchOffset: bigint,
  options: DownConvertOptions = {},
): Promise<Buffer> {
  const decodeOptions = {
    verifyCrc: options.verifyCrc ?? false,
    maxDecompressedSize: options.maxDecompressedSize,
  };
  const out: Buffer[] = [];
  let total = 0;
  let limit = records.length;
  for (const e of iterateBatches(records)) {
    const entry = records.subarray(e.position, e.position + e.size);
    let converted: Buffer | null;
    if (e.magic <= toMagic) {
      converted = entry;
    } else if (e.magic < 2) {
      const m = parseLegacyMessage(entry, 0, entry.length, decodeOptions.verifyCrc);
      const codec = m.attributes & 0x07;
      const logAppend = (m.attributes & TIMESTAMP_TYPE_MASK) !== 0;
      const decoded = await decodeLegacyMessageSet(entry, decodeOptions);
      const kept = codec !== 0 ? decoded : decoded.filter((r) => r.offset >= fetchOffset);
      converted =
        kept.length === 0
          ? null
          : await encodeLegacyMessageSet(kept, {
              magic: toMagic,
              compression: codec,
              timestampType: logAppend ? 'LogAppendTime' : 'CreateTime',
              logAppendTime: m.timestamp,
            });
    } else {
      const h = readBatchHeader(entry);
      if (isControl(h.attributes)) continue;
      const codec = compressionOf(h.attributes);
      if (codec === CompressionCodec.ZSTD) {
        if (out.length === 0) {
          throw new RecordBatchError(
            'UNSUPPORTED_COMPRESSION_TYPE',
            'Down-conversion of zstandard-compressed batches is not supported',
          );
        }
        break;
      }
      const cursor = await decodeRecordBatch(entry, decodeOptions);
      const kept: LegacyRecordInput[] = [];
      while (cursor.next()) {
        const r = cursor.toRecord();
        if (codec !== 0 || r.offset >= fetchOffset) kept.push(r);
      }
      const logAppend = timestampTypeOf(h.attributes) === TimestampType.LOG_APPEND_TIME;
      converted =
        kept.length === 0
          ? null
          : await encodeLegacyMessageSet(kept, {
              magic: toMagic,
              compression: codec,
              timestampType: logAppend ? 'LogAppendTime' : 'CreateTime',
              logAppendTime: h.maxTimestamp,
            });
    }
    if (converted === null) continue;
    if (out.length === 0) limit = Math.max(limit, converted.length);
    else if (total + converted.length > limit) break;
    out.push(converted);
    total += converted.length;
  }
  return out.length === 1 ? out[0]! : Buffer.concat(out, total);
}
