// PartitionWriter/PartitionLoader over the broker's own partitions of an internal topic
// (__consumer_offsets, later __transaction_state). Appends are one uncompressed RecordBatch
// per runtime flush, written as leader with acks=all; "committed" means the high watermark
// has passed the batch, which on a single broker is immediately after the write.
import { ErrorCode, KafkaError } from '../../../protocol/errors.js';
import { decodeRecordBatch, encodeRecordBatchSync, isControl, iterateBatches } from '../../../protocol/record-batch/index.js';
import type { Partition } from '../../replica/partition.js';
import type { LoadedRecord, PartitionLoader, PartitionWriter, SerializedRecord } from './partition-writer.js';

/** Bytes read per step while loading: big enough to be quick, small enough to yield often. */
const LOAD_CHUNK_BYTES = 1 << 20;

export class LogPartitionWriter implements PartitionWriter, PartitionLoader {
  constructor(
    readonly topic: string,
    private readonly partitionOf: (partition: number) => Partition | undefined,
  ) {}

  #partition(partition: number): Partition {
    const p = this.partitionOf(partition);
    if (p === undefined || !p.isLeader) {
      throw new KafkaError(ErrorCode.NOT_COORDINATOR, `not the leader of ${this.topic}-${partition}`);
    }
    return p;
  }

  async append(partition: number, records: readonly SerializedRecord[], timestampMs: number): Promise<bigint> {
    const p = this.#partition(partition);
    const batch = encodeRecordBatchSync(
      records.map((r) => ({ key: r.key, value: r.value })),
      { timestamp: timestampMs },
    );
    const result = await p.appendAsLeader(batch, -1, 1);
    const end = result.lastOffset + 1n;
    await waitForHighWatermark(p, end);
    return end;
  }

  async load(partition: number, onRecords: (records: readonly LoadedRecord[]) => void): Promise<bigint> {
    const p = this.#partition(partition);
    const log = p.log;
    const end = log.highWatermark;
    let offset = log.logStartOffset;
    while (offset < end) {
      const { records: bytes } = await log.read(offset, { maxBytes: LOAD_CHUNK_BYTES, upperBound: end, minOneBatch: true });
      if (bytes.length === 0) break;
      const chunk: LoadedRecord[] = [];
      let next = offset;
      for (const pos of iterateBatches(bytes)) {
        const cursor = await decodeRecordBatch(bytes.subarray(pos.position, pos.position + pos.size));
        next = cursor.header.baseOffset + BigInt(cursor.header.lastOffsetDelta) + 1n;
        // Control batches (transaction markers) carry no coordinator state.
        if (isControl(cursor.header.attributes)) continue;
        for (const rec of cursor) {
          if (rec.offset < offset || rec.keyLength < 0) continue;
          const r = rec.toRecord();
          chunk.push({ offset: r.offset, key: r.key as Buffer, value: r.value });
        }
      }
      if (chunk.length > 0) onRecords(chunk);
      if (next <= offset) break;
      offset = next;
    }
    return end;
  }
}

function waitForHighWatermark(p: Partition, offset: bigint): Promise<void> {
  if (p.log.highWatermark >= offset) return Promise.resolve();
  return new Promise((resolve) => {
    const off = p.log.onAppend((log) => {
      if (log.highWatermark >= offset) {
        off();
        resolve();
      }
    });
  });
}
