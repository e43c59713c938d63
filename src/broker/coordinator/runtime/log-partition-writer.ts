// PartitionWriter/PartitionLoader over the broker's own partitions of an internal topic
// (__consumer_offsets, __transaction_state). Appends are one uncompressed RecordBatch per
// runtime flush, written as leader with acks=all under the topic's min.insync.replicas
// (NOT_ENOUGH_REPLICAS when the ISR is smaller, as Kafka); "committed" means the high watermark has
// passed the batch (`Partition.waitForHighWatermark`: at once when the ISR is this broker alone,
// else once the followers have it), within `commitTimeoutMs` (REQUEST_TIMED_OUT), and failing
// with NOT_LEADER_OR_FOLLOWER when the leadership is lost meanwhile. A batch the log refuses
// outright (not written at all) rejects with AppendRefusedError, so the runtime can take back
// exactly that batch.
import { ErrorCode, errorInfo, KafkaError } from '../../../protocol/errors.js';
import { encodeControlBatch, readControlRecord } from '../../../protocol/record-batch/control.js';
import {
  decodeRecordBatch,
  encodeRecordBatchSync,
  isControl,
  isTransactional,
  iterateBatches,
} from '../../../protocol/record-batch/index.js';
import type { MinIsrOf } from '../../replica/min-isr.js';
import type { Partition } from '../../replica/partition.js';
import {
  type AppendAttributes,
  AppendRefusedError,
  type LoadedMarker,
  type LoadedRecord,
  type PartitionLoader,
  type PartitionWriter,
  type SerializedRecord,
} from './partition-writer.js';

/** Bytes read per step while loading: big enough to be quick, small enough to yield often. */
const LOAD_CHUNK_BYTES = 1 << 20;
/** How long a write may wait for the followers (Kafka's request.timeout.ms default). */
export const DEFAULT_COMMIT_TIMEOUT_MS = 30_000;

export class LogPartitionWriter implements PartitionWriter, PartitionLoader {
  constructor(
    readonly topic: string,
    private readonly partitionOf: (partition: number) => Partition | undefined,
    /** Absent in hand-made tests: 1. */
    private readonly minIsrOf: MinIsrOf = () => 1,
    private readonly commitTimeoutMs = DEFAULT_COMMIT_TIMEOUT_MS,
  ) {}

  #partition(partition: number): Partition {
    const p = this.partitionOf(partition);
    if (p === undefined || !p.isLeader) {
      throw new KafkaError(ErrorCode.NOT_COORDINATOR, `not the leader of ${this.topic}-${partition}`);
    }
    return p;
  }

  async append(
    partition: number,
    records: readonly SerializedRecord[],
    timestampMs: number,
    attributes?: AppendAttributes,
  ): Promise<bigint> {
    const p = this.#partition(partition);
    if (attributes?.marker !== undefined || attributes?.transaction !== undefined) {
      return this.#appendTransactional(p, records, timestampMs, attributes);
    }
    // A SerializedRecord is a RecordInput (key and value, nothing else): encoded as it is.
    const batch = encodeRecordBatchSync(records, { timestamp: timestampMs });
    const minIsr = this.minIsrOf(this.topic);
    const result = await p.appendAsLeader(batch, -1, minIsr).catch(asRefusal);
    const end = result.lastOffset + 1n;
    await waitForCommit(p, end, this.commitTimeoutMs, minIsr);
    return end;
  }

  /** max.message.bytes of the partition's log (segment.bytes if smaller): the log refuses larger batches. */
  maxBatchBytes(partition: number): number {
    const config = this.partitionOf(partition)?.log.config;
    return config === undefined
      ? Number.POSITIVE_INFINITY
      : Math.min(config.maxMessageBytes, config.segmentBytes);
  }

  /**
   * A transactional batch (written with sequence 0: the log skips sequence and duplicate checks
   * for coordinator writes, as Kafka does) or a control batch; both need the coordinator origin.
   */
  async #appendTransactional(
    p: Partition,
    records: readonly SerializedRecord[],
    timestampMs: number,
    attributes: AppendAttributes,
  ): Promise<bigint> {
    const m = attributes.marker;
    const tx = attributes.transaction;
    const batch =
      m !== undefined
        ? encodeControlBatch({
            producerId: m.producerId,
            producerEpoch: m.producerEpoch,
            type: m.commit ? 'COMMIT' : 'ABORT',
            coordinatorEpoch: m.coordinatorEpoch,
            timestamp: timestampMs,
          })
        : encodeRecordBatchSync(records, {
            timestamp: timestampMs,
            producerId: tx?.producerId,
            producerEpoch: tx?.producerEpoch,
            baseSequence: 0, // coordinator appends are exempt from sequence checks
            transactional: true,
          });
    const minIsr = this.minIsrOf(this.topic);
    const result = await p.appendAsLeader(batch, -1, minIsr, 'coordinator').catch(asRefusal);
    const end = result.lastOffset + 1n;
    await waitForCommit(p, end, this.commitTimeoutMs, minIsr);
    return end;
  }

  async load(
    partition: number,
    onRecords: (records: readonly LoadedRecord[]) => void,
    onMarker?: (marker: LoadedMarker) => void,
  ): Promise<bigint> {
    const p = this.#partition(partition);
    const log = p.log;
    // Up to the log end, as Kafka's loaders: a new leader learned the high watermark a fetch
    // late, so what lies above it was written (and acknowledged) by the previous coordinator,
    // and it becomes committed under this leader. Stopping at the high watermark dropped those
    // records for good: after a coordinator failover the group's last commits were gone.
    const end = log.logEndOffset;
    let offset = log.logStartOffset;
    while (offset < end) {
      const { records: bytes } = await log.read(offset, {
        maxBytes: LOAD_CHUNK_BYTES,
        upperBound: end,
        minOneBatch: true,
      });
      if (bytes.length === 0) break;
      let chunk: LoadedRecord[] = [];
      let next = offset;
      for (const pos of iterateBatches(bytes)) {
        const cursor = await decodeRecordBatch(bytes.subarray(pos.position, pos.position + pos.size));
        const h = cursor.header;
        next = h.baseOffset + BigInt(h.lastOffsetDelta) + 1n;
        if (isControl(h.attributes)) {
          // A transaction marker decides the pending records of its producer: hand over the
          // records before it first, so the shard sees them in log order.
          if (h.baseOffset < offset || onMarker === undefined) continue;
          const marker = markerOf(cursor, h.producerId, h.producerEpoch);
          if (marker === null) continue;
          if (chunk.length > 0) onRecords(chunk);
          chunk = [];
          onMarker(marker);
          continue;
        }
        const producer = isTransactional(h.attributes)
          ? { producerId: h.producerId, producerEpoch: h.producerEpoch }
          : undefined;
        for (const rec of cursor) {
          if (rec.offset < offset || rec.keyLength < 0) continue;
          const r = rec.toRecord();
          chunk.push({
            offset: r.offset,
            key: r.key as Buffer,
            value: r.value,
            ...(producer !== undefined ? { producer } : {}),
          });
        }
      }
      if (chunk.length > 0) onRecords(chunk);
      if (next <= offset) break;
      offset = next;
    }
    return end;
  }
}

/** The COMMIT/ABORT marker of a control batch, or null for other control records. */
function markerOf(
  cursor: Iterable<{ offset: bigint; toRecord(): { key: Uint8Array | null; value: Uint8Array | null } }>,
  producerId: bigint,
  producerEpoch: number,
): LoadedMarker | null {
  for (const rec of cursor) {
    const r = rec.toRecord();
    const c = readControlRecord(
      r.key === null ? null : Buffer.from(r.key),
      r.value === null ? null : Buffer.from(r.value),
    );
    if (c.type !== 'COMMIT' && c.type !== 'ABORT') return null;
    return {
      offset: rec.offset,
      producerId,
      producerEpoch,
      coordinatorEpoch: c.coordinatorEpoch ?? -1,
      commit: c.type === 'COMMIT',
    };
  }
  return null;
}

/**
 * A rejected `appendAsLeader` wrote nothing, except when a disk error struck the write itself
 * (KAFKA_STORAGE_ERROR: the log dir goes offline, its offsets were assigned).
 */
function asRefusal(err: unknown): never {
  if (err instanceof KafkaError && err.code !== ErrorCode.KAFKA_STORAGE_ERROR)
    throw new AppendRefusedError(err.code, err.message, { cause: err });
  throw err;
}

/** Waits until the high watermark passes `offset`; throws KafkaError when it does not. */
export async function waitForCommit(
  p: Partition,
  offset: bigint,
  timeoutMs: number,
  minIsr: number,
): Promise<void> {
  const code = await p.waitForHighWatermark(offset, timeoutMs, minIsr);
  if (code !== ErrorCode.NONE) {
    throw new KafkaError(code, `write to ${p.topic}-${p.index} not committed: ${errorInfo(code).name}`);
  }
}
