// OffsetDelete (key 47), v0 (KIP-496): deletes committed offsets of a group. A non-empty
// consumer group keeps the offsets of topics it subscribes to (GROUP_SUBSCRIBED_TO_TOPIC per
// partition); a non-empty group of another protocol type is refused (NON_EMPTY_GROUP).
import { ErrorCode } from '../../protocol/errors.js';
import {
  type OffsetDeleteRequest,
  type OffsetDeleteResponse,
  offsetDeleteApi,
} from '../../protocol/messages/generated/offset-delete.js';
import { defineApi } from './api.js';
import { AclOp, allowed, ResType, splitDeniedTopics } from './authorize.js';
import { groupCoordinator } from './group-api.js';

export default defineApi<OffsetDeleteRequest, OffsetDeleteResponse>({
  api: offsetDeleteApi,
  minVersion: 0,
  maxVersion: 0,
  async handle(ctx, req) {
    const gc = groupCoordinator(ctx);
    if (!allowed(ctx, AclOp.DELETE, ResType.GROUP, req.groupId))
      return { errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED, throttleTimeMs: 0, topics: [] };
    const { allowedTopics, refused } = splitDeniedTopics(ctx, AclOp.READ, req.topics);
    if (gc === null) return { errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, throttleTimeMs: 0, topics: [] };
    const r = await gc.deleteOffsets(
      req.groupId,
      allowedTopics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => p.partitionIndex) })),
    );
    return {
      errorCode: r.errorCode,
      throttleTimeMs: 0,
      topics: [
        ...refused,
        ...r.topics.map((t) => ({
          name: t.name,
          partitions: t.partitions.map((p) => ({ partitionIndex: p.partition, errorCode: p.errorCode })),
        })),
      ],
    };
  },
});
