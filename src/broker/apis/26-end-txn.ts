// EndTxn (key 26), v0-4 (v5, transaction protocol v2 of KIP-890, is not offered): commits or
// aborts the producer's open transaction. The decision (PrepareCommit/PrepareAbort) is
// written first; markers then go to every partition of the transaction and the answer waits
// for them (bounded), so the next transaction does not meet CONCURRENT_TRANSACTIONS. A retry
// of a completed EndTxn with the same result answers NONE. PRODUCER_FENCED only from v2.

import { ErrorCode } from '../../protocol/errors.js';
import {
  type EndTxnRequest,
  type EndTxnResponse,
  endTxnApi,
} from '../../protocol/messages/generated/end-txn.js';
import { producerFencedFor } from '../coordinator/txn/txn-api-errors.js';
import { defineApi } from './api.js';
import { AclOp, allowed, ResType } from './authorize.js';

export default defineApi<EndTxnRequest, EndTxnResponse>({
  api: endTxnApi,
  minVersion: 0,
  maxVersion: 4,
  async handle(ctx, req) {
    const txns = ctx.broker.txns;
    const code = !allowed(ctx, AclOp.WRITE, ResType.TRANSACTIONAL_ID, req.transactionalId)
      ? ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED
      : txns === undefined
        ? ErrorCode.COORDINATOR_NOT_AVAILABLE
        : await txns.coordinator.endTxn(
            req.transactionalId,
            req.producerId,
            req.producerEpoch,
            req.committed,
          );
    return {
      throttleTimeMs: 0,
      errorCode: producerFencedFor(code, ctx.version >= 2),
      producerId: -1n,
      producerEpoch: -1,
    };
  },
});
