// Aborted transactions for a read_committed fetch: the `.txnindex` entries overlapping the
// offsets a read returned. An entry lives in the segment holding its abort marker, which may be
// many segments after the fetched range. So the walk starts at the fetch offset's segment and goes
// on past the range, as Kafka's `collectAbortedTransactions` does, until an entry shows that every
// transaction overlapping the range was decided (its LSO reached the range's end) or the log ends.
import { lastOffsetOf } from './batch-info.js';
import type { LocalLog } from './local-log.js';
import type { AbortedTxnEntry } from './transaction-index.js';
import type { AbortedTransaction } from './types.js';

export async function abortedTransactions(
  local: LocalLog,
  fetchOffset: bigint,
  records: Buffer,
): Promise<AbortedTransaction[]> {
  if (records.length === 0) return [];
  let end = fetchOffset;
  for (let pos = 0; pos + 61 <= records.length; pos += 12 + records.readInt32BE(pos + 8)) {
    end = lastOffsetOf(records, pos) + 1n;
  }
  const found: AbortedTxnEntry[] = [];
  const segs = local.segments;
  for (let i = Math.max(0, local.floorIndex(fetchOffset)); i < segs.length; i++) {
    const seg = segs[i]!;
    await seg.ensureIndexes();
    if (seg.txnIndex.collect(fetchOffset, end, found)) break;
  }
  return found.map((e) => ({ producerId: e.producerId, firstOffset: e.firstOffset }));
}
