// Idempotent batches this replica refused before they reached its log because it could not take
// writes at that moment (not the leader yet or any more, fenced, the ISR below
// min.insync.replicas): retriable answers that tell the client "not persisted".
//
// Why: a client keeps up to 5 batches of a partition in flight. When leadership (or the ISR)
// changes between two of them, the first is refused that way while the next one reaches the log
// with a sequence gap, which Kafka answers OUT_OF_ORDER_SEQUENCE_NUMBER. librdkafka before 2.2
// takes that for fatal when an earlier possibly-persisted error (a broken connection, a timeout)
// had moved its expected sequence past the retried batches ("rewound sequence number",
// librdkafka #4438); later versions bump the producer epoch. Both happen only because the
// refusal and the next batch saw different states of this replica. So a batch whose missing
// predecessors are exactly batches refused here gets their answer instead: it was not persisted
// either and is retried after them, in order. A gap nothing here explains is still
// OUT_OF_ORDER_SEQUENCE_NUMBER, and a batch in sequence or a duplicate is unaffected.
import {
  ATTRIBUTES_OFFSET,
  BASE_SEQUENCE_OFFSET,
  CURRENT_MAGIC,
  isControl,
  LAST_OFFSET_DELTA_OFFSET,
  MAGIC_OFFSET,
  PRODUCER_EPOCH_OFFSET,
  PRODUCER_ID_OFFSET,
  RECORD_BATCH_OVERHEAD,
} from '../protocol/record-batch/header.js';

const INT32_MAX = 0x7fffffff;
/** Refusals kept per producer: as many batches as a client keeps in flight per partition. */
const PER_PRODUCER = 5;
/** Producers with refusals kept per partition (the oldest go first). */
const MAX_PRODUCERS = 1024;
/** A refusal older than this no longer explains anything (pruned with idle producers). */
export const REFUSAL_MEMORY_MS = 120_000n;

export interface RefusedBatch {
  readonly epoch: number;
  readonly firstSeq: number;
  readonly lastSeq: number;
  /** The error code the batch was refused with. */
  readonly code: number;
  readonly atMs: bigint;
}

export class RefusedBatches {
  /** Created on the first refusal: most partitions never refuse anything. */
  #byProducer: Map<bigint, RefusedBatch[]> | null = null;

  /** Records a refused client batch (v2, idempotent, not a control batch; anything else is ignored). */
  noteBatch(batch: Buffer, code: number, nowMs: bigint): void {
    if (batch.length < RECORD_BATCH_OVERHEAD || batch[MAGIC_OFFSET] !== CURRENT_MAGIC) return;
    if (isControl(batch.readInt16BE(ATTRIBUTES_OFFSET))) return;
    const producerId = batch.readBigInt64BE(PRODUCER_ID_OFFSET);
    const firstSeq = batch.readInt32BE(BASE_SEQUENCE_OFFSET);
    const delta = batch.readInt32BE(LAST_OFFSET_DELTA_OFFSET);
    if (producerId < 0n || firstSeq < 0 || delta < 0) return;
    const lastSeq = firstSeq > INT32_MAX - delta ? delta - (INT32_MAX - firstSeq) - 1 : firstSeq + delta;
    const epoch = batch.readInt16BE(PRODUCER_EPOCH_OFFSET);
    this.note(producerId, { epoch, firstSeq, lastSeq, code, atMs: nowMs });
  }

  note(producerId: bigint, r: RefusedBatch): void {
    this.#byProducer ??= new Map<bigint, RefusedBatch[]>();
    const byProducer = this.#byProducer;
    let list = byProducer.get(producerId);
    if (list === undefined) {
      if (byProducer.size >= MAX_PRODUCERS) {
        const oldest = byProducer.keys().next().value;
        if (oldest !== undefined) byProducer.delete(oldest);
      }
      list = [];
      byProducer.set(producerId, list);
    }
    const same = list.findIndex((x) => x.epoch === r.epoch && x.firstSeq === r.firstSeq);
    if (same >= 0) list.splice(same, 1);
    list.push(r);
    if (list.length > PER_PRODUCER) list.shift();
  }

  /**
   * The refusal a batch of `producerId` at `epoch` starting at `firstSeq` inherits: the refused
   * batch right before it, provided refused batches fill the whole gap back to `expected` (the
   * sequence this replica expects next; null when it knows no sequence of this producer and
   * epoch, so any refused predecessor explains it). Null: the gap is not explained by refusals.
   */
  explaining(
    producerId: bigint,
    epoch: number,
    firstSeq: number,
    expected: number | null,
  ): RefusedBatch | null {
    const list = this.#byProducer?.get(producerId);
    if (list === undefined) return null;
    let seq = firstSeq;
    let nearest: RefusedBatch | null = null;
    for (let hops = 0; hops < list.length; hops++) {
      const before = seq === 0 ? INT32_MAX : seq - 1;
      const r = list.find((x) => x.epoch === epoch && x.lastSeq === before);
      if (r === undefined) return null;
      nearest ??= r;
      seq = r.firstSeq;
      if (expected === null || seq === expected) return nearest;
    }
    return null;
  }

  /** Drops refusals older than REFUSAL_MEMORY_MS. */
  prune(nowMs: bigint): void {
    const byProducer = this.#byProducer;
    if (byProducer === null) return;
    for (const [id, list] of byProducer) {
      const kept = list.filter((r) => nowMs - r.atMs <= REFUSAL_MEMORY_MS);
      if (kept.length === 0) byProducer.delete(id);
      else if (kept.length !== list.length) byProducer.set(id, kept);
    }
    if (byProducer.size === 0) this.#byProducer = null;
  }
}
