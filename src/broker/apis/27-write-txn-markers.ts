// WriteTxnMarkers (key 27), v0-1: the inter-broker request a transaction coordinator sends to
// partition leaders. Each marker is appended to the listed partitions this broker leads as a
// COMMIT/ABORT control batch (a __consumer_offsets partition through the group coordinator,
// which also decides the transaction's pending offsets); the answer carries one error per
// partition (NOT_LEADER_OR_FOLLOWER, UNKNOWN_TOPIC_OR_PARTITION, INVALID_PRODUCER_EPOCH,
// TRANSACTION_COORDINATOR_FENCED, ...). A single broker's own coordinator writes its markers
// in-process; this API serves other coordinators and tools.

import { ErrorCode } from '../../protocol/errors.js';
import {
  type WriteTxnMarkersRequest,
  type WriteTxnMarkersResponse,
  writeTxnMarkersApi,
} from '../../protocol/messages/generated/write-txn-markers.js';
import { defineApi } from './api.js';
import { AclOp, clusterAllowed } from './authorize.js';

export default defineApi<WriteTxnMarkersRequest, WriteTxnMarkersResponse>({
  api: writeTxnMarkersApi,
  minVersion: 0,
  maxVersion: 1,
  async handle(ctx, req) {
    const writer = ctx.broker.txns?.markers;
    const refused = !clusterAllowed(ctx, AclOp.CLUSTER_ACTION);
    const markers = await Promise.all(
      req.markers.map(async (m) => {
        const marker = {
          producerId: m.producerId,
          producerEpoch: m.producerEpoch,
          coordinatorEpoch: m.coordinatorEpoch,
          commit: m.transactionResult,
        };
        const topics = await Promise.all(
          m.topics.map(async (t) => ({
            name: t.name,
            partitions: await Promise.all(
              t.partitionIndexes.map(async (p) => ({
                partitionIndex: p,
                errorCode: refused
                  ? ErrorCode.CLUSTER_AUTHORIZATION_FAILED
                  : writer === undefined
                    ? ErrorCode.COORDINATOR_NOT_AVAILABLE
                    : await writer.writeOne(marker, t.name, p),
              })),
            ),
          })),
        );
        return { producerId: m.producerId, topics };
      }),
    );
    return { markers };
  },
});
