// Rebuilding producer state from the log: start from the newest usable `.snapshot` at or below
// the target and apply the batch headers after it (Kafka's loadProducerState). Used by
// recovery and after truncation.
import { hasProducer, producerBatchOf } from './batch-info.js';
import type { LocalLog } from './local-log.js';
import type { ProducerStateManager } from './producer-state.js';
import { scanSegment } from './segment-scanner.js';
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
