// SyncGroup (key 14), v0-5. The leader sends the assignment; it is written to
// __consumer_offsets and every member's SyncGroup is answered once it is committed. v3+
// static members; v5+ ProtocolType/ProtocolName checked against the group
// (INCONSISTENT_GROUP_PROTOCOL) and echoed.
import { ErrorCode } from '../../protocol/errors.js';
import {
  type SyncGroupRequest,
  type SyncGroupResponse,
  syncGroupApi,
} from '../../protocol/messages/generated/sync-group.js';
import { defineApi } from './api.js';
import { AclOp, allowed, ResType } from './authorize.js';
import { groupCoordinator } from './group-api.js';

export default defineApi<SyncGroupRequest, SyncGroupResponse>({
  api: syncGroupApi,
  minVersion: 0,
  maxVersion: 5,
  async handle(ctx, req) {
    const gc = groupCoordinator(ctx);
    if (!allowed(ctx, AclOp.READ, ResType.GROUP, req.groupId))
      return {
        throttleTimeMs: 0,
        errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED,
        protocolType: null,
        protocolName: null,
        assignment: Buffer.alloc(0),
      };
    const r = gc
      ? await gc.syncGroup({
          groupId: req.groupId,
          generationId: req.generationId,
          memberId: req.memberId,
          groupInstanceId: ctx.version >= 3 ? req.groupInstanceId : null,
          protocolType: ctx.version >= 5 ? req.protocolType : null,
          protocolName: ctx.version >= 5 ? req.protocolName : null,
          assignments: req.assignments.map((a) => ({ memberId: a.memberId, assignment: a.assignment })),
        })
      : {
          errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE,
          protocolType: null,
          protocolName: null,
          assignment: Buffer.alloc(0),
        };
    return { throttleTimeMs: 0, ...r };
  },
});
