// The fetched data of one partition, decoded lazily as the application polls (like Java's
// CompletedFetch): batches are opened one at a time, so memory holds the raw response plus at most
// one decompressed batch, and a poll of max.poll.records decodes only what it returns.
//
// What never reaches the application (CLIENTS.md §2.4–2.5):
// - records below the requested offset (a fetch starting mid-batch returns the whole batch);
// - control batches (transaction markers);
// - with read_committed, batches of aborted transactions: the response lists each aborted
//   transaction's producer id and first offset; a producer's transactional batches are dropped
//   from that offset until its ABORT marker.
// A batch that cannot be decoded (CRC mismatch, bad record) makes every later drain throw the
// same error until the application seeks past it; the position stays before the bad batch.
import { KafkaError } from '../../protocol/errors.js';
import {
  type BatchHeader,
  batchSize,
  CURRENT_MAGIC,
  compressionOf,
  type DecodedRecord,
  decodeLegacyMessageSetSync,
  decodeRecordBatch,
  decodeRecordBatchSync,
  isControl,
  isTransactional,
  iterateBatches,
  type RecordCursor,
  readBatchHeader,
  readControlRecord,
  TIMESTAMP_TYPE_MASK,
} from '../../protocol/record-batch/index.js';
import { KafkaResponseError } from '../errors.js';
import type { Deserializer } from './consumer-config.js';
import type { PartitionState } from './subscription-state.js';
import type { ConsumerRecord, RecordHeader } from './types.js';

export interface AbortedTransaction {
  producerId: bigint;
  firstOffset: bigint;
}

const ZSTD = 4;
const NO_HEADERS: readonly RecordHeader[] = Object.freeze([]);
/** BigInts of small offset deltas, so a record's offset costs one bigint addition. */
const DELTAS: bigint[] = Array.from({ length: 4096 }, (_, i) => BigInt(i));

/**
 * End of the complete batches in `records`, the offset right after the last one, and the last
 * one's leader epoch (−1 for legacy entries, which carry none).
 */
export function scanBatches(records: Buffer): { end: number; nextOffset: bigint | null; lastEpoch: number } {
  let end = 0;
  let nextOffset: bigint | null = null;
  let lastEpoch = -1;
  for (const b of iterateBatches(records)) {
    end = b.position + b.size;
    // v2: BaseOffset + LastOffsetDelta; legacy: the entry's offset is its (last) message's offset.
    const base = records.readBigInt64BE(b.position);
    const v2 = b.magic === CURRENT_MAGIC;
    nextOffset = v2 ? base + BigInt(records.readInt32BE(b.position + 23)) + 1n : base + 1n;
    lastEpoch = v2 ? records.readInt32BE(b.position + 12) : -1;
  }
  return { end, nextOffset, lastEpoch };
}

export class CompletedFetch {
  readonly state: PartitionState;
  /** The partition epoch this data was fetched for (stale if the partition was seeked since). */
  readonly epoch: number;
  /** Next offset the application should see from this data (starts at the requested offset). */
  nextFetchOffset: bigint;
  /** Raw bytes not yet consumed (for the buffer budget). */
  bytesLeft: number;
  /**
   * Leader epoch of the last batch opened or passed (control and aborted batches included), −1
   * before the first: the epoch of the position once nextFetchOffset is reached.
   */
  lastEpoch = -1;
  #records: Buffer;
  #pos = 0;
  readonly #end: number;
  readonly #readCommitted: boolean;
  readonly #verifyCrc: boolean;
  readonly #aborted: AbortedTransaction[];
  #abortedIdx = 0;
  readonly #abortedProducers = new Set<bigint>();
  #cursor: RecordCursor | null = null;
  #cursorLast = -1n;
  #cursorMinDelta = 0;
  #leaderEpoch = -1;
  #logAppendTime = false;
  #legacy: DecodedRecord[] | null = null;
  #legacyIdx = 0;
  #error: Error | null = null;

  constructor(
    state: PartitionState,
    epoch: number,
    fetchOffset: bigint,
    records: Buffer,
    end: number,
    aborted: readonly AbortedTransaction[] | null,
    readCommitted: boolean,
    verifyCrc: boolean,
  ) {
    this.state = state;
    this.epoch = epoch;
    this.nextFetchOffset = fetchOffset;
    this.#records = records;
    this.#end = end;
    this.bytesLeft = end;
    this.#readCommitted = readCommitted;
    this.#verifyCrc = verifyCrc;
    this.#aborted =
      aborted === null
        ? []
        : [...aborted].sort((a, b) =>
            a.firstOffset < b.firstOffset ? -1 : a.firstOffset > b.firstOffset ? 1 : 0,
          );
  }

  /** True once every batch has been consumed (and no error is pending). */
  get done(): boolean {
    return this.#error === null && this.#cursor === null && this.#legacy === null && this.#pos >= this.#end;
  }

  /** Releases the data without consuming it (seek, revocation, close). */
  discard(): void {
    this.#cursor = null;
    this.#legacy = null;
    this.#pos = this.#end;
    this.bytesLeft = 0;
    this.#records = Buffer.alloc(0);
  }

  /**
   * Appends up to `max - out.length` records to `out`. Returns after the data is exhausted or the
   * limit is reached. Throws the batch's decode error (again on every call) if one is bad.
   */
  async drain<K, V>(
    out: ConsumerRecord<K, V>[],
    max: number,
    kd: Deserializer<K> | null,
    vd: Deserializer<V> | null,
  ): Promise<void> {
    if (this.#error !== null) throw this.#error;
    const topic = this.state.topic;
    const partition = this.state.partition;
    try {
      while (out.length < max) {
        const c = this.#cursor;
        if (c !== null) {
          const minDelta = this.#cursorMinDelta;
          const base = c.header.baseOffset;
          const tsType = this.#logAppendTime ? 'LogAppendTime' : 'CreateTime';
          const epoch = this.#leaderEpoch;
          let lastDelta = -1;
          while (out.length < max && c.next()) {
            const delta = c.offsetDelta;
            if (delta < minDelta) continue;
            const headers = c.headerCount === 0 ? NO_HEADERS : c.headers();
            const key = c.key();
            const value = c.value();
            out.push({
              topic,
              partition,
              offset: base + (delta < 4096 ? DELTAS[delta]! : BigInt(delta)),
              timestamp: c.timestampMs,
              timestampType: tsType,
              key: kd === null ? (key as K) : kd(key, topic, headers),
              value: vd === null ? (value as V) : vd(value, topic, headers),
              headers,
              leaderEpoch: epoch,
            });
            lastDelta = delta;
          }
          if (lastDelta >= 0) this.nextFetchOffset = base + BigInt(lastDelta + 1);
          if (out.length >= max && c.index + 1 < c.header.recordCount) return;
          this.#finishBatch(this.#cursorLast);
          continue;
        }
        if (this.#legacy !== null) {
          const list = this.#legacy;
          while (out.length < max && this.#legacyIdx < list.length) {
            const r = list[this.#legacyIdx++]!;
            if (r.offset < this.nextFetchOffset) continue;
            out.push({
              topic,
              partition,
              offset: r.offset,
              timestamp: Number(r.timestamp),
              timestampType: 'CreateTime',
              key: kd === null ? (r.key as K) : kd(r.key, topic, r.headers),
              value: vd === null ? (r.value as V) : vd(r.value, topic, r.headers),
              headers: r.headers,
              leaderEpoch: -1,
            });
            this.nextFetchOffset = r.offset + 1n;
          }
          if (this.#legacyIdx < list.length) return;
          this.#finishBatch(this.#cursorLast);
          continue;
        }
        if (this.#pos >= this.#end) return;
        // Only a zstd batch is opened asynchronously: the others cost no microtask hop.
        const opening = this.#openNext();
        if (opening !== null) await opening;
      }
    } catch (err) {
      this.#error = toClientError(err, topic, partition, this.nextFetchOffset);
      this.#cursor = null;
      this.#legacy = null;
      throw this.#error;
    }
  }

  #finishBatch(last: bigint): void {
    this.#cursor = null;
    this.#legacy = null;
    if (last + 1n > this.nextFetchOffset) this.nextFetchOffset = last + 1n;
  }

  /**
   * Opens the next batch that has anything to deliver; skips (and releases) the others. Returns
   * the decompression still under way for a zstd batch, null when done.
   */
  #openNext(): Promise<void> | null {
    const buf = this.#records;
    while (this.#pos < this.#end) {
      const pos = this.#pos;
      const size = batchSize(buf, pos);
      this.#pos = pos + size;
      this.bytesLeft -= size;
      const entry = buf.subarray(pos, pos + size);
      if (buf.readInt8(pos + 16) !== CURRENT_MAGIC) {
        // Legacy message set entry (a compressed wrapper expands to several messages).
        const last = buf.readBigInt64BE(pos);
        if (last < this.nextFetchOffset) continue;
        this.#legacy = decodeLegacyMessageSetSync(entry, { verifyCrc: this.#verifyCrc });
        this.#legacyIdx = 0;
        this.#cursorLast = last;
        return null;
      }
      const h = readBatchHeader(buf, pos);
      const last = h.baseOffset + BigInt(h.lastOffsetDelta);
      if (last < this.nextFetchOffset) continue;
      if (h.partitionLeaderEpoch >= 0) this.lastEpoch = h.partitionLeaderEpoch;
      if (this.#readCommitted && h.producerId >= 0n) {
        this.#consumeAbortedUpTo(last);
        if (isControl(h.attributes)) {
          if (this.#isAbortMarker(entry)) this.#abortedProducers.delete(h.producerId);
        } else if (isTransactional(h.attributes) && this.#abortedProducers.has(h.producerId)) {
          this.#finishBatch(last);
          continue;
        }
      }
      if (isControl(h.attributes)) {
        this.#finishBatch(last);
        continue;
      }
      const opts = { verifyCrc: this.#verifyCrc };
      if (compressionOf(h.attributes) === ZSTD) {
        return decodeRecordBatch(entry, opts).then((cursor) => this.#opened(cursor, h, last));
      }
      this.#opened(decodeRecordBatchSync(entry, opts), h, last);
      return null;
    }
    return null;
  }

  #opened(cursor: RecordCursor, h: BatchHeader, last: bigint): void {
    this.#cursor = cursor;
    this.#cursorLast = last;
    const gap = this.nextFetchOffset - h.baseOffset;
    this.#cursorMinDelta = gap > 0n ? Number(gap) : 0;
    this.#leaderEpoch = h.partitionLeaderEpoch;
    this.#logAppendTime = (h.attributes & TIMESTAMP_TYPE_MASK) !== 0;
  }

  #consumeAbortedUpTo(offset: bigint): void {
    const list = this.#aborted;
    while (this.#abortedIdx < list.length && list[this.#abortedIdx]!.firstOffset <= offset) {
      this.#abortedProducers.add(list[this.#abortedIdx]!.producerId);
      this.#abortedIdx++;
    }
  }

  #isAbortMarker(entry: Buffer): boolean {
    const c: RecordCursor = decodeRecordBatchSync(entry, { verifyCrc: this.#verifyCrc });
    if (!c.next()) return false;
    return readControlRecord(c.key(), c.value()).type === 'ABORT';
  }
}

function toClientError(err: unknown, topic: string, partition: number, offset: bigint): Error {
  if (err instanceof KafkaError) {
    // RecordBatchError (and the compression errors it wraps) carry the Kafka code already.
    const e = new KafkaResponseError(
      err.code,
      `record data of ${topic}-${partition} at offset ${offset}`,
      err.message,
    );
    (e as { cause?: unknown }).cause = err;
    return e;
  }
  return err as Error;
}
