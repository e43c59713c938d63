// UpdateMetadata (key 6), v0-8: the controller's live brokers and partition states for this
// broker's metadata image. Handled by the ControllerRequestReceiver (epoch fencing, then the
// metadata publisher); without one (embedded single broker): STALE_CONTROLLER_EPOCH. A request
// the receiver cannot process for now closes the connection, so the controller resends it.

import { ErrorCode } from '../../protocol/errors.js';
import {
  type UpdateMetadataRequest,
  type UpdateMetadataResponse,
  updateMetadataApi,
} from '../../protocol/messages/generated/update-metadata.js';
import { CloseConnection, defineApi } from './api.js';
import { AclOp, clusterAllowed } from './authorize.js';

export default defineApi<UpdateMetadataRequest, UpdateMetadataResponse>({
  api: updateMetadataApi,
  minVersion: 0,
  maxVersion: 8,
  async handle(ctx, req) {
    if (!clusterAllowed(ctx, AclOp.CLUSTER_ACTION))
      return { errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED };
    const receiver = ctx.broker.controllerRequests;
    if (receiver === undefined) return { errorCode: ErrorCode.STALE_CONTROLLER_EPOCH };
    try {
      return await receiver.updateMetadata(req);
    } catch (e) {
      return new CloseConnection(
        `UpdateMetadata not processed: ${e instanceof Error ? e.message : String(e)}`,
      );
    }
  },
});
