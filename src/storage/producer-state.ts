// Per-producer state of one partition (Kafka's ProducerStateManager/ProducerStateEntry):
// epoch, the last 5 batches' sequence ranges and offsets (duplicate detection for idempotent
// producers), the coordinator epoch of the last marker, and the first offset of the open
// transaction (which bounds the last stable offset). State changes only by `apply`, in log
// order; leader appends are checked first with `checkLeaderAppend`.
import { ErrorCode, errorInfo, KafkaError } from '../protocol/errors.js';
import { type ControlMarker, ControlType } from './control-record.js';
import { RefusedBatches } from './producer-refusals.js';
import type { SnapshotEntry } from './producer-snapshot.js';
import type { AbortedTxnEntry } from './transaction-index.js';
import type { ProducerStateView } from './types.js';

/** Kafka's ProducerStateEntry.NUM_BATCHES_TO_RETAIN. */
export const BATCHES_TO_RETAIN = 5;
const INT32_MAX = 0x7fffffff;

/** What producer state needs to know about one batch. */
export interface ProducerBatch {
  producerId: bigint;
  producerEpoch: number;
  baseSequence: number;
  baseOffset: bigint;
  lastOffset: bigint;
  maxTimestamp: bigint;
  transactional: boolean;
  /** Set for control batches. */
  marker: ControlMarker | null;
}

export interface BatchMetadata {
  firstSeq: number;
  lastSeq: number;
  firstOffset: bigint;
  lastOffset: bigint;
  timestamp: bigint;
}

interface ProducerEntry {
  producerId: bigint;
  producerEpoch: number;
  batches: BatchMetadata[];
  coordinatorEpoch: number;
  currentTxnFirstOffset: bigint;
  lastTimestamp: bigint;
}

/**
 * KIP-890 (Kafka's VerificationGuard): the token of one verification that a producer's
 * transaction includes this partition. A transactional batch that starts a transaction here is
 * appended only with the guard the partition still holds for its producer; a marker, the start of
 * the transaction or a new epoch drops the guard, so a verification that raced with the end of the
 * transaction cannot open a new one. `NO_GUARD` stands for "no verification was needed" (the
 * transaction was already open when the append was decided).
 */
export type VerificationGuard = { readonly producerId: bigint; readonly epoch: number };
export const NO_GUARD: VerificationGuard = Object.freeze({ producerId: -1n, epoch: -1 });

interface GuardEntry {
  guard: VerificationGuard;
  createdMs: bigint;
}

export interface CompletedTxn {
  producerId: bigint;
  firstOffset: bigint;
  lastOffset: bigint;
  aborted: boolean;
}

/** Sequence after `base` + `delta`, wrapping past INT32_MAX to 0 as Kafka does. */
export function addSequence(base: number, delta: number): number {
  return base > INT32_MAX - delta ? delta - (INT32_MAX - base) - 1 : base + delta;
}

function inSequence(lastSeq: number, nextSeq: number): boolean {
  return nextSeq === lastSeq + 1 || (nextSeq === 0 && lastSeq === INT32_MAX);
}

export class ProducerStateManager {
  readonly #producers = new Map<bigint, ProducerEntry>();
  /** producerId → first offset of its open transaction. */
  readonly #ongoing = new Map<bigint, bigint>();
  /** producerId → the guard of its pending verification (KIP-890). */
  readonly #guards = new Map<bigint, GuardEntry>();
  /** Completed transactions whose marker the high watermark has not passed yet. */
  #unreplicated: CompletedTxn[] = [];
  /** Client batches refused before reaching the log (`producer-refusals.ts`); kept across truncations. */
  readonly #refused = new RefusedBatches();
  /** State reflects every batch below this offset. */
  mapEndOffset = 0n;

  get producerCount(): number {
    return this.#producers.size;
  }

  /** Whether `producerId` at `epoch` has a transaction open on this partition. */
  hasOngoingTransaction(producerId: bigint, epoch: number): boolean {
    const e = this.#producers.get(producerId);
    return e !== undefined && e.currentTxnFirstOffset >= 0n && e.producerEpoch === epoch;
  }

  /**
   * Before verifying a transactional batch (Kafka's maybeStartTransactionVerification):
   * `NO_GUARD` when the producer's transaction is already open here (nothing to verify), else the
   * producer's guard (the pending one of the same epoch, or a new one) to append with once the
   * coordinator confirmed the partition is in the transaction.
   */
  startVerification(producerId: bigint, epoch: number, nowMs: bigint): VerificationGuard {
    if (this.hasOngoingTransaction(producerId, epoch)) return NO_GUARD;
    const cur = this.#guards.get(producerId);
    if (cur !== undefined && cur.guard.epoch === epoch) return cur.guard;
    const guard: VerificationGuard = { producerId, epoch };
    this.#guards.set(producerId, { guard, createdMs: nowMs });
    return guard;
  }

  /**
   * Checks a client (or coordinator) batch against the producer's state. Returns the retained
   * batch it duplicates, or null when it may be appended. Throws KafkaError
   * INVALID_PRODUCER_EPOCH, OUT_OF_ORDER_SEQUENCE_NUMBER, INVALID_TXN_STATE or
   * TRANSACTION_COORDINATOR_FENCED. Coordinator batches keep the epoch checks but skip the
   * sequence and duplicate checks, as in Kafka: the coordinators write sequence 0 each time
   * (offset commits of a transaction, markers) and never retry a write themselves.
   */
  checkLeaderAppend(
    b: ProducerBatch,
    lastOffsetDelta: number,
    fromCoordinator = false,
    verification?: VerificationGuard,
  ): BatchMetadata | null {
    if (b.producerId < 0n) return null;
    const e = this.#producers.get(b.producerId);
    if (verification !== undefined && b.transactional && b.marker === null)
      this.#checkVerified(b, e, verification);
    if (e === undefined) {
      // An unknown producer may start at any sequence (KIP-360), except right after batches of
      // its that were refused here.
      if (!fromCoordinator && b.marker === null) this.#repeatRefusal(b, lastOffsetDelta, null);
      return null;
    }
    if (b.producerEpoch < e.producerEpoch) {
      throw new KafkaError(
        ErrorCode.INVALID_PRODUCER_EPOCH,
        `Producer ${b.producerId} epoch ${b.producerEpoch} is older than the current epoch ${e.producerEpoch}`,
      );
    }
    if (b.marker !== null) {
      if (b.marker.coordinatorEpoch < e.coordinatorEpoch) {
        throw new KafkaError(
          ErrorCode.TRANSACTION_COORDINATOR_FENCED,
          `Marker coordinator epoch ${b.marker.coordinatorEpoch} is older than ${e.coordinatorEpoch}`,
        );
      }
      return null;
    }
    if (!fromCoordinator) {
      const dup = checkSequence(e, b, lastOffsetDelta, (expected) =>
        this.#repeatRefusal(b, lastOffsetDelta, expected),
      );
      if (dup !== null) return dup;
    }
    if (!b.transactional && e.currentTxnFirstOffset >= 0n) {
      throw new KafkaError(
        ErrorCode.INVALID_TXN_STATE,
        `Producer ${b.producerId} has an open transaction; non-transactional batches are not allowed`,
      );
    }
    return null;
  }

  /**
   * A client batch was refused before reaching the log (this replica could not take writes:
   * not the leader, fenced, too small an ISR), with retriable error `code`.
   */
  noteRefused(batch: Buffer, code: number, nowMs: bigint): void {
    this.#refused.noteBatch(batch, code, nowMs);
  }

  /**
   * Throws the refusal of the batches right before `b` when they fill its whole sequence gap
   * back to `expected` (null: this producer and epoch have no sequence here), and remembers `b`
   * as refused too, for the batches pipelined behind it.
   */
  #repeatRefusal(b: ProducerBatch, lastOffsetDelta: number, expected: number | null): void {
    const r = this.#refused.explaining(b.producerId, b.producerEpoch, b.baseSequence, expected);
    if (r === null) return;
    const lastSeq = addSequence(b.baseSequence, lastOffsetDelta);
    this.#refused.note(b.producerId, { ...r, firstSeq: b.baseSequence, lastSeq });
    throw new KafkaError(
      r.code,
      `Batch ${b.baseSequence}..${lastSeq} of producer ${b.producerId} follows batch ${r.firstSeq}..${r.lastSeq}, refused here with ${errorInfo(r.code).name} before reaching the log`,
    );
  }

  /**
   * KIP-890: a transactional batch whose transaction is not open here needs the guard this
   * partition holds for its producer (a verification it still trusts). A retry of a batch already
   * written (a duplicate) passes: its transaction is open.
   */
  #checkVerified(b: ProducerBatch, e: ProducerEntry | undefined, guard: VerificationGuard): void {
    if (e !== undefined && e.currentTxnFirstOffset >= 0n && e.producerEpoch === b.producerEpoch) return;
    const held = this.#guards.get(b.producerId)?.guard;
    if (guard === NO_GUARD || held !== guard || guard.epoch !== b.producerEpoch)
      throw new KafkaError(
        ErrorCode.INVALID_TXN_STATE,
        `Producer ${b.producerId} has no verified transaction on this partition`,
      );
  }

  /**
   * `apply` of a batch without a producer id (the leader's fast path): only the map's end moves,
   * to `endOffset` (the batch's last offset + 1).
   */
  advanceMapEnd(endOffset: bigint): void {
    if (endOffset > this.mapEndOffset) this.mapEndOffset = endOffset;
  }

  /** Applies a batch (any origin, in log order). Returns the transaction a marker completed. */
  apply(b: ProducerBatch): CompletedTxn | null {
    if (b.lastOffset >= this.mapEndOffset) this.mapEndOffset = b.lastOffset + 1n;
    if (b.producerId < 0n) return null;
    let e = this.#producers.get(b.producerId);
    if (e === undefined) {
      e = {
        producerId: b.producerId,
        producerEpoch: b.producerEpoch,
        batches: [],
        coordinatorEpoch: -1,
        currentTxnFirstOffset: -1n,
        lastTimestamp: -1n,
      };
      this.#producers.set(b.producerId, e);
    } else if (e.producerEpoch !== b.producerEpoch) {
      // A new epoch starts a new sequence space.
      e.producerEpoch = b.producerEpoch;
      e.batches = [];
    }
    const guard = this.#guards.size === 0 ? undefined : this.#guards.get(b.producerId);
    // A marker ends the verified transaction; a transactional batch opens it; an older epoch's
    // verification is stale.
    if (guard !== undefined && (b.marker !== null || b.transactional || guard.guard.epoch < b.producerEpoch))
      this.#guards.delete(b.producerId);
    if (b.maxTimestamp > e.lastTimestamp) e.lastTimestamp = b.maxTimestamp;
    if (b.marker !== null) {
      if (b.marker.type !== ControlType.ABORT && b.marker.type !== ControlType.COMMIT) return null;
      if (b.marker.coordinatorEpoch > e.coordinatorEpoch) e.coordinatorEpoch = b.marker.coordinatorEpoch;
      const first = e.currentTxnFirstOffset >= 0n ? e.currentTxnFirstOffset : b.baseOffset;
      e.currentTxnFirstOffset = -1n;
      this.#ongoing.delete(b.producerId);
      const done: CompletedTxn = {
        producerId: b.producerId,
        firstOffset: first,
        lastOffset: b.lastOffset,
        aborted: b.marker.type === ControlType.ABORT,
      };
      this.#unreplicated.push(done);
      return done;
    }
    if (b.baseSequence >= 0) {
      e.batches.push({
        firstSeq: b.baseSequence,
        lastSeq: addSequence(b.baseSequence, Number(b.lastOffset - b.baseOffset)),
        firstOffset: b.baseOffset,
        lastOffset: b.lastOffset,
        timestamp: b.maxTimestamp,
      });
      if (e.batches.length > BATCHES_TO_RETAIN) e.batches.shift();
    }
    if (b.transactional && e.currentTxnFirstOffset < 0n) {
      e.currentTxnFirstOffset = b.baseOffset;
      this.#ongoing.set(b.producerId, b.baseOffset);
    }
    return null;
  }

  /** First offset of the oldest transaction that is open or whose marker is above the HW. */
  firstUnstableOffset(): bigint | null {
    // Every Fetch asks this of every partition it names: no iterator when nothing is open.
    if (this.#ongoing.size === 0 && this.#unreplicated.length === 0) return null;
    let min: bigint | null = null;
    for (const first of this.#ongoing.values()) if (min === null || first < min) min = first;
    for (const t of this.#unreplicated) if (min === null || t.firstOffset < min) min = t.firstOffset;
    return min;
  }

  /** The LSO to record with an aborted transaction: the oldest other open txn, else after the marker. */
  lastStableOffsetAfter(done: CompletedTxn): bigint {
    let min: bigint | null = null;
    for (const first of this.#ongoing.values()) if (min === null || first < min) min = first;
    return min ?? done.lastOffset + 1n;
  }

  /** The `.txnindex` entry for a transaction that `apply` just completed, when it was aborted. */
  abortedEntry(done: CompletedTxn | null): AbortedTxnEntry | null {
    if (done === null || !done.aborted) return null;
    const { producerId, firstOffset, lastOffset } = done;
    return { producerId, firstOffset, lastOffset, lastStableOffset: this.lastStableOffsetAfter(done) };
  }

  /** The high watermark moved: transactions whose marker it passed become stable. */
  onHighWatermark(hw: bigint): void {
    if (this.#unreplicated.length > 0)
      this.#unreplicated = this.#unreplicated.filter((t) => t.lastOffset >= hw);
  }

  /**
   * Drops producers idle for longer than `maxIdleMs` that have no open transaction, and
   * verification guards older than that (a verification never followed by its append).
   */
  removeExpired(nowMs: bigint, maxIdleMs: bigint): void {
    this.#refused.prune(nowMs);
    for (const [id, g] of this.#guards) if (nowMs - g.createdMs >= maxIdleMs) this.#guards.delete(id);
    for (const [id, e] of this.#producers) {
      if (e.currentTxnFirstOffset < 0n && e.lastTimestamp >= 0n && nowMs - e.lastTimestamp > maxIdleMs) {
        this.#producers.delete(id);
      }
    }
  }

  clear(mapEndOffset: bigint): void {
    this.#producers.clear();
    this.#ongoing.clear();
    this.#guards.clear();
    this.#unreplicated = [];
    this.mapEndOffset = mapEndOffset;
  }

  views(): ProducerStateView[] {
    return [...this.#producers.values()].map((e) => ({
      producerId: e.producerId,
      producerEpoch: e.producerEpoch,
      lastSequence: e.batches.at(-1)?.lastSeq ?? -1,
      lastTimestamp: e.lastTimestamp,
      coordinatorEpoch: e.coordinatorEpoch,
      currentTxnStartOffset: e.currentTxnFirstOffset,
    }));
  }

  toSnapshot(): SnapshotEntry[] {
    return [...this.#producers.values()].map((e) => {
      const last = e.batches.at(-1);
      return {
        producerId: e.producerId,
        producerEpoch: e.producerEpoch,
        lastSequence: last?.lastSeq ?? -1,
        lastOffset: last?.lastOffset ?? -1n,
        offsetDelta: last === undefined ? 0 : Number(last.lastOffset - last.firstOffset),
        timestamp: e.lastTimestamp,
        coordinatorEpoch: e.coordinatorEpoch,
        currentTxnFirstOffset: e.currentTxnFirstOffset,
      };
    });
  }

  /** Replaces the state with a snapshot taken at `offset`. */
  loadSnapshot(entries: readonly SnapshotEntry[], offset: bigint): void {
    this.clear(offset);
    for (const s of entries) {
      const batches: BatchMetadata[] = [];
      if (s.lastOffset >= 0n && s.lastSequence >= 0 && s.offsetDelta >= 0) {
        batches.push({
          firstSeq:
            s.lastSequence - s.offsetDelta < 0
              ? s.lastSequence - s.offsetDelta + INT32_MAX + 1
              : s.lastSequence - s.offsetDelta,
          lastSeq: s.lastSequence,
          firstOffset: s.lastOffset - BigInt(s.offsetDelta),
          lastOffset: s.lastOffset,
          timestamp: s.timestamp,
        });
      }
      this.#producers.set(s.producerId, {
        producerId: s.producerId,
        producerEpoch: s.producerEpoch,
        batches,
        coordinatorEpoch: s.coordinatorEpoch,
        currentTxnFirstOffset: s.currentTxnFirstOffset,
        lastTimestamp: s.timestamp,
      });
      if (s.currentTxnFirstOffset >= 0n) this.#ongoing.set(s.producerId, s.currentTxnFirstOffset);
    }
  }
}

/**
 * The retained batch a client batch duplicates, or null when it continues the sequence. Before
 * answering a gap OUT_OF_ORDER_SEQUENCE_NUMBER, `beforeGap(expected)` may throw another answer.
 */
function checkSequence(
  e: ProducerEntry,
  b: ProducerBatch,
  lastOffsetDelta: number,
  beforeGap: (expected: number) => void,
): BatchMetadata | null {
  if (b.producerEpoch === e.producerEpoch) {
    const lastSeq = addSequence(b.baseSequence, lastOffsetDelta);
    for (const m of e.batches) {
      if (m.firstSeq === b.baseSequence && m.lastSeq === lastSeq) return m;
    }
    const current = e.batches.at(-1)?.lastSeq ?? -1;
    if (!inSequence(current, b.baseSequence)) {
      beforeGap(addSequence(current, 1));
      throw new KafkaError(
        ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER,
        `Out of order sequence for producer ${b.producerId}: got ${b.baseSequence}, expected ${addSequence(current, 1)}`,
      );
    }
  } else if (b.baseSequence !== 0 && e.producerEpoch >= 0) {
    beforeGap(0);
    throw new KafkaError(
      ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER,
      `Producer ${b.producerId} with new epoch ${b.producerEpoch} must start at sequence 0, got ${b.baseSequence}`,
    );
  }
  return null;
}
