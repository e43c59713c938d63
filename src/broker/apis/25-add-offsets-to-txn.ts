// AddOffsetsToTxn (key 25), v0-4: adds the group's partition of __consumer_offsets to the
// transaction, so that the transaction's COMMIT/ABORT marker also decides the offsets the
// producer then sends with TxnOffsetCommit. Creates __consumer_offsets if needed (the marker
// must have a partition to land in). PRODUCER_FENCED only from v2.

import { ErrorCode } from '../../protocol/errors.js';
import {
  type AddOffsetsToTxnRequest,
  type AddOffsetsToTxnResponse,
  addOffsetsToTxnApi,
} from '../../protocol/messages/generated/add-offsets-to-txn.js';
import { CONSUMER_OFFSETS_TOPIC } from '../coordinator/group/broker-group-coordinator.js';
import { producerFencedFor } from '../coordinator/txn/txn-api-errors.js';
import { defineApi } from './api.js';
import { AclOp, allowed, ResType } from './authorize.js';

export default defineApi<AddOffsetsToTxnRequest, AddOffsetsToTxnResponse>({
  api: addOffsetsToTxnApi,
  minVersion: 0,
  maxVersion: 4,
  async handle(ctx, req) {
    const { txns, groups } = ctx.broker;
    if (!allowed(ctx, AclOp.WRITE, ResType.TRANSACTIONAL_ID, req.transactionalId))
      return { throttleTimeMs: 0, errorCode: ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED };
    if (!allowed(ctx, AclOp.READ, ResType.GROUP, req.groupId))
      return { throttleTimeMs: 0, errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED };
    if (txns === undefined || groups === undefined)
      return { throttleTimeMs: 0, errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE };
    if (req.groupId === '') return { throttleTimeMs: 0, errorCode: ErrorCode.INVALID_GROUP_ID };
    try {
      await groups.ensureTopic();
    } catch {
      return { throttleTimeMs: 0, errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE };
    }
    const partition = groups.coordinator.partitionFor(req.groupId);
    const code = await txns.coordinator.addPartitions(
      req.transactionalId,
      req.producerId,
      req.producerEpoch,
      [{ topic: CONSUMER_OFFSETS_TOPIC, partitions: [partition] }],
    );
    return { throttleTimeMs: 0, errorCode: producerFencedFor(code, ctx.version >= 2) };
  },
});
