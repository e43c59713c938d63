// Metadata (key 3), v0-12. Brokers and controller come from the image, so ControllerId is
// always a listed broker (kafkajs routes admin requests to it). Topic selection: v0 empty list
// = all topics; v1+ null = all, empty = none; v10+ entries may name a topic by id only.
// Unknown topics are auto-created when both `auto.create.topics.enable` and the request's
// AllowAutoTopicCreation (v4+, implied true before) allow it; the fresh topic is returned
// complete because creation finishes (logs included) before we answer. Authorized-operation
// fields (v8+) are INT32_MIN unless asked for; with no ACLs everything is allowed. Brokers are
// given with their endpoint for the listener the request came through (`listener-brokers.ts`).
// ACLs (Kafka's order): topics the principal may not DESCRIBE are left out of "all topics" and
// answered TOPIC_AUTHORIZATION_FAILED when named, before their existence is looked at (so it is
// not disclosed); auto-creation needs CREATE on the cluster or on the topic.

import { ErrorCode, KafkaError } from '../../protocol/errors.js';
import {
  type MetadataRequest,
  type MetadataResponse,
  type MetadataResponseMetadataResponseTopic,
  metadataApi,
} from '../../protocol/messages/generated/metadata.js';
import type { ClusterPartitionImage, TopicView } from '../metadata/cluster-image.js';
import { topicNameError } from '../metadata/topic-names.js';
import { ZERO_UUID } from '../metadata/uuid.js';
import { CLUSTER_NAME } from '../security/acl-model.js';
import { defineApi } from './api.js';
import { AclOp, allowed, authorizedOperations, clusterAllowed, ResType } from './authorize.js';
import { autoCreateTopic } from './auto-create.js';
import { brokersForListener } from './listener-brokers.js';

const OPS_NOT_REQUESTED = -2147483648;
/** READ, WRITE, CREATE, DELETE, ALTER, DESCRIBE, DESCRIBE_CONFIGS, ALTER_CONFIGS. */
export const TOPIC_ALL_OPS = [3, 4, 5, 6, 7, 8, 10, 11].reduce((a, b) => a | (1 << b), 0);
/** CREATE, ALTER, DESCRIBE, CLUSTER_ACTION, DESCRIBE_CONFIGS, ALTER_CONFIGS, IDEMPOTENT_WRITE, CREATE/DESCRIBE_TOKENS. */
export const CLUSTER_ALL_OPS = [5, 7, 8, 9, 10, 11, 12, 13, 14].reduce((a, b) => a | (1 << b), 0);

function describeTopic(t: TopicView, ops: number): MetadataResponseMetadataResponseTopic {
  return {
    errorCode: ErrorCode.NONE,
    name: t.name,
    topicId: t.topicId,
    isInternal: t.internal,
    partitions: t.partitions.map((p) => ({
      // No live leader: LEADER_NOT_AVAILABLE, as Kafka's metadata cache answers.
      errorCode: p.leader < 0 ? ErrorCode.LEADER_NOT_AVAILABLE : ErrorCode.NONE,
      partitionIndex: p.partition,
      leaderId: p.leader < 0 ? -1 : p.leader,
      leaderEpoch: p.leaderEpoch,
      replicaNodes: [...p.replicas],
      isrNodes: [...p.isr],
      offlineReplicas: 'offlineReplicas' in p ? [...(p as ClusterPartitionImage).offlineReplicas] : [],
    })),
    topicAuthorizedOperations: ops,
  };
}

function errorTopic(
  name: string | null,
  topicId: string,
  errorCode: number,
): MetadataResponseMetadataResponseTopic {
  return {
    errorCode,
    name,
    topicId,
    isInternal: false,
    partitions: [],
    topicAuthorizedOperations: OPS_NOT_REQUESTED,
  };
}

export default defineApi<MetadataRequest, MetadataResponse>({
  api: metadataApi,
  minVersion: 0,
  maxVersion: 12,
  async handle(ctx, req) {
    const { broker, version } = ctx;
    const opsWanted = version >= 8 && req.includeTopicAuthorizedOperations;
    const topicOps = (name: string) =>
      opsWanted ? authorizedOperations(ctx, ResType.TOPIC, name, TOPIC_ALL_OPS) : OPS_NOT_REQUESTED;
    const describable = (name: string) => allowed(ctx, AclOp.DESCRIBE, ResType.TOPIC, name);
    const allTopics = req.topics === null || (version === 0 && req.topics.length === 0);
    const topics: MetadataResponseMetadataResponseTopic[] = [];
    if (allTopics) {
      const sorted = [...broker.image.topics].sort((a, b) => (a.name < b.name ? -1 : 1));
      for (const t of sorted) if (describable(t.name)) topics.push(describeTopic(t, topicOps(t.name)));
    } else {
      const autoCreate = broker.config.autoCreateTopicsEnable && (version < 4 || req.allowAutoTopicCreation);
      for (const rt of req.topics!) {
        if (rt.name === null) {
          const t = rt.topicId === ZERO_UUID ? undefined : broker.image.topicById(rt.topicId);
          // Topic ids are not secret: an undescribable one is named as refused.
          topics.push(
            !t
              ? errorTopic(null, rt.topicId, ErrorCode.UNKNOWN_TOPIC_ID)
              : describable(t.name)
                ? describeTopic(t, topicOps(t.name))
                : errorTopic(null, rt.topicId, ErrorCode.TOPIC_AUTHORIZATION_FAILED),
          );
          continue;
        }
        if (!describable(rt.name)) {
          topics.push(errorTopic(rt.name, ZERO_UUID, ErrorCode.TOPIC_AUTHORIZATION_FAILED));
          continue;
        }
        const existing = broker.image.topic(rt.name);
        if (existing) {
          topics.push(describeTopic(existing, topicOps(rt.name)));
        } else if (topicNameError(rt.name) !== null) {
          topics.push(errorTopic(rt.name, ZERO_UUID, ErrorCode.INVALID_TOPIC_EXCEPTION));
        } else if (!autoCreate) {
          topics.push(errorTopic(rt.name, ZERO_UUID, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION));
        } else if (
          !clusterAllowed(ctx, AclOp.CREATE) &&
          !allowed(ctx, AclOp.CREATE, ResType.TOPIC, rt.name)
        ) {
          topics.push(errorTopic(rt.name, ZERO_UUID, ErrorCode.TOPIC_AUTHORIZATION_FAILED));
        } else {
          try {
            topics.push(describeTopic(await autoCreateTopic(broker, rt.name), topicOps(rt.name)));
          } catch (e) {
            const code = e instanceof KafkaError ? e.code : ErrorCode.UNKNOWN_SERVER_ERROR;
            topics.push(errorTopic(rt.name, ZERO_UUID, code));
          }
        }
      }
    }
    let clusterOps = OPS_NOT_REQUESTED;
    if (version >= 8 && version <= 10 && req.includeClusterAuthorizedOperations)
      clusterOps = !clusterAllowed(ctx, AclOp.DESCRIBE)
        ? 0
        : authorizedOperations(ctx, ResType.CLUSTER, CLUSTER_NAME, CLUSTER_ALL_OPS);
    return {
      throttleTimeMs: 0,
      brokers: brokersForListener(ctx),
      clusterId: broker.image.clusterId,
      controllerId: broker.image.controllerId,
      topics,
      clusterAuthorizedOperations: clusterOps,
    };
  },
});
