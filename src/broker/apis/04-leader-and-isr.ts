// LeaderAndIsr (key 4), v0-7: the controller tells a replica its partitions' leader, epoch, ISR
// and replicas. Handled by this broker's ControllerRequestReceiver (epoch fencing, then the
// replica manager's becomeLeaderOrFollower); without one (the embedded single broker) no
// controller is current here: STALE_CONTROLLER_EPOCH for every partition. A request the
// receiver cannot process for now (store unreachable) closes the connection, so the
// controller's channel resends it.

import { ErrorCode } from '../../protocol/errors.js';
import {
  type LeaderAndIsrRequest,
  type LeaderAndIsrResponse,
  leaderAndIsrApi,
} from '../../protocol/messages/generated/leader-and-isr.js';
import { leaderAndIsrErrorResponse } from '../metadata/controller/request-forms.js';
import { CloseConnection, defineApi } from './api.js';
import { AclOp, clusterAllowed } from './authorize.js';

export default defineApi<LeaderAndIsrRequest, LeaderAndIsrResponse>({
  api: leaderAndIsrApi,
  minVersion: 0,
  maxVersion: 7,
  async handle(ctx, req) {
    if (!clusterAllowed(ctx, AclOp.CLUSTER_ACTION))
      return leaderAndIsrErrorResponse(req, ErrorCode.CLUSTER_AUTHORIZATION_FAILED);
    const receiver = ctx.broker.controllerRequests;
    if (receiver === undefined) return leaderAndIsrErrorResponse(req, ErrorCode.STALE_CONTROLLER_EPOCH);
    try {
      return await receiver.leaderAndIsr(req);
    } catch (e) {
      return new CloseConnection(`LeaderAndIsr not processed: ${e instanceof Error ? e.message : String(e)}`);
    }
  },
});
