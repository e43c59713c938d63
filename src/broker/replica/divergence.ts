// Where a follower's log stops agreeing with its leader's (KIP-101, KIP-279), from the leader's
// answer for the follower's last fetched epoch: the Fetch diverging epoch (v12+) or an
// OffsetForLeaderEpoch answer — the largest epoch the leader knows that is at most the asked one,
// and where it ends there. Kafka's AbstractFetcherThread.getOffsetTruncationState:
//
// - the follower has no entry for that epoch (it did not track epochs then): truncate to the
//   leader's end offset;
// - the follower's largest epoch at or below it is another one (an epoch the leader never saw):
//   truncate to where that one ends here and ask again (`complete: false`): the next answer is
//   about an older epoch, so this converges;
// - same epoch on both: truncate to the smaller of the two end offsets.
//
// Never above the follower's own log end offset.

import type { EpochEndOffset } from '../../storage/index.js';

/** The leader's view of the follower's epoch (the diverging epoch), both fields ≥ 0. */
export interface LeaderEpochEnd {
  readonly epoch: number;
  readonly endOffset: bigint;
}

export interface TruncationPoint {
  readonly offset: bigint;
  /** False: truncated to an intermediate point; fetching again finds the final one. */
  readonly complete: boolean;
}

const min = (a: bigint, b: bigint): bigint => (a < b ? a : b);

export function followerTruncation(
  leader: LeaderEpochEnd,
  follower: { readonly logEndOffset: bigint; endOffsetForEpoch(epoch: number): EpochEndOffset },
): TruncationPoint {
  const leo = follower.logEndOffset;
  const mine = follower.endOffsetForEpoch(leader.epoch);
  if (mine.endOffset < 0n || mine.leaderEpoch < 0)
    return { offset: min(leader.endOffset, leo), complete: true };
  if (mine.leaderEpoch !== leader.epoch) return { offset: min(mine.endOffset, leo), complete: false };
  return { offset: min(min(mine.endOffset, leader.endOffset), leo), complete: true };
}
