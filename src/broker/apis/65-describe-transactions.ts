// DescribeTransactions (key 65), v0: state, timeout, start time, producer id/epoch and
// partitions of each transactional id this broker coordinates. Unknown id:
// TRANSACTIONAL_ID_NOT_FOUND; another broker's id: NOT_COORDINATOR; loading:
// COORDINATOR_LOAD_IN_PROGRESS.

import { ErrorCode } from '../../protocol/errors.js';
import {
  type DescribeTransactionsRequest,
  type DescribeTransactionsResponse,
  describeTransactionsApi,
} from '../../protocol/messages/generated/describe-transactions.js';
import { defineApi } from './api.js';
import { AclOp, allowed, deniedNames, ResType } from './authorize.js';

export default defineApi<DescribeTransactionsRequest, DescribeTransactionsResponse>({
  api: describeTransactionsApi,
  minVersion: 0,
  maxVersion: 0,
  async handle(ctx, req) {
    const txns = ctx.broker.txns;
    // Kafka: DESCRIBE per transactional id; partitions of topics the principal may not describe are left out.
    const denied = deniedNames(
      ctx,
      AclOp.DESCRIBE,
      ResType.TRANSACTIONAL_ID,
      req.transactionalIds,
      (id) => id,
    );
    const ids = denied === null ? req.transactionalIds : req.transactionalIds.filter((id) => !denied.has(id));
    const found =
      txns === undefined
        ? ids.map((transactionalId) => ({
            transactionalId,
            errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE,
          }))
        : await txns.coordinator.describe(ids);
    const described =
      denied === null
        ? found
        : req.transactionalIds.map(
            (transactionalId) =>
              found.find((d) => d.transactionalId === transactionalId) ?? {
                transactionalId,
                errorCode: ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED,
              },
          );
    return {
      throttleTimeMs: 0,
      transactionStates: described.map((d) => {
        const full = 'state' in d ? d : null;
        return {
          errorCode: d.errorCode,
          transactionalId: d.transactionalId,
          transactionState: full?.state ?? '',
          transactionTimeoutMs: full?.timeoutMs ?? 0,
          transactionStartTimeMs: BigInt(full?.startTimestamp ?? -1),
          producerId: full?.producerId ?? -1n,
          producerEpoch: full?.producerEpoch ?? -1,
          topics: (full?.partitions ?? [])
            .filter((t) => allowed(ctx, AclOp.DESCRIBE, ResType.TOPIC, t.topic))
            .map((t) => ({ topic: t.topic, partitions: t.partitions })),
        };
      }),
    };
  },
});
