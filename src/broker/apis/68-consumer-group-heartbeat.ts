// ConsumerGroupHeartbeat (key 68), v0-1: the KIP-848 consumer group protocol. v1 adds
// SubscribedTopicRegex and requires the client to choose its member id (KIP-1082). Joins,
// heartbeats and leaves (epoch 0 / current / -1, static members -2) all come here; the group
// coordinator answers with the member's epoch and, when it changed, its assignment. Kafka
// checks READ on the group, and DESCRIBE on the topics only for a regex (done by the
// coordinator there; here a regex subscription is not filtered by topic ACLs).
import { ErrorCode } from '../../protocol/errors.js';
import {
  type ConsumerGroupHeartbeatRequest,
  type ConsumerGroupHeartbeatResponse,
  consumerGroupHeartbeatApi,
} from '../../protocol/messages/generated/consumer-group-heartbeat.js';
import { defineApi } from './api.js';
import { AclOp, allowed, ResType } from './authorize.js';
import { groupCoordinator, requestOrigin } from './group-api.js';

const refused = (errorCode: number, errorMessage: string | null = null): ConsumerGroupHeartbeatResponse => ({
  throttleTimeMs: 0,
  errorCode,
  errorMessage,
  memberId: null,
  memberEpoch: 0,
  heartbeatIntervalMs: 0,
  assignment: null,
});

export default defineApi<ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatResponse>({
  api: consumerGroupHeartbeatApi,
  minVersion: 0,
  maxVersion: 1,
  async handle(ctx, req) {
    const gc = groupCoordinator(ctx);
    if (gc === null) return refused(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    if (!gc.consumerProtocolEnabled)
      return refused(ErrorCode.UNSUPPORTED_VERSION, 'The new group coordinator is not enabled.');
    if (!allowed(ctx, AclOp.READ, ResType.GROUP, req.groupId))
      return refused(ErrorCode.GROUP_AUTHORIZATION_FAILED);
    const r = await gc.consumerGroupHeartbeat(requestOrigin(ctx), {
      groupId: req.groupId,
      memberId: req.memberId,
      memberEpoch: req.memberEpoch,
      instanceId: req.instanceId,
      rackId: req.rackId,
      rebalanceTimeoutMs: req.rebalanceTimeoutMs,
      subscribedTopicNames: req.subscribedTopicNames,
      subscribedTopicRegex: ctx.version >= 1 ? req.subscribedTopicRegex : null,
      serverAssignor: req.serverAssignor,
      topicPartitions: req.topicPartitions,
    });
    return {
      throttleTimeMs: 0,
      errorCode: r.errorCode,
      errorMessage: r.errorMessage,
      memberId: r.memberId,
      memberEpoch: r.memberEpoch,
      heartbeatIntervalMs: r.heartbeatIntervalMs,
      assignment: r.assignment === null ? null : { topicPartitions: r.assignment },
    };
  },
});
