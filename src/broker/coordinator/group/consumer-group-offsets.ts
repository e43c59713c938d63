// Offset fencing of a KIP-848 consumer group (Kafka's ConsumerGroup.validateOffsetCommit /
// validateOffsetFetch): commits and fetches carry the member id and the member epoch (a classic
// member in the group: its JoinGroup generation, which is its member epoch). A mismatch is
// STALE_MEMBER_EPOCH for a ConsumerGroupHeartbeat member, ILLEGAL_GENERATION for a classic one.
import { ErrorCode } from '../../../protocol/errors.js';
import type { ConsumerGroup } from './consumer-group.js';
import { usesClassicProtocol } from './consumer-group-member.js';

/** OffsetCommit v9+ sets the member epoch; a ConsumerGroupHeartbeat member must use it. */
const MEMBER_EPOCH_COMMIT_VERSION = 9;

function epochError(received: number, expected: number, classic: boolean): number {
  if (received === expected) return ErrorCode.NONE;
  return classic ? ErrorCode.ILLEGAL_GENERATION : ErrorCode.STALE_MEMBER_EPOCH;
}

/**
 * An epoch below 0 comes from an admin or a consumer without group management: accepted only
 * while the group has no members. Otherwise the member must exist and be at `memberEpoch`.
 */
export function validateConsumerGroupCommit(
  group: ConsumerGroup,
  memberId: string,
  memberEpoch: number,
  apiVersion: number,
  isTransactional: boolean,
): number {
  if (memberEpoch < 0 && group.members.size === 0) return ErrorCode.NONE;
  const m = group.members.get(memberId);
  if (m === undefined) return ErrorCode.UNKNOWN_MEMBER_ID;
  const classic = usesClassicProtocol(m);
  if (!isTransactional && !classic && apiVersion < MEMBER_EPOCH_COMMIT_VERSION)
    return ErrorCode.UNSUPPORTED_VERSION;
  return epochError(memberEpoch, m.memberEpoch, classic);
}

/** OffsetFetch v9+: no member id (null) and a negative epoch (an admin, an old client) always pass. */
export function validateConsumerGroupFetch(
  group: ConsumerGroup,
  memberId: string | null,
  memberEpoch: number,
): number {
  if (memberId === null && memberEpoch < 0) return ErrorCode.NONE;
  const m = memberId === null ? undefined : group.members.get(memberId);
  if (m === undefined) return ErrorCode.UNKNOWN_MEMBER_ID;
  return epochError(memberEpoch, m.memberEpoch, usesClassicProtocol(m));
}
