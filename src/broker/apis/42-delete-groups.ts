// DeleteGroups (key 42), v0-2: only empty groups (NON_EMPTY_GROUP otherwise); their offsets and
// the group are tombstoned in __consumer_offsets. Unknown groups: GROUP_ID_NOT_FOUND.
import { ErrorCode } from '../../protocol/errors.js';
import {
  type DeleteGroupsRequest,
  type DeleteGroupsResponse,
  deleteGroupsApi,
} from '../../protocol/messages/generated/delete-groups.js';
import { defineApi } from './api.js';
import { groupCoordinator } from './group-api.js';

export default defineApi<DeleteGroupsRequest, DeleteGroupsResponse>({
  api: deleteGroupsApi,
  minVersion: 0,
  maxVersion: 2,
  async handle(ctx, req) {
    const gc = groupCoordinator(ctx);
    const results = gc
      ? await gc.deleteGroups(req.groupsNames)
      : req.groupsNames.map((groupId) => ({ groupId, errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE }));
    return { throttleTimeMs: 0, results };
  },
});
