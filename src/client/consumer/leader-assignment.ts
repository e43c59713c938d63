// The group leader's part of a rebalance: decode every member's subscription, look up the
// partition counts of all subscribed topics, run the assignor the group chose and encode each
// member's assignment for SyncGroup. A member whose subscription bytes cannot be read is
// assigned nothing (and logged) rather than failing the whole group.
import { ErrorCode } from '../../protocol/errors.js';
import { KafkaResponseError } from '../errors.js';
import type { GroupMemberInfo, RebalanceProtocol } from './assignors/assignor.js';
import { decodeSubscription, encodeAssignment } from './assignors/consumer-protocol.js';
import type { ResolvedConsumerOptions } from './consumer-config.js';

export interface JoinedMember {
  memberId: string;
  groupInstanceId: string | null;
  metadata: Buffer;
}

export interface LeaderAssignment {
  /** Partition counts the assignment was computed from (to notice later changes). */
  counts: Map<string, number>;
  assignments: { memberId: string; assignment: Buffer }[];
}

export async function assignAsLeader(
  opts: ResolvedConsumerOptions,
  protocol: string,
  rebalanceProtocol: RebalanceProtocol,
  members: readonly JoinedMember[],
  partitionCounts: (topics: string[]) => Promise<Map<string, number>>,
): Promise<LeaderAssignment> {
  const assignor = opts.assignors.find((a) => a.name === protocol);
  if (assignor === undefined) {
    throw new KafkaResponseError(
      ErrorCode.INCONSISTENT_GROUP_PROTOCOL,
      `group chose assignor "${protocol}", which this consumer does not have`,
    );
  }
  const infos: GroupMemberInfo[] = members.map((m) => {
    try {
      return {
        memberId: m.memberId,
        groupInstanceId: m.groupInstanceId,
        subscription: decodeSubscription(m.metadata),
      };
    } catch (err) {
      opts.logger('warn', 'unreadable member subscription', {
        member: m.memberId,
        error: (err as Error).message,
      });
      return {
        memberId: m.memberId,
        groupInstanceId: m.groupInstanceId,
        subscription: { topics: [], userData: null, ownedPartitions: [], generationId: -1, rackId: null },
      };
    }
  });
  const counts = await partitionCounts([...new Set(infos.flatMap((i) => i.subscription.topics))]);
  const result = assignor.assign({ partitionCount: (t) => counts.get(t) }, infos, rebalanceProtocol);
  const assignments = infos.map((i) => ({
    memberId: i.memberId,
    assignment: encodeAssignment(result.get(i.memberId) ?? { partitions: [], userData: null }),
  }));
  return { counts, assignments };
}
