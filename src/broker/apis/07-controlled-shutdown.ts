// ControlledShutdown (key 7), v2-3: a broker about to stop asks the controller to move its
// leaderships away; the answer lists the partitions it still leads (it retries until none).
// Only v2+ carry the broker epoch (KIP-380); v0/v1 (and an explicit -1) would let any client
// drain any broker, so they are not accepted: every Samsa broker knows its epoch. Not the
// controller (no active controller here): STALE_CONTROLLER_EPOCH, Kafka's ControllerMovedException.

import { ErrorCode, KafkaError } from '../../protocol/errors.js';
import {
  type ControlledShutdownRequest,
  type ControlledShutdownResponse,
  controlledShutdownApi,
} from '../../protocol/messages/generated/controlled-shutdown.js';
import { defineApi } from './api.js';
import { AclOp, clusterAllowed } from './authorize.js';

const failed = (errorCode: number): ControlledShutdownResponse => ({ errorCode, remainingPartitions: [] });

export default defineApi<ControlledShutdownRequest, ControlledShutdownResponse>({
  api: controlledShutdownApi,
  minVersion: 2,
  maxVersion: 3,
  async handle(ctx, req) {
    if (!clusterAllowed(ctx, AclOp.CLUSTER_ACTION)) return failed(ErrorCode.CLUSTER_AUTHORIZATION_FAILED);
    const controller = ctx.broker.activeController;
    if (controller === undefined) return failed(ErrorCode.STALE_CONTROLLER_EPOCH);
    if (req.brokerEpoch < 0n || req.brokerId < 0) return failed(ErrorCode.STALE_BROKER_EPOCH);
    try {
      const remaining = await controller.controlledShutdown(req.brokerId, req.brokerEpoch);
      return {
        errorCode: ErrorCode.NONE,
        remainingPartitions: remaining.map((p) => ({ topicName: p.topic, partitionIndex: p.partition })),
      };
    } catch (e) {
      if (e instanceof KafkaError) return failed(e.code);
      ctx.broker.logger.log('error', 'ControlledShutdown failed', {
        brokerId: req.brokerId,
        error: e instanceof Error ? e.message : String(e),
      });
      return failed(ErrorCode.UNKNOWN_SERVER_ERROR);
    }
  },
});
