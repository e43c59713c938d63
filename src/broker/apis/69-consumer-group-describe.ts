// ConsumerGroupDescribe (key 69), v0-1: KIP-848 groups with their epochs, assignor and each
// member's current and target assignment; v1 adds MemberType (0 for a classic member of the
// group, 1 for a ConsumerGroupHeartbeat member: KIP-1099). A classic or unknown group id is
// GROUP_ID_NOT_FOUND with Kafka's message, an empty one INVALID_GROUP_ID. As in Kafka 4: DESCRIBE
// on the group, else GROUP_AUTHORIZATION_FAILED in its place; and a group whose members' current
// or target assignments name a topic the principal may not DESCRIBE is answered
// TOPIC_AUTHORIZATION_FAILED without its members, so topic names stay hidden.
import { ErrorCode } from '../../protocol/errors.js';
import {
  type ConsumerGroupDescribeRequest,
  type ConsumerGroupDescribeResponse,
  consumerGroupDescribeApi,
} from '../../protocol/messages/generated/consumer-group-describe.js';
import type { DescribedConsumerGroup } from '../coordinator/group/consumer-group-types.js';
import { defineApi } from './api.js';
import { AclOp, allowed, authorizedOperations, deniedNames, ResType } from './authorize.js';
import { GROUP_ALL_OPS, groupCoordinator, OPS_NOT_REQUESTED } from './group-api.js';

const failed = (
  groupId: string,
  errorCode: number,
  errorMessage: string | null = null,
): DescribedConsumerGroup => ({
  errorCode,
  errorMessage,
  groupId,
  groupState: '',
  groupEpoch: -1,
  assignmentEpoch: -1,
  assignorName: '',
  members: [],
});

const HIDDEN_TOPICS = 'The group has described topic(s) that the client is not authorized to describe.';

export default defineApi<ConsumerGroupDescribeRequest, ConsumerGroupDescribeResponse>({
  api: consumerGroupDescribeApi,
  minVersion: 0,
  maxVersion: 1,
  async handle(ctx, req) {
    const gc = groupCoordinator(ctx);
    const authorized = req.groupIds.filter((g) => g !== '' && allowed(ctx, AclOp.DESCRIBE, ResType.GROUP, g));
    const found = gc?.consumerProtocolEnabled ? await gc.consumerGroupDescribe(authorized) : [];
    const groups = req.groupIds.map((groupId) => {
      if (gc === null) return failed(groupId, ErrorCode.COORDINATOR_NOT_AVAILABLE);
      if (!gc.consumerProtocolEnabled) return failed(groupId, ErrorCode.UNSUPPORTED_VERSION);
      const g = found.find((d) => d.groupId === groupId);
      if (g !== undefined) return g;
      if (!allowed(ctx, AclOp.DESCRIBE, ResType.GROUP, groupId))
        return failed(groupId, ErrorCode.GROUP_AUTHORIZATION_FAILED);
      return failed(groupId, ErrorCode.INVALID_GROUP_ID);
    });
    return {
      throttleTimeMs: 0,
      groups: groups.map((g) => {
        const denied = deniedNames(
          ctx,
          AclOp.DESCRIBE,
          ResType.TOPIC,
          // ('' is a topic deleted since: nothing to hide.)
          g.members
            .flatMap((m) => [...m.assignment, ...m.targetAssignment])
            .filter((t) => t.topicName !== ''),
          (t) => t.topicName,
        );
        const shown =
          denied === null ? g : failed(g.groupId, ErrorCode.TOPIC_AUTHORIZATION_FAILED, HIDDEN_TOPICS);
        return {
          ...shown,
          members: shown.members.map((m) => ({
            ...m,
            assignment: { topicPartitions: m.assignment },
            targetAssignment: { topicPartitions: m.targetAssignment },
          })),
          authorizedOperations:
            shown.errorCode !== ErrorCode.NONE || !req.includeAuthorizedOperations
              ? OPS_NOT_REQUESTED
              : authorizedOperations(ctx, ResType.GROUP, shown.groupId, GROUP_ALL_OPS),
        };
      }),
    };
  },
});
