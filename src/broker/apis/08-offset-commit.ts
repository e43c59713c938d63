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
import { type CommitCodes, commitCode } from '../coordinator/group/offset-manager.js';
import { defineApi } from './api.js';
import { AclOp, allowed, ResType, splitDeniedTopics } from './authorize.js';
import {
  type CommitResultTopic,
  coordinatorTopics,
  mergeCommitResults,
  splitUnknownPartitions,
} from './commit-partitions.js';
import { groupCoordinator } from './group-api.js';

type RequestTopic = OffsetCommitRequest['topics'][number];

/** Every partition of `topics` with one code. */
function allWith(topics: readonly RequestTopic[], errorCode: number): CommitResultTopic[] {
  return topics.map((t) => ({
    name: t.name,
    partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode })),
  }));
}

/** The coordinator's codes (request order) as response topics. */
function withCodes(topics: readonly RequestTopic[], codes: CommitCodes): CommitResultTopic[] {
  if (typeof codes === 'number') return allWith(topics, codes);
  let i = 0;
  return topics.map((t) => ({
    name: t.name,
    partitions: t.partitions.map((p) => ({
      partitionIndex: p.partitionIndex,
      errorCode: commitCode(codes, i++),
    })),
  }));
}

export default defineApi<OffsetCommitRequest, OffsetCommitResponse>({
  api: offsetCommitApi,
  minVersion: 0,
  maxVersion: 9,
  pipelinable: true,
  // Not async: the coordinator answers through a callback, so a commit costs one promise.
  handle(ctx, req) {
    const v = ctx.version;
    if (!allowed(ctx, AclOp.READ, ResType.GROUP, req.groupId))
      return { throttleTimeMs: 0, topics: allWith(req.topics, ErrorCode.GROUP_AUTHORIZATION_FAILED) };
    const { allowedTopics, refused } = splitDeniedTopics(ctx, AclOp.READ, req.topics);
    const split = splitUnknownPartitions(ctx.broker.image, allowedTopics);
    const known = split.known;
    const unknown = refused.length === 0 ? split.unknown : [...refused, ...split.unknown];
    if (known.length === 0) return { throttleTimeMs: 0, topics: [...unknown] };
    const gc = groupCoordinator(ctx);
    if (gc === null)
      return {
        throttleTimeMs: 0,
        topics: mergeCommitResults(unknown, allWith(known, ErrorCode.COORDINATOR_NOT_AVAILABLE)),
      };
    const commit = {
      groupId: req.groupId,
      generationId: v >= 1 ? req.generationIdOrMemberEpoch : -1,
      memberId: v >= 1 ? req.memberId : '',
      groupInstanceId: v >= 7 ? req.groupInstanceId : null,
      retentionTimeMs: v >= 2 && v <= 4 ? Number(req.retentionTimeMs) : -1,
      apiVersion: v,
      topics: coordinatorTopics(known, v >= 6),
    };
    return new Promise<OffsetCommitResponse>((resolve) => gc.commit(commit, answer(resolve, unknown, known)));
  },
});

/**
 * The callback that answers once the commit is written, made in a scope of its own: V8 keeps one
 * context per scope for all the closures made in it, so a callback made in `handle` would keep
 * the whole coordinator request alive while the append is pending.
 */
function answer(
  resolve: (r: OffsetCommitResponse) => void,
  unknown: readonly CommitResultTopic[],
  known: readonly RequestTopic[],
): (codes: CommitCodes) => void {
  return (codes) =>
    resolve({ throttleTimeMs: 0, topics: mergeCommitResults(unknown, withCodes(known, codes)) });
}
