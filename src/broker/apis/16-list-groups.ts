// ListGroups (key 16), v0-5: every group of the __consumer_offsets partitions this broker
// coordinates. v4+ StatesFilter, v5+ TypesFilter and GroupType ("classic" or "consumer", KIP-848).
// COORDINATOR_LOAD_IN_PROGRESS while a partition is still loading, with what is known so far.
import { ErrorCode } from '../../protocol/errors.js';
import {
  type ListGroupsRequest,
  type ListGroupsResponse,
  listGroupsApi,
} from '../../protocol/messages/generated/list-groups.js';
import { defineApi } from './api.js';
import { AclOp, allowed, clusterAllowed, ResType } from './authorize.js';
import { groupCoordinator } from './group-api.js';

export default defineApi<ListGroupsRequest, ListGroupsResponse>({
  api: listGroupsApi,
  minVersion: 0,
  maxVersion: 5,
  async handle(ctx, req) {
    const gc = groupCoordinator(ctx);
    if (gc === null) return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, groups: [] };
    const r = await gc.listGroups(
      ctx.version >= 4 ? req.statesFilter : [],
      ctx.version >= 5 ? req.typesFilter : [],
    );
    // Kafka: everything with DESCRIBE on the cluster, else only the groups the principal may describe.
    const visible =
      ctx.broker.authorizer === undefined || clusterAllowed(ctx, AclOp.DESCRIBE)
        ? r.groups
        : r.groups.filter((g) => allowed(ctx, AclOp.DESCRIBE, ResType.GROUP, g.groupId));
    return {
      throttleTimeMs: 0,
      errorCode: r.errorCode,
      groups: visible.map((g) => ({
        groupId: g.groupId,
        protocolType: g.protocolType,
        groupState: g.state,
        groupType: g.groupType ?? 'classic',
      })),
    };
  },
});
