// OffsetCommit (key 8), v0-9. v0 has no generation/member (a simple commit, allowed only for
// an empty group); v1 per-partition commit timestamps (ignored, as Kafka now does); v2-4 an
// explicit retention time; v6+ leader epochs; v7+ group.instance.id. Commits are fenced by
// generation and member (ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID,
// REBALANCE_IN_PROGRESS) and answered once written to __consumer_offsets. Partitions of unknown
// topics, or beyond a topic's partition count, are answered UNKNOWN_TOPIC_OR_PARTITION before
// the coordinator sees the request (commit-partitions.ts), as Kafka does.
// Pipelinable: everything up to the coordinator's operation (checks, the shard validating the
// commit and replaying its records) runs synchronously when the handler is called, so the
// commits of one connection apply in arrival order while their writes share appends.
import { ErrorCode } from '../../protocol/errors.js';
import {
  type OffsetCommitRequest,
  type OffsetCommitResponse,
  offsetCommitApi,
} from '../../protocol/messages/generated/offset-commit.js';
import { defineApi } from './api.js';
import { AclOp, allowed, ResType, splitDeniedTopics } from './authorize.js';
import { mergeCommitResults, splitUnknownPartitions } from './commit-partitions.js';
import { groupCoordinator } from './group-api.js';

export default defineApi<OffsetCommitRequest, OffsetCommitResponse>({
  api: offsetCommitApi,
  minVersion: 0,
  maxVersion: 9,
  pipelinable: true,
  async handle(ctx, req) {
    const v = ctx.version;
    if (!allowed(ctx, AclOp.READ, ResType.GROUP, req.groupId))
      return {
        throttleTimeMs: 0,
        topics: req.topics.map((t) => ({
          name: t.name,
          partitions: t.partitions.map((p) => ({
            partitionIndex: p.partitionIndex,
            errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED,
          })),
        })),
      };
    const { allowedTopics, refused } = splitDeniedTopics(ctx, AclOp.READ, req.topics);
    const split = splitUnknownPartitions(ctx.broker.image, allowedTopics);
    const known = split.known;
    const unknown = refused.length === 0 ? split.unknown : [...refused, ...split.unknown];
    if (known.length === 0) return { throttleTimeMs: 0, topics: unknown };
    const gc = groupCoordinator(ctx);
    const results = gc
      ? await gc.commitOffsets({
          groupId: req.groupId,
          generationId: v >= 1 ? req.generationIdOrMemberEpoch : -1,
          memberId: v >= 1 ? req.memberId : '',
          groupInstanceId: v >= 7 ? req.groupInstanceId : null,
          retentionTimeMs: v >= 2 && v <= 4 ? Number(req.retentionTimeMs) : -1,
          apiVersion: v,
          topics: known.map((t) => ({
            name: t.name,
            partitions: t.partitions.map((p) => ({
              partition: p.partitionIndex,
              offset: p.committedOffset,
              leaderEpoch: v >= 6 ? p.committedLeaderEpoch : -1,
              metadata: p.committedMetadata,
            })),
          })),
        })
      : known.map((t) => ({
          name: t.name,
          partitions: t.partitions.map((p) => ({
            partition: p.partitionIndex,
            errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE,
          })),
        }));
    return {
      throttleTimeMs: 0,
      topics: mergeCommitResults(
        unknown,
        results.map((t) => ({
          name: t.name,
          partitions: t.partitions.map((p) => ({ partitionIndex: p.partition, errorCode: p.errorCode })),
        })),
      ),
    };
  },
});
