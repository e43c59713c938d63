// StopReplica (key 5), v0-4: the controller stops (and with deletePartition deletes) replicas on
// this broker. Handled by the ControllerRequestReceiver (epoch fencing, then the replica
// manager's stopReplicas); without one (embedded single broker): STALE_CONTROLLER_EPOCH, as
// Kafka answers a controller that is not current (top-level error only). A request the receiver
// cannot process for now closes the connection, so the controller's channel resends it.

import { ErrorCode } from '../../protocol/errors.js';
import {
  type StopReplicaRequest,
  type StopReplicaResponse,
  stopReplicaApi,
} from '../../protocol/messages/generated/stop-replica.js';
import { CloseConnection, defineApi } from './api.js';
import { AclOp, clusterAllowed } from './authorize.js';

export default defineApi<StopReplicaRequest, StopReplicaResponse>({
  api: stopReplicaApi,
  minVersion: 0,
  maxVersion: 4,
  async handle(ctx, req) {
    if (!clusterAllowed(ctx, AclOp.CLUSTER_ACTION))
      return { errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED, partitionErrors: [] };
    const receiver = ctx.broker.controllerRequests;
    if (receiver === undefined) return { errorCode: ErrorCode.STALE_CONTROLLER_EPOCH, partitionErrors: [] };
    try {
      return await receiver.stopReplica(req);
    } catch (e) {
      return new CloseConnection(`StopReplica not processed: ${e instanceof Error ? e.message : String(e)}`);
    }
  },
});
