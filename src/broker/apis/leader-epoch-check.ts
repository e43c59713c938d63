// The CurrentLeaderEpoch check of Fetch/ListOffsets/OffsetForLeaderEpoch (KIP-320): -1 skips
// it; an older epoch is FENCED_LEADER_EPOCH, a newer one UNKNOWN_LEADER_EPOCH.

import { ErrorCode } from '../../protocol/errors.js';

export function leaderEpochError(requested: number, current: number): number {
  if (requested < 0 || requested === current) return ErrorCode.NONE;
  return requested < current ? ErrorCode.FENCED_LEADER_EPOCH : ErrorCode.UNKNOWN_LEADER_EPOCH;
}
