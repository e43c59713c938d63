// CreateTopics (key 19), v0-7. A request's topics are written to the metadata store together;
// each answer comes once this broker serves the topic with its leaders (or the timeout passed). Duplicate names in one request are all rejected
// with INVALID_REQUEST, as Kafka does. ValidateOnly (v1+) runs every check and reports what would
// be created. v5+ answers with the partition count, replication factor and the topic's configs;
// v7+ with the topic id. With ACLs, as Kafka's KafkaApis: CREATE on the cluster or the topic;
// a topic the principal may not DESCRIBE_CONFIGS gets topicConfigErrorCode
// TOPIC_AUTHORIZATION_FAILED and no partition count, replication factor or configs (the code
// goes back to NONE when the creation itself fails).

import { ErrorCode, KafkaError } from '../../protocol/errors.js';
import {
  type CreateTopicsRequest,
  type CreateTopicsResponse,
  type CreateTopicsResponseCreatableTopicResult,
  createTopicsApi,
} from '../../protocol/messages/generated/create-topics.js';
import type { CreateTopicSpec } from '../metadata/topic-commands.js';
import type { TopicRecord } from '../metadata/types.js';
import { ZERO_UUID } from '../metadata/uuid.js';
import { defineApi } from './api.js';
import { AclOp, clusterAllowed, deniedNames, ResType } from './authorize.js';
import type { BrokerServices } from './services.js';

/** A request timeout of 0 still waits a moment: clients use the topic right after the answer. */
function propagationTimeout(timeoutMs: number): number {
  return timeoutMs > 0 ? timeoutMs : 5000;
}

function success(broker: BrokerServices, t: TopicRecord): CreateTopicsResponseCreatableTopicResult {
  return {
    name: t.name,
    topicId: t.topicId,
    errorCode: ErrorCode.NONE,
    errorMessage: null,
    topicConfigErrorCode: ErrorCode.NONE,
    numPartitions: t.partitions.length,
    replicationFactor: t.partitions[0]?.replicas.length ?? -1,
    configs: broker.configs.describeTopic(t.configs, null).map((c) => ({
      name: c.name,
      value: c.value,
      readOnly: c.readOnly,
      configSource: c.source,
      isSensitive: c.isSensitive,
    })),
  };
}

function failure(
  name: string,
  code: number,
  message: string | null,
): CreateTopicsResponseCreatableTopicResult {
  return {
    name,
    topicId: ZERO_UUID,
    errorCode: code,
    errorMessage: message,
    topicConfigErrorCode: ErrorCode.NONE,
    numPartitions: -1,
    replicationFactor: -1,
    configs: null,
  };
}

export default defineApi<CreateTopicsRequest, CreateTopicsResponse>({
  api: createTopicsApi,
  minVersion: 0,
  maxVersion: 7,
  async handle(ctx, req) {
    const { broker } = ctx;
    // Both the wait for this broker to see the topics and the wait for a lost store connection.
    const timeoutMs = propagationTimeout(req.timeoutMs);
    const counts = new Map<string, number>();
    for (const t of req.topics) counts.set(t.name, (counts.get(t.name) ?? 0) + 1);
    const reported = new Set<string>();
    // Every topic of the request is written at once (their store writes and the controller's
    // work on them batch together, as Kafka creates a request's topics in one go); answers keep
    // the request's order.
    const answers: Promise<CreateTopicsResponseCreatableTopicResult>[] = [];
    // Kafka: CREATE on the cluster, or else on each topic.
    const denied = clusterAllowed(ctx, AclOp.CREATE)
      ? null
      : deniedNames(ctx, AclOp.CREATE, ResType.TOPIC, req.topics, (t) => t.name);
    const hiddenConfigs = deniedNames(ctx, AclOp.DESCRIBE_CONFIGS, ResType.TOPIC, req.topics, (t) => t.name);
    const configsRefused = (
      r: CreateTopicsResponseCreatableTopicResult,
    ): CreateTopicsResponseCreatableTopicResult =>
      hiddenConfigs?.has(r.name)
        ? {
            ...r,
            topicConfigErrorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED,
            numPartitions: -1,
            replicationFactor: -1,
            configs: [],
          }
        : r;
    for (const t of req.topics) {
      if (counts.get(t.name)! > 1) {
        if (!reported.has(t.name))
          answers.push(
            Promise.resolve(
              configsRefused(failure(t.name, ErrorCode.INVALID_REQUEST, 'Duplicate topic name.')),
            ),
          );
        reported.add(t.name);
        continue;
      }
      if (denied?.has(t.name)) {
        answers.push(
          Promise.resolve(
            configsRefused(failure(t.name, ErrorCode.TOPIC_AUTHORIZATION_FAILED, 'Authorization failed.')),
          ),
        );
        continue;
      }
      const configs: Record<string, string | null> = {};
      for (const c of t.configs) configs[c.name] = c.value;
      const spec: CreateTopicSpec = {
        name: t.name,
        numPartitions: t.numPartitions,
        replicationFactor: t.replicationFactor,
        assignments: t.assignments,
        configs,
      };
      answers.push(
        (req.validateOnly
          ? broker.commands.planTopic(spec, timeoutMs)
          : broker.commands.createTopic(spec, timeoutMs, timeoutMs)
        ).then(
          (record) => configsRefused(success(broker, record)),
          (e: unknown) => {
            if (!(e instanceof KafkaError)) throw e;
            return failure(t.name, e.code, e.message);
          },
        ),
      );
    }
    const topics = await Promise.all(answers);
    return { throttleTimeMs: 0, topics };
  },
});
