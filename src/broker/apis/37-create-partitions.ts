// CreatePartitions (key 37), v0-3: grows topics; optional explicit assignments; ValidateOnly.
// Duplicate topics in one request are INVALID_REQUEST, as in Kafka.

import { ErrorCode, KafkaError } from '../../protocol/errors.js';
import {
  type CreatePartitionsRequest,
  type CreatePartitionsResponse,
  createPartitionsApi,
} from '../../protocol/messages/generated/create-partitions.js';
import { defineApi } from './api.js';
import { AclOp, allowed, ResType } from './authorize.js';

export default defineApi<CreatePartitionsRequest, CreatePartitionsResponse>({
  api: createPartitionsApi,
  minVersion: 0,
  maxVersion: 3,
  async handle(ctx, req) {
    const { broker } = ctx;
    const counts = new Map<string, number>();
    for (const t of req.topics) counts.set(t.name, (counts.get(t.name) ?? 0) + 1);
    const results: CreatePartitionsResponse['results'] = [];
    for (const t of req.topics) {
      if (counts.get(t.name)! > 1) {
        results.push({
          name: t.name,
          errorCode: ErrorCode.INVALID_REQUEST,
          errorMessage: 'Duplicate topic in request.',
        });
        continue;
      }
      if (!allowed(ctx, AclOp.ALTER, ResType.TOPIC, t.name)) {
        results.push({
          name: t.name,
          errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED,
          errorMessage: 'The topic authorization is failed.',
        });
        continue;
      }
      try {
        const assignments = t.assignments === null ? null : t.assignments.map((a) => a.brokerIds);
        await broker.commands.createPartitions(
          t.name,
          t.count,
          assignments,
          req.validateOnly,
          req.timeoutMs > 0 ? req.timeoutMs : 30_000,
        );
        results.push({ name: t.name, errorCode: ErrorCode.NONE, errorMessage: null });
      } catch (e) {
        if (!(e instanceof KafkaError)) throw e;
        results.push({ name: t.name, errorCode: e.code, errorMessage: e.message });
      }
    }
    return { throttleTimeMs: 0, results };
  },
});
