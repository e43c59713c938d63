// Shared helpers of the storage tests: temporary log dirs and record batches.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeControlBatch } from '../../src/protocol/record-batch/control.js';
import { decodeRecordBatchSync } from '../../src/protocol/record-batch/decode.js';
import { type EncodeBatchOptions, encodeRecordBatchSync } from '../../src/protocol/record-batch/encode.js';
import { iterateBatches } from '../../src/protocol/record-batch/iterate.js';
import { LogManager, type LogManagerOptions } from '../../src/storage/index.js';

export const TOPIC_ID = 'AAAAAAAAAAAAAAAAAAAAAQ';

export function tempDir(
  prefix = 'samsa-storage-',
  parent: string = tmpdir(),
): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(parent, prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A batch of `n` records whose values are `${prefix}-${i}` (keys `k${i}` unless given). */
export function batch(
  n: number,
  prefix = 'v',
  options: EncodeBatchOptions & { keys?: (string | null)[]; values?: (string | null)[] } = {},
): Buffer {
  const records = Array.from({ length: n }, (_, i) => ({
    key: options.keys
      ? options.keys[i] === null
        ? null
        : Buffer.from(options.keys[i]!)
      : Buffer.from(`k${i}`),
    value: options.values
      ? options.values[i] === null
        ? null
        : Buffer.from(options.values[i]!)
      : Buffer.from(`${prefix}-${i}`),
    timestamp: options.timestamp,
  }));
  return encodeRecordBatchSync(records, options);
}

export function controlBatch(
  producerId: bigint,
  producerEpoch: number,
  type: 'ABORT' | 'COMMIT',
  coordinatorEpoch = 0,
): Buffer {
  return encodeControlBatch({ producerId, producerEpoch, type, coordinatorEpoch, timestamp: Date.now() });
}

export interface ReadRecord {
  offset: bigint;
  key: string | null;
  value: string | null;
  timestamp: bigint;
  leaderEpoch: number;
  control: boolean;
}

/** Decodes every record of a buffer of whole batches (CRC-checked). */
export function records(buf: Buffer): ReadRecord[] {
  const out: ReadRecord[] = [];
  for (const b of iterateBatches(buf)) {
    const cursor = decodeRecordBatchSync(buf.subarray(b.position, b.position + b.size));
    const control = (cursor.header.attributes & 0x20) !== 0;
    while (cursor.next()) {
      out.push({
        offset: cursor.offset,
        key: cursor.key()?.toString() ?? null,
        value: cursor.value()?.toString() ?? null,
        timestamp: cursor.timestamp,
        leaderEpoch: cursor.header.partitionLeaderEpoch,
        control,
      });
    }
  }
  return out;
}

export function openManager(
  dir: string | string[],
  extra: Partial<LogManagerOptions> = {},
): Promise<LogManager> {
  return LogManager.open({ logDirs: dir, ...extra });
}
