// InitProducerId (key 22), v0-5. Null TransactionalId (idempotent producer): a fresh producer
// id with epoch 0 every time, as Kafka's coordinator does for non-transactional producers,
// including KIP-360 bump requests (v3+) that carry their old id. Ids come from durable blocks,
// so they never repeat across restarts. A transactional id goes to the transaction
// coordinator: first use allocates an id at epoch 0, later calls bump the epoch and fence the
// previous producer (aborting its open transaction); v3+ ProducerId/ProducerEpoch let a
// producer bump its own epoch (KIP-360; -1/-1 = none, one of them -1 = INVALID_REQUEST).
// PRODUCER_FENCED is answered as INVALID_PRODUCER_EPOCH below v4.

import { ErrorCode } from '../../protocol/errors.js';
import {
  type InitProducerIdRequest,
  type InitProducerIdResponse,
  initProducerIdApi,
} from '../../protocol/messages/generated/init-producer-id.js';
import { producerFencedFor } from '../coordinator/txn/txn-api-errors.js';
import { defineApi } from './api.js';
import { AclOp, allowed, clusterAllowed, ResType } from './authorize.js';

export default defineApi<InitProducerIdRequest, InitProducerIdResponse>({
  api: initProducerIdApi,
  minVersion: 0,
  maxVersion: 5,
  async handle(ctx, req) {
    const answer = (errorCode: number, producerId = -1n, producerEpoch = -1): InitProducerIdResponse => ({
      throttleTimeMs: 0,
      errorCode,
      producerId,
      producerEpoch,
    });
    // Kafka: WRITE on the transactional id; an idempotent producer needs IDEMPOTENT_WRITE on the
    // cluster or WRITE on some topic (KIP-679).
    if (ctx.broker.authorizer !== undefined) {
      if (req.transactionalId !== null) {
        if (!allowed(ctx, AclOp.WRITE, ResType.TRANSACTIONAL_ID, req.transactionalId))
          return answer(ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
      } else if (
        !clusterAllowed(ctx, AclOp.IDEMPOTENT_WRITE) &&
        !ctx.broker.authorizer.authorizeByResourceType(ctx.conn, AclOp.WRITE, ResType.TOPIC)
      )
        return answer(ErrorCode.CLUSTER_AUTHORIZATION_FAILED);
    }
    if (req.transactionalId === null) {
      const producerId = await ctx.broker.producerIds.generate();
      return answer(ErrorCode.NONE, producerId, 0);
    }
    const txns = ctx.broker.txns;
    if (txns === undefined) return answer(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    const v3 = ctx.version >= 3;
    const pid = v3 ? req.producerId : -1n;
    const epoch = v3 ? req.producerEpoch : -1;
    if ((pid === -1n) !== (epoch === -1)) return answer(ErrorCode.INVALID_REQUEST);
    const expected = pid === -1n ? null : { producerId: pid, producerEpoch: epoch };
    if (req.transactionalId !== '') await txns.ensureReady(req.transactionalId).catch(() => undefined);
    const r = await txns.coordinator.initProducerId(req.transactionalId, req.transactionTimeoutMs, expected);
    if (r.errorCode !== ErrorCode.NONE) return answer(producerFencedFor(r.errorCode, ctx.version >= 4));
    return answer(ErrorCode.NONE, r.producerId, r.producerEpoch);
  },
});
