// OffsetFetch (key 9), v0-9. v0-7: one group; Topics null (v2+) = every committed offset; a
// group-level error goes in the top-level ErrorCode (v2+) and, for v0-1 which lack it, on
// every partition. v8+: several groups per request, each with its own error. Offsets never
// committed come back as -1 with empty metadata. RequireStable (v7+) is honoured by the
// coordinator (no transactional offsets exist yet, so nothing is ever unstable).
import { ErrorCode } from '../../protocol/errors.js';
import {
  type OffsetFetchRequest,
  type OffsetFetchResponse,
  offsetFetchApi,
} from '../../protocol/messages/generated/offset-fetch.js';
import type { OffsetFetchGroupResult } from '../coordinator/group/index.js';
import { defineApi } from './api.js';
import { AclOp, allowed, deniedNames, ResType } from './authorize.js';
import { groupCoordinator } from './group-api.js';

type Topics = ReadonlyArray<{ name: string; partitionIndexes: number[] }> | null;

function toPartitions(topics: Topics) {
  return topics === null ? null : topics.map((t) => ({ name: t.name, partitions: t.partitionIndexes }));
}

function partitionsOut(r: OffsetFetchGroupResult, leaderEpochs: boolean) {
  return r.topics.map((t) => ({
    name: t.name,
    partitions: t.partitions.map((p) => ({
      partitionIndex: p.partition,
      committedOffset: p.offset,
      committedLeaderEpoch: leaderEpochs ? p.leaderEpoch : -1,
      metadata: p.metadata,
      errorCode: p.errorCode,
    })),
  }));
}

export default defineApi<OffsetFetchRequest, OffsetFetchResponse>({
  api: offsetFetchApi,
  minVersion: 0,
  maxVersion: 9,
  async handle(ctx, req) {
    const v = ctx.version;
    const gc = groupCoordinator(ctx);
    // v9+: a KIP-848 member's id and epoch (STALE_MEMBER_EPOCH / UNKNOWN_MEMBER_ID for consumer groups).
    type Member = { memberId: string | null; memberEpoch: number } | undefined;
    const fetchAllowed = (
      groupId: string,
      topics: Topics,
      member?: Member,
    ): Promise<OffsetFetchGroupResult> =>
      gc
        ? gc.fetchOffsets(groupId, toPartitions(topics), v >= 7 && req.requireStable, member)
        : Promise.resolve({ groupId, errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, topics: [] });
    // Kafka: DESCRIBE on the group, else GROUP_AUTHORIZATION_FAILED; named topics the principal may
    // not describe come back TOPIC_AUTHORIZATION_FAILED, and "all topics" leaves them out.
    const fetch = async (
      groupId: string,
      topics: Topics,
      member?: Member,
    ): Promise<OffsetFetchGroupResult> => {
      if (!allowed(ctx, AclOp.DESCRIBE, ResType.GROUP, groupId))
        return { groupId, errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED, topics: [] };
      if (ctx.broker.authorizer === undefined) return fetchAllowed(groupId, topics, member);
      const denied =
        topics === null ? null : deniedNames(ctx, AclOp.DESCRIBE, ResType.TOPIC, topics, (t) => t.name);
      const r = await fetchAllowed(
        groupId,
        denied === null ? topics : topics!.filter((t) => !denied.has(t.name)),
        member,
      );
      if (topics === null)
        r.topics = r.topics.filter((t) => allowed(ctx, AclOp.DESCRIBE, ResType.TOPIC, t.name));
      else if (denied !== null)
        for (const t of topics)
          if (denied.has(t.name))
            r.topics.push({
              name: t.name,
              partitions: t.partitionIndexes.map((p) => ({
                partition: p,
                offset: -1n,
                leaderEpoch: -1,
                metadata: '',
                errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED,
              })),
            });
      return r;
    };
    if (v >= 8) {
      const groups = await Promise.all(
        req.groups.map((g) =>
          fetch(
            g.groupId,
            g.topics,
            v >= 9 ? { memberId: g.memberId, memberEpoch: g.memberEpoch } : undefined,
          ),
        ),
      );
      return {
        throttleTimeMs: 0,
        topics: [],
        errorCode: ErrorCode.NONE,
        groups: groups.map((g) => ({
          groupId: g.groupId,
          errorCode: g.errorCode,
          topics: partitionsOut(g, true),
        })),
      };
    }
    // v0-1 cannot ask for "all topics" (null is not allowed there); treat it as none.
    const topics: Topics = v < 2 && req.topics === null ? [] : req.topics;
    const r = await fetch(req.groupId, topics);
    if (r.errorCode !== ErrorCode.NONE && v < 2) {
      // No top-level error field: report the group's error on every requested partition.
      r.topics = (topics ?? []).map((t) => ({
        name: t.name,
        partitions: t.partitionIndexes.map((p) => ({
          partition: p,
          offset: -1n,
          leaderEpoch: -1,
          metadata: '',
          errorCode: r.errorCode,
        })),
      }));
    }
    return { throttleTimeMs: 0, topics: partitionsOut(r, v >= 5), errorCode: r.errorCode, groups: [] };
  },
});
