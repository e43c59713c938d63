// LeaveGroup (key 13), v0-5. v0-2: one member id, answered in the top-level error. v3+:
// batched members, each by member id and/or group.instance.id (KIP-345), answered per member.
import { ErrorCode } from '../../protocol/errors.js';
import {
  type LeaveGroupRequest,
  type LeaveGroupResponse,
  leaveGroupApi,
} from '../../protocol/messages/generated/leave-group.js';
import { defineApi } from './api.js';
import { AclOp, allowed, ResType } from './authorize.js';
import { groupCoordinator } from './group-api.js';

export default defineApi<LeaveGroupRequest, LeaveGroupResponse>({
  api: leaveGroupApi,
  minVersion: 0,
  maxVersion: 5,
  async handle(ctx, req) {
    const gc = groupCoordinator(ctx);
    if (!allowed(ctx, AclOp.READ, ResType.GROUP, req.groupId))
      return { throttleTimeMs: 0, errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED, members: [] };
    if (gc === null)
      return { throttleTimeMs: 0, errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, members: [] };
    const leaving =
      ctx.version >= 3
        ? req.members.map((m) => ({ memberId: m.memberId, groupInstanceId: m.groupInstanceId }))
        : [{ memberId: req.memberId, groupInstanceId: null }];
    const r = await gc.leaveGroup(req.groupId, leaving);
    if (ctx.version < 3) {
      const memberError = r.members[0]?.errorCode ?? ErrorCode.NONE;
      return {
        throttleTimeMs: 0,
        errorCode: r.errorCode !== ErrorCode.NONE ? r.errorCode : memberError,
        members: [],
      };
    }
    return { throttleTimeMs: 0, errorCode: r.errorCode, members: r.members };
  },
});
