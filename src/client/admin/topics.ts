// Topic administration: create (with configs and optional replica assignment), delete, list,
// describe (partitions, leaders, replicas, ISR), and add partitions. Creation and deletion go to
// the controller named by Metadata; NOT_CONTROLLER makes us refresh and retry.
import { ErrorCode } from '../../protocol/errors.js';
import { createPartitionsApi } from '../../protocol/messages/generated/create-partitions.js';
import { createTopicsApi } from '../../protocol/messages/generated/create-topics.js';
import { deleteTopicsApi } from '../../protocol/messages/generated/delete-topics.js';
import { metadataApi } from '../../protocol/messages/generated/metadata.js';
import { ZERO_UUID } from '../../protocol/primitives/reader.js';
import { KafkaResponseError } from '../errors.js';
import { type AdminContext, RetryableStep } from './context.js';

export interface NewTopic {
  name: string;
  /** Default: the broker's num.partitions (-1 on the wire). */
  numPartitions?: number;
  /** Default: the broker's default.replication.factor (-1 on the wire). */
  replicationFactor?: number;
  /** Explicit replicas per partition index (then numPartitions/replicationFactor are not sent). */
  replicaAssignment?: Record<number, number[]>;
  configs?: Record<string, string>;
}

export interface CreatedTopic {
  name: string;
  topicId: string;
  numPartitions: number;
  replicationFactor: number;
}

export interface PartitionDescription {
  partition: number;
  leader: number;
  leaderEpoch: number;
  replicas: number[];
  isr: number[];
  offlineReplicas: number[];
}

export interface TopicDescription {
  name: string;
  topicId: string;
  isInternal: boolean;
  partitions: PartitionDescription[];
}

export interface TimeoutOptions {
  /** Time the controller may take (the request's TimeoutMs), default request.timeout.ms. */
  timeoutMs?: number;
}

/** NOT_CONTROLLER: the controller moved; a retryable step (the admin looks it up again). */
export function controllerMoved(code: number, what: string, message?: string | null): void {
  if (code === ErrorCode.NOT_CONTROLLER) throw new RetryableStep(new KafkaResponseError(code, what, message));
}

export async function createTopics(
  ctx: AdminContext,
  topics: readonly NewTopic[],
  o: TimeoutOptions & { validateOnly?: boolean } = {},
): Promise<CreatedTopic[]> {
  const timeoutMs = o.timeoutMs ?? ctx.options.requestTimeoutMs;
  return ctx.retry(async () => {
    const link = await ctx.controller();
    const res = await link.request(
      createTopicsApi,
      {
        topics: topics.map((t) => {
          const assignments = Object.entries(t.replicaAssignment ?? {}).map(([p, brokerIds]) => ({
            partitionIndex: Number(p),
            brokerIds,
          }));
          return {
            name: t.name,
            numPartitions: assignments.length > 0 ? -1 : (t.numPartitions ?? -1),
            replicationFactor: assignments.length > 0 ? -1 : (t.replicationFactor ?? -1),
            assignments,
            configs: Object.entries(t.configs ?? {}).map(([name, value]) => ({ name, value })),
          };
        }),
        timeoutMs,
        validateOnly: o.validateOnly ?? false,
      },
      // v0-v3 cannot express "broker default" partitions/replication (-1), v4+ can.
      {
        minVersion: topics.some((t) => t.numPartitions === undefined || t.replicationFactor === undefined)
          ? 4
          : 0,
        timeoutMs: timeoutMs + 5000,
      },
    );
    const out: CreatedTopic[] = [];
    for (const r of res.topics) {
      controllerMoved(r.errorCode, `create topic ${r.name}`, r.errorMessage);
      if (r.errorCode !== 0)
        throw new KafkaResponseError(r.errorCode, `create topic ${r.name}`, r.errorMessage);
      out.push({
        name: r.name,
        topicId: r.topicId,
        numPartitions: r.numPartitions,
        replicationFactor: r.replicationFactor,
      });
    }
    return out;
  }, timeoutMs + ctx.options.requestTimeoutMs);
}

export async function deleteTopics(
  ctx: AdminContext,
  names: readonly string[],
  o: TimeoutOptions = {},
): Promise<void> {
  const timeoutMs = o.timeoutMs ?? ctx.options.requestTimeoutMs;
  await ctx.retry(async () => {
    const link = await ctx.controller();
    const res = await link.request(
      deleteTopicsApi,
      { topics: names.map((name) => ({ name, topicId: ZERO_UUID })), topicNames: [...names], timeoutMs },
      { timeoutMs: timeoutMs + 5000 },
    );
    for (const r of res.responses) {
      controllerMoved(r.errorCode, `delete topic ${r.name}`, r.errorMessage);
      if (r.errorCode !== 0)
        throw new KafkaResponseError(r.errorCode, `delete topic ${r.name}`, r.errorMessage);
    }
  }, timeoutMs + ctx.options.requestTimeoutMs);
}

/** Describes topics (all topics when `names` is omitted). */
export async function describeTopics(
  ctx: AdminContext,
  names?: readonly string[],
): Promise<TopicDescription[]> {
  return ctx.retry(async () => {
    const link = await ctx.pool.any();
    const res = await link.request(
      metadataApi,
      {
        topics: names === undefined ? null : names.map((name) => ({ topicId: ZERO_UUID, name })),
        allowAutoTopicCreation: false,
        includeClusterAuthorizedOperations: false,
        includeTopicAuthorizedOperations: false,
      },
      { minVersion: 1 },
    );
    ctx.metadata.apply(res);
    const out: TopicDescription[] = [];
    for (const t of res.topics) {
      if (t.errorCode === ErrorCode.LEADER_NOT_AVAILABLE)
        throw new RetryableStep(new KafkaResponseError(t.errorCode, `topic ${t.name}`));
      if (t.errorCode !== 0)
        throw new KafkaResponseError(t.errorCode, `describe topic ${t.name ?? t.topicId}`);
      out.push({
        name: t.name!,
        topicId: t.topicId,
        isInternal: t.isInternal,
        partitions: t.partitions
          .map((p) => ({
            partition: p.partitionIndex,
            leader: p.leaderId,
            leaderEpoch: p.leaderEpoch,
            replicas: p.replicaNodes,
            isr: p.isrNodes,
            offlineReplicas: p.offlineReplicas,
          }))
          .sort((a, b) => a.partition - b.partition),
      });
    }
    return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  });
}

export async function listTopics(
  ctx: AdminContext,
  o: { includeInternal?: boolean } = {},
): Promise<string[]> {
  const all = await describeTopics(ctx);
  return all.filter((t) => o.includeInternal === true || !t.isInternal).map((t) => t.name);
}

export interface NewPartitions {
  topic: string;
  /** The new total number of partitions. */
  count: number;
  /** Replicas of each new partition, in order. */
  assignments?: number[][];
}

export async function createPartitions(
  ctx: AdminContext,
  list: readonly NewPartitions[],
  o: TimeoutOptions & { validateOnly?: boolean } = {},
): Promise<void> {
  const timeoutMs = o.timeoutMs ?? ctx.options.requestTimeoutMs;
  await ctx.retry(async () => {
    const link = await ctx.controller();
    const res = await link.request(
      createPartitionsApi,
      {
        topics: list.map((p) => ({
          name: p.topic,
          count: p.count,
          assignments: p.assignments === undefined ? null : p.assignments.map((brokerIds) => ({ brokerIds })),
        })),
        timeoutMs,
        validateOnly: o.validateOnly ?? false,
      },
      { timeoutMs: timeoutMs + 5000 },
    );
    for (const r of res.results) {
      controllerMoved(r.errorCode, `create partitions for ${r.name}`, r.errorMessage);
      if (r.errorCode !== 0)
        throw new KafkaResponseError(r.errorCode, `create partitions for ${r.name}`, r.errorMessage);
    }
  }, timeoutMs + ctx.options.requestTimeoutMs);
  ctx.metadata.requestUpdate(true);
}
