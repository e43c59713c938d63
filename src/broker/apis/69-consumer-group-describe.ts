// ConsumerGroupDescribe (key 69), v0: KIP-848 groups with their epochs, assignor and each
// member's current and target assignment. A classic or unknown group id is GROUP_ID_NOT_FOUND
// (with Kafka's message); DESCRIBE on the group, else GROUP_AUTHORIZATION_FAILED in its place.
import { ErrorCode } from '../../protocol/errors.js';
import {
  type ConsumerGroupDescribeRequest,
  type ConsumerGroupDescribeResponse,
  consumerGroupDescribeApi,
} from '../../protocol/messages/generated/consumer-group-describe.js';
import type { DescribedConsumerGroup } from '../coordinator/group/consumer-group-types.js';
import { defineApi } from './api.js';
import { AclOp, allowed, authorizedOperations, ResType } from './authorize.js';
import { GROUP_ALL_OPS, groupCoordinator, OPS_NOT_REQUESTED } from './group-api.js';

const failed = (groupId: string, errorCode: number): DescribedConsumerGroup => ({
  errorCode,
  errorMessage: null,
  groupId,
  groupState: '',
  groupEpoch: -1,
  assignmentEpoch: -1,
  assignorName: '',
  members: [],
});

export default defineApi<ConsumerGroupDescribeRequest, ConsumerGroupDescribeResponse>({
  api: consumerGroupDescribeApi,
  minVersion: 0,
  maxVersion: 0,
  async handle(ctx, req) {
    const gc = groupCoordinator(ctx);
    const authorized = req.groupIds.filter((g) => allowed(ctx, AclOp.DESCRIBE, ResType.GROUP, g));
    const found = gc?.consumerProtocolEnabled ? await gc.consumerGroupDescribe(authorized) : [];
    const groups = req.groupIds.map((groupId) =>
      gc === null || !gc.consumerProtocolEnabled
        ? failed(groupId, gc === null ? ErrorCode.COORDINATOR_NOT_AVAILABLE : ErrorCode.UNSUPPORTED_VERSION)
        : (found.find((g) => g.groupId === groupId) ?? failed(groupId, ErrorCode.GROUP_AUTHORIZATION_FAILED)),
    );
    return {
      throttleTimeMs: 0,
      groups: groups.map((g) => ({
        ...g,
        members: g.members.map((m) => ({
          ...m,
          assignment: { topicPartitions: m.assignment },
          targetAssignment: { topicPartitions: m.targetAssignment },
        })),
        authorizedOperations:
          g.errorCode !== ErrorCode.NONE || !req.includeAuthorizedOperations
            ? OPS_NOT_REQUESTED
            : authorizedOperations(ctx, ResType.GROUP, g.groupId, GROUP_ALL_OPS),
      })),
    };
  },
});
