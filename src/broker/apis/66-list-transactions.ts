// ListTransactions (key 66), v0-1: the transactional ids this broker coordinates, filtered by
// state names (Kafka's: Empty, Ongoing, PrepareCommit, ...; unknown names are echoed back in
// UnknownStateFilters and match nothing), by producer id, and (v1) by running for at least
// DurationFilter ms (-1 = any). COORDINATOR_LOAD_IN_PROGRESS while a partition loads.

import { ErrorCode } from '../../protocol/errors.js';
import {
  type ListTransactionsRequest,
  type ListTransactionsResponse,
  listTransactionsApi,
} from '../../protocol/messages/generated/list-transactions.js';
import { TXN_STATES } from '../coordinator/txn/txn-metadata.js';
import { defineApi } from './api.js';
import { AclOp, allowed, ResType } from './authorize.js';

export default defineApi<ListTransactionsRequest, ListTransactionsResponse>({
  api: listTransactionsApi,
  minVersion: 0,
  maxVersion: 1,
  async handle(ctx, req) {
    const txns = ctx.broker.txns;
    const known = new Set<string>(TXN_STATES);
    const unknownStateFilters = req.stateFilters.filter((s) => !known.has(s));
    const empty = { throttleTimeMs: 0, unknownStateFilters, transactionStates: [] };
    if (txns === undefined) return { ...empty, errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE };
    // Only unknown states asked for: nothing can match.
    if (req.stateFilters.length > 0 && unknownStateFilters.length === req.stateFilters.length)
      return { ...empty, errorCode: ErrorCode.NONE };
    const r = await txns.coordinator.list({
      states: new Set(req.stateFilters.filter((s) => known.has(s))),
      producerIds: new Set(req.producerIdFilters),
      minDurationMs: ctx.version >= 1 ? Number(req.durationFilter) : -1,
    });
    return {
      throttleTimeMs: 0,
      errorCode: r.errorCode,
      unknownStateFilters,
      transactionStates: r.transactions
        .filter((t) => allowed(ctx, AclOp.DESCRIBE, ResType.TRANSACTIONAL_ID, t.transactionalId))
        .map((t) => ({
          transactionalId: t.transactionalId,
          producerId: t.producerId,
          transactionState: t.state,
        })),
    };
  },
});
