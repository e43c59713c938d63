// Test helper: encodes a batch with kafkajs 2.2.4's own RecordBatch v0 encoder (the reference
// our uncompressed encoder must match byte for byte). kafkajs ships CommonJS without types.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

interface KafkajsEncoder {
  buffer: Buffer;
}
type KafkajsRecord = (r: {
  offsetDelta: number;
  timestampDelta: number;
  key: Buffer | null;
  value: Buffer | null;
  headers?: Record<string, Buffer | string>;
}) => KafkajsEncoder;
type KafkajsBatch = (b: Record<string, unknown>) => Promise<KafkajsEncoder>;

export const kafkajsRecord: KafkajsRecord = require('kafkajs/src/protocol/recordBatch/record/v0/index.js');
export const kafkajsRecordBatch: KafkajsBatch =
  require('kafkajs/src/protocol/recordBatch/v0/index.js').RecordBatch;
export const kafkajsBatchDecoder: (
  d: unknown,
) => Promise<{ records: unknown[] }> = require('kafkajs/src/protocol/recordBatch/v0/decoder.js');
export const KafkajsDecoder: new (b: Buffer) => unknown = require('kafkajs/src/protocol/decoder.js');
export const KafkajsLong: {
  fromValue(v: number | string | bigint): unknown;
} = require('kafkajs/src/utils/long.js');

export interface RefInput {
  key: Buffer | null;
  value: Buffer | null;
  headers?: Record<string, Buffer>;
  timestamp: number;
}

/** kafkajs's produce-path batch for `records` (offsetDelta = index, base = first timestamp). */
export async function kafkajsEncode(
  records: RefInput[],
  opts: {
    baseOffset?: number;
    producerId?: number;
    producerEpoch?: number;
    baseSequence?: number;
    transactional?: boolean;
    partitionLeaderEpoch?: number;
  } = {},
): Promise<Buffer> {
  const base = records[0]!.timestamp;
  const max = Math.max(...records.map((r) => r.timestamp));
  const encoded = records.map((r, i) =>
    kafkajsRecord({
      offsetDelta: i,
      timestampDelta: r.timestamp - base,
      key: r.key,
      value: r.value,
      headers: r.headers,
    }),
  );
  const batch = await kafkajsRecordBatch({
    compression: 0,
    firstOffset: KafkajsLong.fromValue(opts.baseOffset ?? 0),
    firstTimestamp: base,
    maxTimestamp: max,
    partitionLeaderEpoch: opts.partitionLeaderEpoch ?? 0,
    lastOffsetDelta: records.length - 1,
    transactional: opts.transactional ?? false,
    producerId: KafkajsLong.fromValue(opts.producerId ?? -1),
    producerEpoch: opts.producerEpoch ?? 0,
    firstSequence: opts.baseSequence ?? 0,
    records: encoded,
  });
  return batch.buffer;
}
