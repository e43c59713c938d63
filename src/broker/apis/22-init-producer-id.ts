// InitProducerId (key 22), v0-5, for idempotent producers (null TransactionalId): a fresh
// producer id with epoch 0 every time, as Kafka's coordinator does for non-transactional
// producers, including KIP-360 bump requests (v3+) that carry their old id. Ids come from
// durable blocks, so they never repeat across restarts. Transactional ids belong to the
// transaction coordinator, which this broker does not have yet: they get INVALID_REQUEST.

import { ErrorCode } from '../../protocol/errors.js';
import {
  type InitProducerIdRequest,
  type InitProducerIdResponse,
  initProducerIdApi,
} from '../../protocol/messages/generated/init-producer-id.js';
import { defineApi } from './api.js';

export default defineApi<InitProducerIdRequest, InitProducerIdResponse>({
  api: initProducerIdApi,
  minVersion: 0,
  maxVersion: 5,
  async handle(ctx, req) {
    if (req.transactionalId !== null) {
      return { throttleTimeMs: 0, errorCode: ErrorCode.INVALID_REQUEST, producerId: -1n, producerEpoch: -1 };
    }
    const producerId = await ctx.broker.producerIds.generate();
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, producerId, producerEpoch: 0 };
  },
});
