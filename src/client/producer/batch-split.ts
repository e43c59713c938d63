// A batch the broker refused as too large (MESSAGE_TOO_LARGE: the topic's max.message.bytes is
// below what the batch grew to) is split into batches of batch.size and sent again, as Java's
// producer does (RecordAccumulator.splitAndReenqueue); only a single record too large for the
// topic fails. The broker appended none of it, so the pieces keep its sequence range: piece k
// starts at the original base sequence plus the records before it, and later batches of the
// partition (answered OUT_OF_ORDER_SEQUENCE_NUMBER meanwhile) are resent behind them.
import { Reader } from '../../protocol/primitives/reader.js';
import { BATCH_HEADER_SIZE, type EncodedHeaders, recordSizeUpperBound, varintSize } from './batch-builder.js';
import { incrementSequence } from './idempotence.js';
import { ProducerBatch } from './producer-batch.js';

const NO_HEADERS: EncodedHeaders = Object.freeze({ list: null, size: 1 });

/** Reads one record's headers back into the form `BatchBuilder.tryAppend` takes. */
function readHeaders(r: Reader): EncodedHeaders {
  const count = r.varint();
  if (count <= 0) return NO_HEADERS;
  const list: [Buffer, Buffer | null][] = [];
  let size = varintSize(count);
  for (let h = 0; h < count; h++) {
    const kl = r.varint();
    const k = r.slice(kl);
    const vl = r.varint();
    const v = vl < 0 ? null : r.slice(vl);
    list.push([k, v]);
    size += varintSize(kl) + kl + (v === null ? 1 : varintSize(vl) + vl);
  }
  return { list, size };
}

/**
 * The records of a drained batch `b`, re-encoded into batches of at most `batchSize` bytes (a
 * record larger than that gets a batch of its own), each with the completions of its records
 * and its share of `b`'s sequence range. `buffer(size)` supplies a pooled buffer when it has one.
 */
export function splitBatch(
  b: ProducerBatch,
  batchSize: number,
  buffer: (size: number) => Buffer | undefined,
): ProducerBatch[] {
  const completions = b.completionList();
  const r = new Reader(b.buffer, BATCH_HEADER_SIZE, b.uncompressedBytes);
  const pieces: ProducerBatch[] = [];
  let piece: ProducerBatch | null = null;
  let before = 0; // records of b placed in earlier pieces
  for (let i = 0; i < b.count; i++) {
    const length = r.varint();
    const end = r.pos + length;
    r.int8(); // attributes
    const timestamp = b.baseTimestamp + r.varlongNumber();
    r.varint(); // offset delta: renumbered by the piece
    const kl = r.varint();
    const key = kl < 0 ? null : r.slice(kl);
    const vl = r.varint();
    const value = vl < 0 ? null : r.slice(vl);
    const headers = readHeaders(r);
    r.pos = end;
    if (piece === null || !piece.tryAppend(timestamp, key, value, headers, completions[i])) {
      if (piece !== null) before += piece.count;
      const capacity = Math.max(batchSize, BATCH_HEADER_SIZE + recordSizeUpperBound(key, value, headers));
      piece = new ProducerBatch(b.topic, b.partition, capacity, b.createdAt, buffer(capacity));
      if (b.baseSequence >= 0) {
        piece.producerId = b.producerId;
        piece.producerEpoch = b.producerEpoch;
        piece.baseSequence = incrementSequence(b.baseSequence, before);
      }
      piece.tryAppend(timestamp, key, value, headers, completions[i]);
      pieces.push(piece);
      // A record larger than batch.size goes alone: were it refused again with company, the
      // next split would rebuild the same batch forever.
      if (capacity > batchSize) {
        before += 1;
        piece = null;
      }
    }
  }
  // Frozen: a piece queued last must not take new records (they would share its sequences).
  for (const p of pieces) p.freeze();
  return pieces;
}
