// The leader's side of a follower's fetch of one partition (Kafka's Partition.fetchRecords for a
// follower): the current leader epoch is checked first (older: FENCED_LEADER_EPOCH, newer:
// UNKNOWN_LEADER_EPOCH), then leadership (NOT_LEADER_OR_FOLLOWER), then that the fetching broker
// is an assigned replica (else UNKNOWN_LEADER_EPOCH when the fetch carries an epoch — the
// replica may be on its way in — or NOT_LEADER_OR_FOLLOWER). The fetch's last fetched epoch is
// checked against this log's epochs (KIP-595's truncation on fetch): a follower that went on in
// an epoch this log ended earlier gets the diverging epoch and its end offset, and no records.
// Otherwise records are read up to the log end offset (not the HW), and the follower's position
// is recorded with the log end offset seen before the read, which may grow the ISR and advance
// the high watermark.

import { ErrorCode, KafkaError } from '../../protocol/errors.js';
import type { Partition } from './partition.js';

export interface FollowerFetch {
  readonly replicaId: number;
  /** The follower's broker epoch (Fetch v15+), -1 when not sent. */
  readonly replicaEpoch: bigint;
  readonly fetchOffset: bigint;
  /** -1: not checked (Fetch < v9). */
  readonly currentLeaderEpoch: number;
  /** -1: none (empty follower log, or Fetch < v12). */
  readonly lastFetchedEpoch: number;
  readonly logStartOffset: bigint;
  readonly maxBytes: number;
  readonly minOneBatch: boolean;
  readonly allocate?: (size: number) => Buffer;
  /** Record the follower's position: only on the first read of a request, not after a wake-up. */
  readonly updateFetchState: boolean;
}

export interface FollowerRead {
  errorCode: number;
  highWatermark: bigint;
  lastStableOffset: bigint;
  logStartOffset: bigint;
  records: Buffer;
  /** Where the follower's log diverges from this one, or null. */
  divergingEpoch: { readonly epoch: number; readonly endOffset: bigint } | null;
}

const EMPTY = Buffer.alloc(0);

/** KIP-320's check (as `apis/leader-epoch-check.ts`): -1 skips it. */
function leaderEpochError(requested: number, current: number): number {
  if (requested < 0 || requested === current) return ErrorCode.NONE;
  return requested < current ? ErrorCode.FENCED_LEADER_EPOCH : ErrorCode.UNKNOWN_LEADER_EPOCH;
}

function failed(errorCode: number): FollowerRead {
  return {
    errorCode,
    highWatermark: -1n,
    lastStableOffset: -1n,
    logStartOffset: -1n,
    records: EMPTY,
    divergingEpoch: null,
  };
}

/**
 * The fetch's last fetched epoch against this log's epochs (Kafka checks it for consumers too,
 * Fetch v12+): null when the fetcher's log agrees up to `fetchOffset`; the diverging epoch and its
 * end offset when the fetcher went on in an epoch this log ended earlier (it must truncate, or a
 * consumer reset its position, before fetching again); OFFSET_OUT_OF_RANGE when this log knows no
 * such epoch or the offset is below its start. -1 (none, or Fetch < v12): not checked.
 */
export function checkDivergence(
  p: Partition,
  fetchOffset: bigint,
  lastFetchedEpoch: number,
): { readonly epoch: number; readonly endOffset: bigint } | number | null {
  if (lastFetchedEpoch < 0) return null;
  const log = p.log;
  const end = log.endOffsetForEpoch(lastFetchedEpoch);
  if (end.endOffset < 0n || end.leaderEpoch < 0 || fetchOffset < log.logStartOffset)
    return ErrorCode.OFFSET_OUT_OF_RANGE;
  if (end.leaderEpoch < lastFetchedEpoch || end.endOffset < fetchOffset)
    return { epoch: end.leaderEpoch, endOffset: end.endOffset };
  return null;
}

export async function readForFollower(p: Partition, f: FollowerFetch): Promise<FollowerRead> {
  const epochError = leaderEpochError(f.currentLeaderEpoch, p.leaderEpoch);
  if (epochError !== ErrorCode.NONE) return failed(epochError);
  if (!p.isLeader) return failed(ErrorCode.NOT_LEADER_OR_FOLLOWER);
  if (p.follower(f.replicaId) === undefined) {
    return failed(
      f.currentLeaderEpoch >= 0 ? ErrorCode.UNKNOWN_LEADER_EPOCH : ErrorCode.NOT_LEADER_OR_FOLLOWER,
    );
  }
  const log = p.log;
  // As Kafka: the log end offset before the read, so appends during it cannot keep a follower
  // from counting as caught up.
  const out: FollowerRead = {
    errorCode: ErrorCode.NONE,
    highWatermark: log.highWatermark,
    lastStableOffset: log.lastStableOffset,
    logStartOffset: log.logStartOffset,
    records: EMPTY,
    divergingEpoch: null,
  };
  const leaderEndOffset = log.logEndOffset;
  const divergence = checkDivergence(p, f.fetchOffset, f.lastFetchedEpoch);
  if (divergence !== null) {
    if (typeof divergence === 'number') out.errorCode = divergence;
    else out.divergingEpoch = divergence;
    return out;
  }
  try {
    const r = await log.read(f.fetchOffset, {
      maxBytes: f.maxBytes,
      upperBound: 'leo',
      minOneBatch: f.minOneBatch,
      allocate: f.allocate,
    });
    out.records = r.records;
  } catch (e) {
    if (!(e instanceof KafkaError)) throw e;
    out.errorCode = e.code;
    return out;
  }
  if (f.updateFetchState) {
    p.recordFollowerFetch(f.replicaId, f.fetchOffset, f.logStartOffset, leaderEndOffset, f.replicaEpoch);
  }
  return out;
}
