// DeleteTopics (key 20), v0-6. v0-5 name topics; v6 names or ids (UNKNOWN_TOPIC_ID for an
// unknown id). The topic leaves the metadata first (durably), then its logs are deleted.

import { ErrorCode, KafkaError } from '../../protocol/errors.js';
import {
  type DeleteTopicsRequest,
  type DeleteTopicsResponse,
  type DeleteTopicsResponseDeletableTopicResult,
  deleteTopicsApi,
} from '../../protocol/messages/generated/delete-topics.js';
import { ZERO_UUID } from '../metadata/uuid.js';
import { defineApi } from './api.js';
import { AclOp, allowed, ResType } from './authorize.js';

export default defineApi<DeleteTopicsRequest, DeleteTopicsResponse>({
  api: deleteTopicsApi,
  minVersion: 0,
  maxVersion: 6,
  async handle(ctx, req) {
    const { broker, version } = ctx;
    const wanted = version >= 6 ? req.topics : req.topicNames.map((name) => ({ name, topicId: ZERO_UUID }));
    const responses: DeleteTopicsResponseDeletableTopicResult[] = [];
    for (const w of wanted) {
      const out: DeleteTopicsResponseDeletableTopicResult = {
        name: w.name,
        topicId: w.topicId,
        errorCode: ErrorCode.NONE,
        errorMessage: null,
      };
      responses.push(out);
      let name = w.name;
      if (w.topicId !== ZERO_UUID) {
        const byId = broker.image.topicById(w.topicId);
        if (!byId || (name !== null && byId.name !== name)) {
          out.errorCode = ErrorCode.UNKNOWN_TOPIC_ID;
          out.errorMessage = `Topic id ${w.topicId} does not exist.`;
          continue;
        }
        name = byId.name;
        // Kafka does not name a topic the principal may not describe (the id itself is not
        // secret: TOPIC_AUTHORIZATION_FAILED, no message).
        if (!allowed(ctx, AclOp.DESCRIBE, ResType.TOPIC, name)) {
          out.name = null;
          out.errorCode = ErrorCode.TOPIC_AUTHORIZATION_FAILED;
          continue;
        }
        out.name = name;
      }
      if (name === null) {
        out.errorCode = ErrorCode.INVALID_REQUEST;
        out.errorMessage = 'Neither topic name nor id was given.';
        continue;
      }
      if (!allowed(ctx, AclOp.DELETE, ResType.TOPIC, name)) {
        out.errorCode = ErrorCode.TOPIC_AUTHORIZATION_FAILED; // Kafka sends no message
        continue;
      }
      try {
        const t = await broker.commands.deleteTopic(name, req.timeoutMs > 0 ? req.timeoutMs : 30_000);
        out.topicId = t.topicId;
      } catch (e) {
        if (!(e instanceof KafkaError)) throw e;
        out.errorCode = e.code;
        out.errorMessage = e.message;
      }
    }
    return { throttleTimeMs: 0, responses };
  },
});
