// EndTxn (key 26), v0-5: commits or aborts the producer's open transaction. The decision
// (PrepareCommit/PrepareAbort) is written first; markers then go to every partition of the
// transaction and the answer waits for them (bounded), so the next transaction does not meet
// CONCURRENT_TRANSACTIONS. A retry of a completed EndTxn with the same result answers NONE.
// PRODUCER_FENCED only from v2.
// v5 is transaction protocol v2 (KIP-890 part 2): the transaction ends with an epoch bump (its
// markers carry the new epoch, fencing whatever the producer still sends at the old one) and
// the answer carries the producer id and epoch to continue with — a new id at epoch 0 when the
// epoch ran out. While `transaction.version` is below 2, v5 answers UNSUPPORTED_VERSION, except
// for a transaction begun under protocol v2 (it may still end).

import { ErrorCode } from '../../protocol/errors.js';
import {
  type EndTxnRequest,
  type EndTxnResponse,
  endTxnApi,
} from '../../protocol/messages/generated/end-txn.js';
import { producerFencedFor } from '../coordinator/txn/txn-api-errors.js';
import { defineApi } from './api.js';
import { AclOp, allowed, ResType } from './authorize.js';

/** The first EndTxn version of transaction protocol v2. */
const FIRST_V2_VERSION = 5;

export default defineApi<EndTxnRequest, EndTxnResponse>({
  api: endTxnApi,
  minVersion: 0,
  maxVersion: 5,
  async handle(ctx, req) {
    const txns = ctx.broker.txns;
    const answer = (errorCode: number, producerId = -1n, producerEpoch = -1): EndTxnResponse => ({
      throttleTimeMs: 0,
      errorCode: producerFencedFor(errorCode, ctx.version >= 2),
      producerId,
      producerEpoch,
    });
    if (!allowed(ctx, AclOp.WRITE, ResType.TRANSACTIONAL_ID, req.transactionalId))
      return answer(ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
    if (txns === undefined) return answer(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    const r = await txns.coordinator.endTransaction(req.transactionalId, {
      producerId: req.producerId,
      producerEpoch: req.producerEpoch,
      commit: req.committed,
      clientTransactionVersion: ctx.version >= FIRST_V2_VERSION ? 2 : 0,
      v2Enabled: txns.transactionVersion.level >= 2,
    });
    return answer(r.errorCode, r.producerId, r.producerEpoch);
  },
});
