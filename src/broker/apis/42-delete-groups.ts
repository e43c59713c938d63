// DeleteGroups (key 42), v0-2: only empty groups (NON_EMPTY_GROUP otherwise); their offsets and
// the group are tombstoned in __consumer_offsets. Unknown groups: GROUP_ID_NOT_FOUND.
import { ErrorCode } from '../../protocol/errors.js';
import {
  type DeleteGroupsRequest,
  type DeleteGroupsResponse,
  deleteGroupsApi,
} from '../../protocol/messages/generated/delete-groups.js';
import { defineApi } from './api.js';
import { AclOp, deniedNames, ResType } from './authorize.js';
import { groupCoordinator } from './group-api.js';

export default defineApi<DeleteGroupsRequest, DeleteGroupsResponse>({
  api: deleteGroupsApi,
  minVersion: 0,
  maxVersion: 2,
  async handle(ctx, req) {
    const gc = groupCoordinator(ctx);
    const denied = deniedNames(ctx, AclOp.DELETE, ResType.GROUP, req.groupsNames, (g) => g);
    const names = denied === null ? req.groupsNames : req.groupsNames.filter((g) => !denied.has(g));
    const results = gc
      ? await gc.deleteGroups(names)
      : names.map((groupId) => ({ groupId, errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE }));
    if (denied !== null)
      for (const groupId of denied)
        results.push({ groupId, errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED });
    return { throttleTimeMs: 0, results };
  },
});
