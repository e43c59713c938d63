// DescribeGroups (key 15), v0-5. An unknown group is described as Dead with no error, as in
// Kafka before v6. Member metadata and assignments are shown only for a Stable group. v3+
// AuthorizedOperations when asked for; v4+ GroupInstanceId.

import { ErrorCode } from '../../protocol/errors.js';
import {
  type DescribeGroupsRequest,
  type DescribeGroupsResponse,
  describeGroupsApi,
} from '../../protocol/messages/generated/describe-groups.js';
import { defineApi } from './api.js';
import { AclOp, allowed, authorizedOperations, ResType } from './authorize.js';
import { GROUP_ALL_OPS, groupCoordinator, OPS_NOT_REQUESTED } from './group-api.js';

export default defineApi<DescribeGroupsRequest, DescribeGroupsResponse>({
  api: describeGroupsApi,
  minVersion: 0,
  maxVersion: 5,
  async handle(ctx, req) {
    const gc = groupCoordinator(ctx);
    const opsWanted = ctx.version >= 3 && req.includeAuthorizedOperations;
    // Kafka: DESCRIBE per group, else GROUP_AUTHORIZATION_FAILED in its place.
    const refused = (groupId: string, errorCode: number) => ({
      errorCode,
      groupId,
      state: '',
      protocolType: '',
      protocolData: '',
      members: [],
    });
    const authorized = req.groups.filter((g) => allowed(ctx, AclOp.DESCRIBE, ResType.GROUP, g));
    const found = gc ? await gc.describeGroups(authorized) : [];
    const described = req.groups.map((groupId) =>
      !gc
        ? refused(groupId, ErrorCode.COORDINATOR_NOT_AVAILABLE)
        : (found.find((g) => g.groupId === groupId) ??
          refused(groupId, ErrorCode.GROUP_AUTHORIZATION_FAILED)),
    );
    return {
      throttleTimeMs: 0,
      groups: described.map((g) => ({
        errorCode: g.errorCode,
        groupId: g.groupId,
        groupState: g.state,
        protocolType: g.protocolType,
        protocolData: g.protocolData,
        members: g.members.map((m) => ({
          memberId: m.memberId,
          groupInstanceId: m.groupInstanceId,
          clientId: m.clientId,
          clientHost: m.clientHost,
          memberMetadata: m.metadata,
          memberAssignment: m.assignment,
        })),
        authorizedOperations: !opsWanted
          ? OPS_NOT_REQUESTED
          : authorizedOperations(ctx, ResType.GROUP, g.groupId, GROUP_ALL_OPS),
      })),
    };
  },
});
