// DescribeTopicPartitions (key 75), v0, as Kafka 3.7+ serves it (DescribeTopicPartitionsRequest
// Handler + KRaftMetadataCache): Kafka 4 admin clients describe topics with it, paged.
// - An empty topic list means every topic (unknown names are then never reported); otherwise the
//   named ones, each once. Only names ≥ the cursor's topic are considered, sorted; with a topic
//   list the cursor's topic must be in it, and its partition index must not be negative, else
//   every requested topic answers INVALID_REQUEST.
// - At most max(min(`max.request.partition.size.limit`, ResponsePartitionLimit), 1) partitions
//   are returned; the cursor's topic starts at the cursor's partition, others at 0. When a
//   topic's partitions do not all fit, NextCursor points at the first one left out; when the
//   budget is spent exactly at a topic boundary and topics remain, at the next topic's
//   partition 0.
// - A requested topic that does not exist: UNKNOWN_TOPIC_OR_PARTITION (INVALID_TOPIC_EXCEPTION
//   for an illegal name), zero topic id, no partitions.
// - Partitions: leader -1 when it is not a live broker (no per-partition error), offline
//   replicas from the image, empty ELR lists (no ELR here). With ACLs, topics the principal may
//   not DESCRIBE are left out of "every topic" and answered TOPIC_AUTHORIZATION_FAILED when named.

import { ErrorCode } from '../../protocol/errors.js';
import {
  type DescribeTopicPartitionsRequest,
  type DescribeTopicPartitionsResponse,
  describeTopicPartitionsApi,
  type DescribeTopicPartitionsResponseDescribeTopicPartitionsResponsePartition as PartitionOut,
  type DescribeTopicPartitionsResponseDescribeTopicPartitionsResponseTopic as TopicOut,
} from '../../protocol/messages/generated/describe-topic-partitions.js';
import type { ClusterPartitionImage, TopicView } from '../metadata/cluster-image.js';
import { topicNameError } from '../metadata/topic-names.js';
import { INTERNAL_TOPICS } from '../metadata/types.js';
import { ZERO_UUID } from '../metadata/uuid.js';
import { TOPIC_ALL_OPS } from './03-metadata.js';
import { defineApi } from './api.js';
import { AclOp, allowed, authorizedOperations, ResType } from './authorize.js';
import type { BrokerServices } from './services.js';

const OPS_NOT_SET = -2147483648;
const DEFAULT_PARTITION_LIMIT = 2000;

function errorAnswer(
  req: DescribeTopicPartitionsRequest,
  errorCode: number,
): DescribeTopicPartitionsResponse {
  return {
    throttleTimeMs: 0,
    topics: req.topics.map((t) => ({
      errorCode,
      name: t.name,
      topicId: ZERO_UUID,
      isInternal: false,
      partitions: [],
      topicAuthorizedOperations: OPS_NOT_SET,
    })),
    nextCursor: null,
  };
}

function partitionsOf(broker: BrokerServices, t: TopicView, start: number, count: number): PartitionOut[] {
  const out: PartitionOut[] = [];
  const upper = Math.min(t.partitions.length, start + count);
  for (let i = start; i < upper; i++) {
    const p = t.partitions[i]!;
    const alive = p.leader >= 0 && broker.image.broker(p.leader) !== undefined;
    out.push({
      errorCode: ErrorCode.NONE,
      partitionIndex: p.partition,
      leaderId: alive ? p.leader : -1,
      leaderEpoch: p.leaderEpoch,
      replicaNodes: [...p.replicas],
      isrNodes: [...p.isr],
      eligibleLeaderReplicas: [],
      lastKnownElr: [],
      offlineReplicas: 'offlineReplicas' in p ? [...(p as ClusterPartitionImage).offlineReplicas] : [],
    });
  }
  return out;
}

function partitionLimit(broker: BrokerServices, requested: number): number {
  const configured = Number(
    broker.configs.brokerValue('max.request.partition.size.limit') ?? DEFAULT_PARTITION_LIMIT,
  );
  return Math.max(Math.min(configured, requested), 1);
}

export default defineApi<DescribeTopicPartitionsRequest, DescribeTopicPartitionsResponse>({
  api: describeTopicPartitionsApi,
  minVersion: 0,
  maxVersion: 0,
  handle(ctx, req) {
    const { broker } = ctx;
    const all = req.topics.length === 0;
    const cursor = req.cursor;
    const from = cursor?.topicName ?? '';
    const names = new Set<string>();
    if (all) {
      for (const t of broker.image.topics) if (t.name >= from) names.add(t.name);
    } else {
      for (const t of req.topics) if (t.name >= from) names.add(t.name);
      if (cursor !== null && !names.has(cursor.topicName)) return errorAnswer(req, ErrorCode.INVALID_REQUEST);
    }
    if (cursor !== null && cursor.partitionIndex < 0) return errorAnswer(req, ErrorCode.INVALID_REQUEST);
    const sorted = [...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    let remaining = partitionLimit(broker, req.responsePartitionLimit);
    const topics: TopicOut[] = [];
    let nextCursor: DescribeTopicPartitionsResponse['nextCursor'] = null;
    for (const name of sorted) {
      if (remaining === 0) {
        nextCursor = { topicName: name, partitionIndex: 0 };
        break;
      }
      // ACLs: undescribable topics are left out of "all", refused when named (existence undisclosed).
      if (!allowed(ctx, AclOp.DESCRIBE, ResType.TOPIC, name)) {
        if (!all)
          topics.push({
            errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED,
            name,
            topicId: ZERO_UUID,
            isInternal: false,
            partitions: [],
            topicAuthorizedOperations: TOPIC_ALL_OPS,
          });
        continue;
      }
      const t = broker.image.topic(name);
      if (t === undefined) {
        if (!all) {
          const bad = topicNameError(name) !== null;
          topics.push({
            errorCode: bad ? ErrorCode.INVALID_TOPIC_EXCEPTION : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
            name,
            topicId: ZERO_UUID,
            isInternal: INTERNAL_TOPICS.has(name),
            partitions: [],
            topicAuthorizedOperations: TOPIC_ALL_OPS,
          });
        }
        continue;
      }
      const start = cursor !== null && name === cursor.topicName ? cursor.partitionIndex : 0;
      const partitions = partitionsOf(broker, t, start, remaining);
      topics.push({
        errorCode: ErrorCode.NONE,
        name,
        topicId: t.topicId,
        isInternal: t.internal,
        partitions,
        topicAuthorizedOperations: authorizedOperations(ctx, ResType.TOPIC, name, TOPIC_ALL_OPS),
      });
      const upper = Math.min(t.partitions.length, start + remaining);
      if (upper < t.partitions.length) {
        nextCursor = { topicName: name, partitionIndex: upper };
        break;
      }
      remaining -= partitions.length;
    }
    return { throttleTimeMs: 0, topics, nextCursor };
  },
});
