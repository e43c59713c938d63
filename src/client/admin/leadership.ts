// Leadership administration, sent to the controller named by Metadata (NOT_CONTROLLER makes us
// refresh and retry): ElectLeaders (preferred or unclean), AlterPartitionReassignments (move
// partitions to new replicas, or cancel a move) and ListPartitionReassignments.
import { alterPartitionReassignmentsApi } from '../../protocol/messages/generated/alter-partition-reassignments.js';
import { electLeadersApi } from '../../protocol/messages/generated/elect-leaders.js';
import { listPartitionReassignmentsApi } from '../../protocol/messages/generated/list-partition-reassignments.js';
import { KafkaResponseError } from '../errors.js';
import { type AdminContext, byTopic, type TopicPartition } from './context.js';
import { controllerMoved, type TimeoutOptions } from './topics.js';

export interface ElectionResult extends TopicPartition {
  /** 0, or Kafka's code: ELECTION_NOT_NEEDED, PREFERRED_LEADER_NOT_AVAILABLE, ... */
  errorCode: number;
  errorMessage: string | null;
}

export interface PartitionReassignment extends TopicPartition {
  /** The target replicas, or null to cancel the partition's reassignment. */
  replicas: number[] | null;
}

export interface OngoingReassignment extends TopicPartition {
  replicas: number[];
  addingReplicas: number[];
  removingReplicas: number[];
}

/**
 * Elects leaders ('preferred': each partition's first replica; 'unclean': any live replica for a
 * leaderless partition) for the named partitions, or every partition when null. Resolves each
 * partition's outcome (errors included: ELECTION_NOT_NEEDED is a normal answer).
 */
export async function electLeaders(
  ctx: AdminContext,
  type: 'preferred' | 'unclean',
  partitions: readonly TopicPartition[] | null,
  o: TimeoutOptions = {},
): Promise<ElectionResult[]> {
  const timeoutMs = o.timeoutMs ?? ctx.options.requestTimeoutMs;
  return ctx.retry(async () => {
    const link = await ctx.controller();
    const res = await link.request(
      electLeadersApi,
      {
        electionType: type === 'preferred' ? 0 : 1,
        topicPartitions:
          partitions === null
            ? null
            : [...byTopic(partitions)].map(([topic, ps]) => ({
                topic,
                partitions: ps.map((p) => p.partition),
              })),
        timeoutMs,
      },
      // v0 knows only preferred elections.
      { minVersion: type === 'preferred' ? 0 : 1, timeoutMs: timeoutMs + 5000 },
    );
    controllerMoved(res.errorCode, 'elect leaders');
    if (res.errorCode !== 0) throw new KafkaResponseError(res.errorCode, 'elect leaders');
    const out: ElectionResult[] = [];
    for (const t of res.replicaElectionResults) {
      for (const p of t.partitionResult) {
        controllerMoved(p.errorCode, `elect leader of ${t.topic}-${p.partitionId}`, p.errorMessage);
        out.push({
          topic: t.topic,
          partition: p.partitionId,
          errorCode: p.errorCode,
          errorMessage: p.errorMessage,
        });
      }
    }
    return out;
  }, timeoutMs + ctx.options.requestTimeoutMs);
}

/** Starts (or cancels, with null replicas) partition moves; throws the first partition's error. */
export async function alterPartitionReassignments(
  ctx: AdminContext,
  reassignments: readonly PartitionReassignment[],
  o: TimeoutOptions = {},
): Promise<void> {
  const timeoutMs = o.timeoutMs ?? ctx.options.requestTimeoutMs;
  await ctx.retry(async () => {
    const link = await ctx.controller();
    const res = await link.request(
      alterPartitionReassignmentsApi,
      {
        timeoutMs,
        topics: [...byTopic(reassignments)].map(([name, ps]) => ({
          name,
          partitions: ps.map((p) => ({ partitionIndex: p.partition, replicas: p.replicas })),
        })),
      },
      { timeoutMs: timeoutMs + 5000 },
    );
    controllerMoved(res.errorCode, 'alter partition reassignments', res.errorMessage);
    if (res.errorCode !== 0)
      throw new KafkaResponseError(res.errorCode, 'alter partition reassignments', res.errorMessage);
    for (const t of res.responses)
      for (const p of t.partitions) {
        const what = `reassign ${t.name}-${p.partitionIndex}`;
        if (p.errorCode !== 0) throw new KafkaResponseError(p.errorCode, what, p.errorMessage);
      }
  }, timeoutMs + ctx.options.requestTimeoutMs);
}

/** Partitions being reassigned (of those named, or all). */
export async function listPartitionReassignments(
  ctx: AdminContext,
  partitions: readonly TopicPartition[] | null = null,
  o: TimeoutOptions = {},
): Promise<OngoingReassignment[]> {
  const timeoutMs = o.timeoutMs ?? ctx.options.requestTimeoutMs;
  return ctx.retry(async () => {
    const link = await ctx.controller();
    const res = await link.request(
      listPartitionReassignmentsApi,
      {
        timeoutMs,
        topics:
          partitions === null
            ? null
            : [...byTopic(partitions)].map(([name, ps]) => ({
                name,
                partitionIndexes: ps.map((p) => p.partition),
              })),
      },
      { timeoutMs: timeoutMs + 5000 },
    );
    controllerMoved(res.errorCode, 'list partition reassignments', res.errorMessage);
    if (res.errorCode !== 0)
      throw new KafkaResponseError(res.errorCode, 'list partition reassignments', res.errorMessage);
    return res.topics.flatMap((t) =>
      t.partitions.map((p) => ({
        topic: t.name,
        partition: p.partitionIndex,
        replicas: [...p.replicas],
        addingReplicas: [...p.addingReplicas],
        removingReplicas: [...p.removingReplicas],
      })),
    );
  }, timeoutMs + ctx.options.requestTimeoutMs);
}
