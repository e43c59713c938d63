// Consumer-group administration. ListGroups asks every broker (each coordinates a share of the
// groups); the rest goes to the group's coordinator: ConsumerGroupDescribe/DescribeGroups
// (group-describe.ts), DeleteGroups, OffsetFetch (list committed offsets), OffsetCommit with
// generation -1 (alter/reset offsets of an empty group, as Kafka's admin does), OffsetDelete.
import { ErrorCode, errorName } from '../../protocol/errors.js';
import { deleteGroupsApi } from '../../protocol/messages/generated/delete-groups.js';
import { listGroupsApi } from '../../protocol/messages/generated/list-groups.js';
import { offsetCommitApi } from '../../protocol/messages/generated/offset-commit.js';
import { offsetDeleteApi } from '../../protocol/messages/generated/offset-delete.js';
import { offsetFetchApi } from '../../protocol/messages/generated/offset-fetch.js';
import { KafkaResponseError } from '../errors.js';
import { type AdminContext, byTopic, type TopicPartition } from './context.js';
import { listOffsets, type OffsetSpec } from './partition-ops.js';

export { describeGroups, type GroupDescription, type GroupMemberDescription } from './group-describe.js';

export interface GroupListing {
  groupId: string;
  protocolType: string;
  state: string;
  /** "classic" or "consumer" (KIP-848; ListGroups v5 GroupType, "classic" from older brokers). */
  type: string;
}

/** ListGroups filters (empty or absent: everything); matched case-insensitively by the brokers. */
export interface GroupListFilter {
  /** Group states, e.g. "Stable" (ListGroups v4+). */
  states?: readonly string[];
  /** Group types, "classic" or "consumer" (ListGroups v5+). */
  types?: readonly string[];
}

export interface CommittedOffset extends TopicPartition {
  offset: bigint;
  leaderEpoch: number;
  metadata: string | null;
}

export async function listGroups(ctx: AdminContext, filter: GroupListFilter = {}): Promise<GroupListing[]> {
  const statesFilter = [...(filter.states ?? [])];
  const typesFilter = [...(filter.types ?? [])];
  await ctx.metadata.refresh();
  const brokers = ctx.pool.brokers();
  const all = await Promise.all(
    brokers.map(async (b) => {
      const res = await ctx.retry(() =>
        ctx.link(b.nodeId).request(
          listGroupsApi,
          { statesFilter, typesFilter },
          // A broker that cannot filter would answer every group.
          { minVersion: typesFilter.length > 0 ? 5 : statesFilter.length > 0 ? 4 : 0 },
        ),
      );
      if (res.errorCode !== 0)
        throw new KafkaResponseError(res.errorCode, `ListGroups on broker ${b.nodeId}`);
      return res.groups.map((g) => ({
        groupId: g.groupId,
        protocolType: g.protocolType,
        state: g.groupState,
        type: g.groupType === '' ? 'classic' : g.groupType,
      }));
    }),
  );
  return all.flat().sort((a, b) => (a.groupId < b.groupId ? -1 : a.groupId > b.groupId ? 1 : 0));
}

export async function deleteGroups(ctx: AdminContext, groupIds: readonly string[]): Promise<void> {
  for (const groupId of groupIds) {
    await ctx.retry(async () => {
      const res = await (await ctx.groupCoordinator(groupId)).request(deleteGroupsApi, {
        groupsNames: [groupId],
      });
      for (const r of res.results) ctx.checkGroupError(groupId, r.errorCode, 'delete group');
    });
  }
}

/** Kafka's ListConsumerGroupOffsetsOptions. */
export interface ListConsumerGroupOffsetsOptions {
  /**
   * Kafka's requireStable (OffsetFetch v7+), default false as in Kafka. False: the offsets
   * committed so far — one a transaction has sent but not yet committed (TxnOffsetCommit before
   * EndTxn) is not shown until it commits, as kafka-consumer-groups shows them. True: the
   * coordinator answers UNSTABLE_OFFSET_COMMIT for a partition with such a pending offset; that
   * is retried until `timeoutMs`, then thrown (KafkaResponseError), where Kafka's admin leaves
   * the partition out of its result — ours could not tell that from "nothing committed".
   */
  requireStable?: boolean;
  /** Time for the whole call, retries included; default request.timeout.ms. */
  timeoutMs?: number;
}

/** Committed offsets of a group (all partitions, or only `partitions`). */
export async function listConsumerGroupOffsets(
  ctx: AdminContext,
  groupId: string,
  partitions?: readonly TopicPartition[],
  options: ListConsumerGroupOffsetsOptions = {},
): Promise<CommittedOffset[]> {
  const requireStable = options.requireStable ?? false;
  const topics =
    partitions === undefined
      ? null
      : [...byTopic(partitions)].map(([name, ps]) => ({
          name,
          partitionIndexes: ps.map((p) => p.partition),
        }));
  return ctx.retry(async () => {
    const res = await (await ctx.groupCoordinator(groupId)).request(
      offsetFetchApi,
      {
        groupId,
        topics,
        groups: [{ groupId, memberId: null, memberEpoch: -1, topics }],
        requireStable,
      },
      // v2+ lets topics be null (= all); Kafka 4 removed v0. RequireStable exists from v7: an
      // older broker would ignore it (Kafka's admin refuses such a broker too).
      { minVersion: requireStable ? 7 : topics === null ? 2 : 1 },
    );
    // v8+ answers per group, older versions at the top level.
    const g = res.groups.find((x) => x.groupId === groupId);
    ctx.checkGroupError(groupId, g ? g.errorCode : res.errorCode, 'fetch offsets');
    const out: CommittedOffset[] = [];
    for (const t of g ? g.topics : res.topics) {
      for (const p of t.partitions) {
        ctx.checkGroupError(groupId, p.errorCode, `fetch offset of ${t.name}-${p.partitionIndex}`);
        if (p.committedOffset < 0n) continue; // nothing committed for this partition
        out.push({
          topic: t.name,
          partition: p.partitionIndex,
          offset: p.committedOffset,
          leaderEpoch: p.committedLeaderEpoch,
          metadata: p.metadata,
        });
      }
    }
    return out;
  }, options.timeoutMs);
}

export interface OffsetToCommit extends TopicPartition {
  offset: bigint;
  metadata?: string | null;
}

/** A partition an offset commit refused, with Kafka's error code. */
export interface PartitionErrorCode extends TopicPartition {
  errorCode: number;
}

/**
 * alterConsumerGroupOffsets: the broker refused some partitions (e.g. UNKNOWN_TOPIC_OR_PARTITION
 * for a topic or partition that does not exist); the others were committed. `errorCode` is the
 * first refused partition's, `partitions` lists every refused one (Kafka's per-partition result).
 */
export class AlterOffsetsPartitionError extends KafkaResponseError {
  override name = 'AlterOffsetsPartitionError';
  readonly partitions: PartitionErrorCode[];
  constructor(groupId: string, partitions: PartitionErrorCode[]) {
    super(
      partitions[0]!.errorCode,
      `commit offsets of group ${groupId} refused for ${partitions
        .map((p) => `${p.topic}-${p.partition} (${errorName(p.errorCode)})`)
        .join(', ')}`,
    );
    this.partitions = partitions;
  }
}

/**
 * Errors about the group or its coordinator, as Kafka's AlterConsumerGroupOffsetsHandler sorts
 * them (retried, or fail the whole call); any other code is the partition's own result.
 */
const GROUP_LEVEL_COMMIT_ERRORS = new Set<number>([
  ErrorCode.COORDINATOR_LOAD_IN_PROGRESS,
  ErrorCode.REBALANCE_IN_PROGRESS,
  ErrorCode.COORDINATOR_NOT_AVAILABLE,
  ErrorCode.NOT_COORDINATOR,
  ErrorCode.INVALID_GROUP_ID,
  ErrorCode.INVALID_COMMIT_OFFSET_SIZE,
  ErrorCode.GROUP_AUTHORIZATION_FAILED,
  ErrorCode.UNKNOWN_MEMBER_ID,
]);

/**
 * Sets committed offsets of a group that has no active members (UNKNOWN_MEMBER_ID otherwise).
 * Partition-level refusals are not retried: they fail the call with AlterOffsetsPartitionError
 * once the response is in, the other partitions being committed.
 */
export async function alterConsumerGroupOffsets(
  ctx: AdminContext,
  groupId: string,
  offsets: readonly OffsetToCommit[],
): Promise<void> {
  await ctx.retry(async () => {
    const res = await (await ctx.groupCoordinator(groupId)).request(
      offsetCommitApi,
      {
        groupId,
        generationIdOrMemberEpoch: -1,
        memberId: '',
        groupInstanceId: null,
        retentionTimeMs: -1n,
        topics: [...byTopic(offsets)].map(([name, ps]) => ({
          name,
          partitions: ps.map((p) => ({
            partitionIndex: p.partition,
            committedOffset: p.offset,
            committedLeaderEpoch: -1,
            commitTimestamp: -1n,
            committedMetadata: p.metadata ?? '',
          })),
        })),
      },
      { minVersion: 2 },
    );
    const refused: PartitionErrorCode[] = [];
    for (const t of res.topics) {
      for (const p of t.partitions) {
        if (GROUP_LEVEL_COMMIT_ERRORS.has(p.errorCode))
          ctx.checkGroupError(groupId, p.errorCode, `commit offset of ${t.name}-${p.partitionIndex}`);
        else if (p.errorCode !== ErrorCode.NONE)
          refused.push({ topic: t.name, partition: p.partitionIndex, errorCode: p.errorCode });
      }
    }
    if (refused.length > 0) throw new AlterOffsetsPartitionError(groupId, refused);
  });
}

/** Resets a group's offsets for partitions to earliest/latest/a timestamp/an explicit offset. */
export async function resetConsumerGroupOffsets(
  ctx: AdminContext,
  groupId: string,
  partitions: readonly TopicPartition[],
  to: OffsetSpec | { offset: bigint },
): Promise<OffsetToCommit[]> {
  let offsets: OffsetToCommit[];
  if (typeof to === 'object' && 'offset' in to) {
    offsets = partitions.map((p) => ({ ...p, offset: to.offset }));
  } else {
    const listed = await listOffsets(
      ctx,
      partitions.map((p) => ({ ...p, spec: to })),
    );
    // No record at/after the timestamp: position at the end, like kafka-consumer-groups.
    const latest = listed.some((l) => l.offset < 0n)
      ? await listOffsets(
          ctx,
          partitions.map((p) => ({ ...p, spec: 'latest' as const })),
        )
      : [];
    offsets = listed.map((l) => ({
      topic: l.topic,
      partition: l.partition,
      offset:
        l.offset >= 0n
          ? l.offset
          : latest.find((x) => x.topic === l.topic && x.partition === l.partition)!.offset,
    }));
  }
  await alterConsumerGroupOffsets(ctx, groupId, offsets);
  return offsets;
}

export async function deleteConsumerGroupOffsets(
  ctx: AdminContext,
  groupId: string,
  partitions: readonly TopicPartition[],
): Promise<void> {
  await ctx.retry(async () => {
    const res = await (await ctx.groupCoordinator(groupId)).request(offsetDeleteApi, {
      groupId,
      topics: [...byTopic(partitions)].map(([name, ps]) => ({
        name,
        partitions: ps.map((p) => ({ partitionIndex: p.partition })),
      })),
    });
    ctx.checkGroupError(groupId, res.errorCode, 'delete offsets');
    for (const t of res.topics)
      for (const p of t.partitions)
        ctx.checkGroupError(groupId, p.errorCode, `delete offset of ${t.name}-${p.partitionIndex}`);
  });
}
