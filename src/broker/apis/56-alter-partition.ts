// AlterPartition (key 56), v0-3: a partition leader asks the controller to change its ISR (or
// mark an unclean leader recovered, KIP-704), fenced by the partition epoch. Served by the
// active controller; on any other broker: NOT_CONTROLLER (the leader finds the controller
// and retries), as Kafka. A negative broker epoch cannot be a registered broker's:
// STALE_BROKER_EPOCH.

import { ErrorCode, KafkaError } from '../../protocol/errors.js';
import {
  type AlterPartitionRequest,
  type AlterPartitionResponse,
  alterPartitionApi,
} from '../../protocol/messages/generated/alter-partition.js';
import { defineApi } from './api.js';
import { AclOp, clusterAllowed } from './authorize.js';

const failed = (errorCode: number): AlterPartitionResponse => ({ throttleTimeMs: 0, errorCode, topics: [] });

export default defineApi<AlterPartitionRequest, AlterPartitionResponse>({
  api: alterPartitionApi,
  minVersion: 0,
  maxVersion: 3,
  async handle(ctx, req) {
    if (!clusterAllowed(ctx, AclOp.CLUSTER_ACTION)) return failed(ErrorCode.CLUSTER_AUTHORIZATION_FAILED);
    const controller = ctx.broker.activeController;
    if (controller === undefined) return failed(ErrorCode.NOT_CONTROLLER);
    if (req.brokerEpoch < 0n || req.brokerId < 0) return failed(ErrorCode.STALE_BROKER_EPOCH);
    try {
      return await controller.alterPartition(req, ctx.version);
    } catch (e) {
      if (e instanceof KafkaError) return failed(e.code);
      ctx.broker.logger.log('error', 'AlterPartition failed', {
        brokerId: req.brokerId,
        error: e instanceof Error ? e.message : String(e),
      });
      return failed(ErrorCode.UNKNOWN_SERVER_ERROR);
    }
  },
});
