// Heartbeat (key 12), v0-4. REBALANCE_IN_PROGRESS tells a member to rejoin; ILLEGAL_GENERATION,
// UNKNOWN_MEMBER_ID and (v3+, static members) FENCED_INSTANCE_ID as in Kafka.
import { ErrorCode } from '../../protocol/errors.js';
import {
  type HeartbeatRequest,
  type HeartbeatResponse,
  heartbeatApi,
} from '../../protocol/messages/generated/heartbeat.js';
import { defineApi } from './api.js';
import { AclOp, allowed, ResType } from './authorize.js';
import { groupCoordinator } from './group-api.js';

export default defineApi<HeartbeatRequest, HeartbeatResponse>({
  api: heartbeatApi,
  minVersion: 0,
  maxVersion: 4,
  async handle(ctx, req) {
    const gc = groupCoordinator(ctx);
    if (!allowed(ctx, AclOp.READ, ResType.GROUP, req.groupId))
      return { throttleTimeMs: 0, errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED };
    const errorCode = gc
      ? await gc.heartbeat({
          groupId: req.groupId,
          generationId: req.generationId,
          memberId: req.memberId,
          groupInstanceId: ctx.version >= 3 ? req.groupInstanceId : null,
        })
      : ErrorCode.COORDINATOR_NOT_AVAILABLE;
    return { throttleTimeMs: 0, errorCode };
  },
});
