// Rebuilding producer state from the log: start from the newest usable `.snapshot` at or below
// the target and apply the batch headers after it (Kafka's loadProducerState). Used by
// recovery and after truncation; also rebuilds a segment's `.txnindex` from that state.
import { hasProducer, producerBatchOf } from './batch-info.js';
import type { LocalLog } from './local-log.js';
import type { LogSegment } from './log-segment.js';
import type { ProducerSnapshots } from './producer-snapshots.js';
import { ProducerStateManager } from './producer-state.js';
import { scanSegment } from './segment-scanner.js';
import type { AbortedTxnEntry } from './transaction-index.js';
import type { UnifiedLog } from './unified-log.js';

/** Producer state as of the log end offset, given that the log now ends at `upTo`. */
export async function replayProducerState(log: UnifiedLog, upTo: bigint): Promise<void> {
  const snap = await log.snapshots.readLatest(upTo);
  let from = log.logStartOffset;
  if (snap !== null && snap.offset >= log.logStartOffset) {
    log.producers.loadSnapshot(snap.entries, snap.offset);
    from = snap.offset;
  } else {
    log.producers.clear(from);
  }
  await applyRange(log.local, log.producers, from, upTo);
}

/** Applies every batch with offsets in [from, to) to the log's producer state. */
export async function applyRange(
  local: LocalLog,
  producers: ProducerStateManager,
  from: bigint,
  to: bigint,
): Promise<void> {
  for (let i = Math.max(0, local.floorIndex(from)); i < local.segments.length; i++) {
    const seg = local.segments[i]!;
    if (seg.baseOffset >= to) break;
    if (seg.size === 0) continue;
    await seg.ensureIndexes();
    const start = seg.offsetIndex.lookup(from).position;
    await local.cache.with(seg.file, (fd) =>
      scanSegment(fd, start, seg.size, { verifyCrc: false }, (buf, pos, size) => {
        const base = buf.readBigInt64BE(pos);
        if (base >= to) return false;
        if (base >= from && hasProducer(buf, pos)) producers.apply(producerBatchOf(buf, pos, size));
        return true;
      }),
    );
  }
  producers.mapEndOffset = to;
}

/**
 * Rebuilds the `.txnindex` of `seg` (its file was corrupt) as Kafka's segment recovery does:
 * producer state as of the segment's base offset (snapshot at or below it, then the batches
 * in between), then the aborted transactions the segment's markers complete, each with the LSO
 * of that moment. Emptying the file instead would let read_committed fetches return the
 * records of every transaction aborted in this segment.
 */
export async function rebuildTxnIndex(
  local: LocalLog,
  snapshots: ProducerSnapshots,
  logStartOffset: bigint,
  seg: LogSegment,
): Promise<void> {
  const producers = new ProducerStateManager();
  const snap = await snapshots.readLatest(seg.baseOffset);
  let from = logStartOffset;
  if (snap !== null && snap.offset >= logStartOffset) {
    producers.loadSnapshot(snap.entries, snap.offset);
    from = snap.offset;
  } else producers.clear(from);
  if (from < seg.baseOffset) await applyRange(local, producers, from, seg.baseOffset);
  const aborted: AbortedTxnEntry[] = [];
  await local.cache.with(seg.file, (fd) =>
    scanSegment(fd, 0, seg.size, { verifyCrc: false }, (buf, pos, size) => {
      if (buf.readBigInt64BE(pos) < from || !hasProducer(buf, pos)) return true;
      const entry = producers.abortedEntry(producers.apply(producerBatchOf(buf, pos, size)));
      if (entry !== null) aborted.push(entry);
      return true;
    }),
  );
  await seg.txnIndex.reset(aborted);
}
