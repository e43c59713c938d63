// JoinGroup (key 11), v0-9, classic protocol. v0 has no rebalance timeout (the session
// timeout serves); v4+ new members first get MEMBER_ID_REQUIRED with their id (KIP-394); v5+
// static membership (group.instance.id, FENCED_INSTANCE_ID); v7+ ProtocolType in the answer
// and a nullable ProtocolName; v9 SkipAssignment for a static leader rejoining a stable group.
// The answer waits for the rebalance to complete (up to the rebalance timeout).
import { ErrorCode } from '../../protocol/errors.js';
import {
  type JoinGroupRequest,
  type JoinGroupResponse,
  joinGroupApi,
} from '../../protocol/messages/generated/join-group.js';
import { defineApi } from './api.js';
import { AclOp, allowed, ResType } from './authorize.js';
import { groupCoordinator, requestOrigin } from './group-api.js';

export default defineApi<JoinGroupRequest, JoinGroupResponse>({
  api: joinGroupApi,
  minVersion: 0,
  maxVersion: 9,
  async handle(ctx, req) {
    const gc = groupCoordinator(ctx);
    const refused = !allowed(ctx, AclOp.READ, ResType.GROUP, req.groupId);
    const r =
      gc && !refused
        ? await gc.joinGroup(requestOrigin(ctx), {
            groupId: req.groupId,
            sessionTimeoutMs: req.sessionTimeoutMs,
            rebalanceTimeoutMs: ctx.version >= 1 ? req.rebalanceTimeoutMs : -1,
            memberId: req.memberId,
            groupInstanceId: ctx.version >= 5 ? req.groupInstanceId : null,
            protocolType: req.protocolType,
            protocols: req.protocols.map((p) => ({ name: p.name, metadata: p.metadata })),
          })
        : null;
    if (r === null) {
      return {
        throttleTimeMs: 0,
        errorCode: refused ? ErrorCode.GROUP_AUTHORIZATION_FAILED : ErrorCode.COORDINATOR_NOT_AVAILABLE,
        generationId: -1,
        protocolType: null,
        protocolName: ctx.version >= 7 ? null : '',
        leader: '',
        skipAssignment: false,
        memberId: req.memberId,
        members: [],
      };
    }
    return {
      throttleTimeMs: 0,
      errorCode: r.errorCode,
      generationId: r.generationId,
      protocolType: r.protocolType,
      protocolName: ctx.version >= 7 ? r.protocolName : (r.protocolName ?? ''),
      leader: r.leader,
      skipAssignment: r.skipAssignment,
      memberId: r.memberId,
      members: r.members.map((m) => ({
        memberId: m.memberId,
        groupInstanceId: m.groupInstanceId,
        metadata: m.metadata,
      })),
    };
  },
});
