// Old-protocol helpers for tests: hand-built legacy messages (so hostile variants are easy),
// Produce v0-2 requests, and a look at the stored v2 batches (Fetch v0-3: `fetchOnce` in
// wire.ts with a `version`).

import zlib from 'node:zlib';
import { compressSync } from '../../../src/protocol/compression/index.js';
import { produceApi } from '../../../src/protocol/messages/generated/produce.js';
import { iterateBatches, readBatchHeader } from '../../../src/protocol/record-batch/index.js';
import type { RawClient } from './raw-client.js';
import { fetchOnce } from './wire.js';

function bytes(b: Buffer | null): Buffer {
  const len = Buffer.alloc(4);
  len.writeInt32BE(b === null ? -1 : b.length);
  return b === null ? len : Buffer.concat([len, b]);
}

/** One log entry holding a legacy message (CRC-32 over magic..end). */
export function entry(
  offset: bigint,
  magic: 0 | 1,
  attributes: number,
  key: Buffer | null,
  value: Buffer | null,
  ts = 0n,
): Buffer {
  const head = Buffer.alloc(magic === 1 ? 10 : 2);
  head[0] = magic;
  head[1] = attributes;
  if (magic === 1) head.writeBigInt64BE(ts, 2);
  const body = Buffer.concat([head, bytes(key), bytes(value)]);
  const prefix = Buffer.alloc(16);
  prefix.writeBigInt64BE(offset, 0);
  prefix.writeInt32BE(body.length + 4, 8);
  prefix.writeUInt32BE(zlib.crc32(body) >>> 0, 12);
  return Buffer.concat([prefix, body]);
}

/** A compressed wrapper (codec 1-3) around an inner message set. */
export function wrapper(
  offset: bigint,
  magic: 0 | 1,
  codec: number,
  inner: Buffer,
  ts = 0n,
  extraAttributes = 0,
): Buffer {
  return entry(
    offset,
    magic,
    codec | extraAttributes,
    null,
    compressSync(codec, inner, { xerial: true }),
    ts,
  );
}

export const k = (s: string): Buffer => Buffer.from(s);

export async function produceLegacy(
  c: RawClient,
  version: 0 | 1 | 2,
  topic: string,
  records: Buffer | null,
  acks = 1,
) {
  const r = await c.request(produceApi, version, {
    transactionalId: null,
    acks,
    timeoutMs: 5000,
    topicData: [{ name: topic, partitionData: [{ index: 0, records }] }],
  });
  return r.responses[0]!.partitionResponses[0]!;
}

/** Headers of the stored batches (Fetch v11 from offset 0, read_uncommitted). */
export async function storedHeaders(c: RawClient, topic: string) {
  const p = await fetchOnce(c, topic, 0, 0n);
  const records = p.records ?? Buffer.alloc(0);
  return [...iterateBatches(records)].map((b) => readBatchHeader(records, b.position));
}
