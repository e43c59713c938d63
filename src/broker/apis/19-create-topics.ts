// CreateTopics (key 19), v0-7. Topics are written to the metadata store one by one; each answer
// comes once this broker serves the topic with its leaders (or the request's timeout passed). Duplicate names in one request are all rejected
// with INVALID_REQUEST, as Kafka does. ValidateOnly (v1+) runs every check and reports what would
// be created. v5+ answers with the partition count, replication factor and the topic's configs;
// v7+ with the topic id.

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
    const counts = new Map<string, number>();
    for (const t of req.topics) counts.set(t.name, (counts.get(t.name) ?? 0) + 1);
    const topics: CreateTopicsResponseCreatableTopicResult[] = [];
    const reported = new Set<string>();
    for (const t of req.topics) {
      if (counts.get(t.name)! > 1) {
        if (!reported.has(t.name))
          topics.push(failure(t.name, ErrorCode.INVALID_REQUEST, 'Duplicate topic name.'));
        reported.add(t.name);
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
      try {
        const record = req.validateOnly
          ? await broker.commands.planTopic(spec)
          : await broker.commands.createTopic(spec, propagationTimeout(req.timeoutMs));
        topics.push(success(broker, record));
      } catch (e) {
        if (!(e instanceof KafkaError)) throw e;
        topics.push(failure(t.name, e.code, e.message));
      }
    }
    return { throttleTimeMs: 0, topics };
  },
});
