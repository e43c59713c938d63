// DescribeGroups (key 15), v0-6, classic groups only. A group id that is not a classic group —
// unknown, or a consumer group (KIP-848, mixed or not) — is GROUP_ID_NOT_FOUND with Kafka's
// message from v6 (KIP-1043), and below v6 the Dead state with no error, as Kafka 4 answers both.
// Member metadata and assignments are shown only for a Stable group. v3+ AuthorizedOperations
// when asked for; v4+ GroupInstanceId.

import { ErrorCode } from '../../protocol/errors.js';
import {
  type DescribeGroupsRequest,
  type DescribeGroupsResponse,
  describeGroupsApi,
} from '../../protocol/messages/generated/describe-groups.js';
import { type DescribedGroup, describeGroupError } from '../coordinator/group/group-types.js';
import { defineApi } from './api.js';
import { AclOp, allowed, authorizedOperations, ResType } from './authorize.js';
import { GROUP_ALL_OPS, groupCoordinator, OPS_NOT_REQUESTED } from './group-api.js';

/** What a version before 6 says of a group that is not a classic group: Dead, no error. */
const beforeV6 = (g: DescribedGroup): DescribedGroup =>
  g.errorCode === ErrorCode.GROUP_ID_NOT_FOUND
    ? { ...g, errorCode: ErrorCode.NONE, errorMessage: null, state: 'Dead' }
    : g;

export default defineApi<DescribeGroupsRequest, DescribeGroupsResponse>({
  api: describeGroupsApi,
  minVersion: 0,
  maxVersion: 6,
  async handle(ctx, req) {
    const gc = groupCoordinator(ctx);
    const opsWanted = ctx.version >= 3 && req.includeAuthorizedOperations;
    const authorized = req.groups.filter((g) => allowed(ctx, AclOp.DESCRIBE, ResType.GROUP, g));
    const found = gc ? await gc.describeGroups(authorized) : [];
    // Kafka: DESCRIBE per group, else GROUP_AUTHORIZATION_FAILED in its place (no message).
    const described = req.groups.map((groupId) =>
      !gc
        ? describeGroupError(groupId, ErrorCode.COORDINATOR_NOT_AVAILABLE)
        : (found.find((g) => g.groupId === groupId) ??
          describeGroupError(groupId, ErrorCode.GROUP_AUTHORIZATION_FAILED)),
    );
    return {
      throttleTimeMs: 0,
      groups: (ctx.version >= 6 ? described : described.map(beforeV6)).map((g) => ({
        errorCode: g.errorCode,
        errorMessage: g.errorMessage,
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
        authorizedOperations:
          !opsWanted || g.errorCode !== ErrorCode.NONE
            ? OPS_NOT_REQUESTED
            : authorizedOperations(ctx, ResType.GROUP, g.groupId, GROUP_ALL_OPS),
      })),
    };
  },
});
