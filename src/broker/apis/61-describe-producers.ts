// DescribeProducers (key 61), v0: the producer state of partitions this broker leads — each
// active producer's id, epoch, last sequence and timestamp, the coordinator epoch of its last
// marker and the first offset of its open transaction (-1 when none), as `kafka-transactions
// describe-producers` shows them. Unknown partitions: UNKNOWN_TOPIC_OR_PARTITION; followers:
// NOT_LEADER_OR_FOLLOWER.

import { ErrorCode, errorInfo } from '../../protocol/errors.js';
import {
  type DescribeProducersRequest,
  type DescribeProducersResponse,
  type DescribeProducersResponsePartitionResponse,
  describeProducersApi,
} from '../../protocol/messages/generated/describe-producers.js';
import { defineApi } from './api.js';
import { AclOp, allowed, ResType } from './authorize.js';

export default defineApi<DescribeProducersRequest, DescribeProducersResponse>({
  api: describeProducersApi,
  minVersion: 0,
  maxVersion: 0,
  handle(ctx, req) {
    const topics = req.topics.map((t) => ({
      name: t.name,
      partitions: t.partitionIndexes.map((index): DescribeProducersResponsePartitionResponse => {
        const refused = !allowed(ctx, AclOp.READ, ResType.TOPIC, t.name);
        const p = refused ? undefined : ctx.broker.replicas.get(t.name, index);
        const code = refused
          ? ErrorCode.TOPIC_AUTHORIZATION_FAILED
          : p === undefined
            ? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
            : p.isLeader
              ? ErrorCode.NONE
              : ErrorCode.NOT_LEADER_OR_FOLLOWER;
        if (p === undefined || code !== ErrorCode.NONE) {
          return {
            partitionIndex: index,
            errorCode: code,
            errorMessage: errorInfo(code).message,
            activeProducers: [],
          };
        }
        return {
          partitionIndex: index,
          errorCode: ErrorCode.NONE,
          errorMessage: null,
          activeProducers: p.log.producerStates().map((s) => ({
            producerId: s.producerId,
            producerEpoch: s.producerEpoch,
            lastSequence: s.lastSequence,
            lastTimestamp: s.lastTimestamp,
            coordinatorEpoch: s.coordinatorEpoch,
            currentTxnStartOffset: s.currentTxnStartOffset,
          })),
        };
      }),
    }));
    return { throttleTimeMs: 0, topics };
  },
});
