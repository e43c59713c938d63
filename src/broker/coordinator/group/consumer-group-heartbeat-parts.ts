// The pure parts of ConsumerGroupHeartbeat handling (KIP-848), kept apart from the manager's
// state machine: the records a heartbeat writes (member subscription, current and target
// assignment, tombstones), the request validation Kafka does before anything else, and the
// ownership check of the previous-epoch leniency.
import { ErrorCode } from '../../../protocol/errors.js';
import type { ConsumerGroupRecord } from '../../../protocol/internal-topics/consumer-group-records.js';
import type { ServerAssignor } from './assignors/assignor.js';
import {
  type Assignment,
  type ConsumerGroupMember,
  LEAVE_GROUP_MEMBER_EPOCH,
  LEAVE_GROUP_STATIC_MEMBER_EPOCH,
  toEntries,
} from './consumer-group-member.js';
import { compileTopicRegex } from './consumer-group-regex.js';
import {
  type ConsumerHeartbeatRequest,
  GroupOpError,
  type TopicPartitionIds,
} from './consumer-group-types.js';
import type { GroupRecord } from './group-records.js';

/** v1+: the client generates its member id (KIP-1082). */
export const CLIENT_MEMBER_ID_VERSION = 1;

export const rec = (record: ConsumerGroupRecord): GroupRecord => ({ kind: 'consumer', record });

export function memberMetadataRecord(groupId: string, m: ConsumerGroupMember): GroupRecord {
  return rec({
    type: 'member-metadata',
    groupId,
    memberId: m.memberId,
    value: {
      instanceId: m.instanceId,
      rackId: m.rackId,
      clientId: m.clientId,
      clientHost: m.clientHost,
      subscribedTopicNames: [...m.subscribedTopicNames],
      subscribedTopicRegex: m.subscribedTopicRegex,
      rebalanceTimeoutMs: m.rebalanceTimeoutMs,
      serverAssignor: m.serverAssignor,
      classicMemberMetadata: m.classicMemberMetadata,
    },
  });
}

export function currentAssignmentRecord(groupId: string, m: ConsumerGroupMember): GroupRecord {
  return rec({
    type: 'current-assignment',
    groupId,
    memberId: m.memberId,
    value: {
      memberEpoch: m.memberEpoch,
      previousMemberEpoch: m.previousMemberEpoch,
      state: m.state,
      assignedPartitions: toEntries(m.assignedPartitions),
      partitionsPendingRevocation: toEntries(m.partitionsPendingRevocation),
    },
  });
}

export const targetMemberRecord = (groupId: string, memberId: string, a: Assignment | null): GroupRecord =>
  rec({ type: 'target-member', groupId, memberId, value: a === null ? null : { partitions: toEntries(a) } });

/** Tombstones that remove a member, in Kafka's order (assignment, target, subscription). */
export function removeMemberRecords(groupId: string, memberId: string): GroupRecord[] {
  return [
    rec({ type: 'current-assignment', groupId, memberId, value: null }),
    targetMemberRecord(groupId, memberId, null),
    rec({ type: 'member-metadata', groupId, memberId, value: null }),
  ];
}

export function fail(code: number, message: string): never {
  throw new GroupOpError(code, message);
}

/** Kafka's throwIfEmptyString: a non-null value that is blank. */
const blank = (s: string | null): boolean => s !== null && s.trim() === '';

/** Kafka's throwIfConsumerGroupHeartbeatRequestIsInvalid (4.0), in its order. */
export function validateHeartbeat(
  req: ConsumerHeartbeatRequest,
  apiVersion: number,
  assignors: readonly ServerAssignor[],
): void {
  const E = ErrorCode.INVALID_REQUEST;
  if (
    (apiVersion >= CLIENT_MEMBER_ID_VERSION ||
      req.memberEpoch > 0 ||
      req.memberEpoch === LEAVE_GROUP_MEMBER_EPOCH) &&
    req.memberId.trim() === ''
  )
    fail(E, "MemberId can't be empty.");
  if (req.groupId.trim() === '') fail(E, "GroupId can't be empty.");
  if (blank(req.instanceId)) fail(E, "InstanceId can't be empty.");
  if (blank(req.rackId)) fail(E, "RackId can't be empty.");
  if (req.memberEpoch === 0) {
    if (req.rebalanceTimeoutMs === -1) fail(E, 'RebalanceTimeoutMs must be provided in first request.');
    if (req.topicPartitions === null || req.topicPartitions.length > 0)
      fail(E, 'TopicPartitions must be empty when (re-)joining.');
    const names = req.subscribedTopicNames !== null && req.subscribedTopicNames.length > 0;
    const regex = req.subscribedTopicRegex !== null && req.subscribedTopicRegex !== '';
    if (!names && !regex)
      fail(E, 'SubscribedTopicNames or SubscribedTopicRegex must be set in first request.');
  } else if (req.memberEpoch === LEAVE_GROUP_STATIC_MEMBER_EPOCH) {
    if (req.instanceId === null) fail(E, "InstanceId can't be null.");
  } else if (req.memberEpoch < LEAVE_GROUP_STATIC_MEMBER_EPOCH) {
    fail(E, 'MemberEpoch is invalid.');
  }
  if (req.serverAssignor !== null && !assignors.some((a) => a.name === req.serverAssignor)) {
    fail(
      ErrorCode.UNSUPPORTED_ASSIGNOR,
      `ServerAssignor ${req.serverAssignor} is not supported. Supported assignors: ${assignors.map((a) => a.name).join(', ')}.`,
    );
  }
  if (req.subscribedTopicRegex !== null && req.subscribedTopicRegex !== '') {
    const c = compileTopicRegex(req.subscribedTopicRegex);
    if (!c.ok) fail(ErrorCode.INVALID_REGULAR_EXPRESSION, `SubscribedTopicRegex is invalid: ${c.reason}.`);
  }
}

/** Whether every partition a member says it owns is in its assignment (Kafka's epoch leniency). */
export function ownsSubset(owned: readonly TopicPartitionIds[] | null, assigned: Assignment): boolean {
  if (owned === null) return false;
  for (const t of owned) {
    const set = assigned.get(t.topicId);
    if (set === undefined) {
      if (t.partitions.length > 0) return false;
      continue;
    }
    for (const p of t.partitions) if (!set.has(p)) return false;
  }
  return true;
}
