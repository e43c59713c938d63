// DescribeCluster (key 60), v0-1: the brokers, controller and cluster id of the image. v1's
// EndpointType 2 (KRaft controllers) does not exist here: UNSUPPORTED_ENDPOINT_TYPE. Brokers are
// given with their endpoint for the listener the request came through, as Metadata does.

import { ErrorCode } from '../../protocol/errors.js';
import {
  type DescribeClusterRequest,
  type DescribeClusterResponse,
  describeClusterApi,
} from '../../protocol/messages/generated/describe-cluster.js';
import { CLUSTER_NAME } from '../security/acl-model.js';
import { CLUSTER_ALL_OPS } from './03-metadata.js';
import { defineApi } from './api.js';
import { AclOp, authorizedOperations, clusterAllowed, ResType } from './authorize.js';
import { brokersForListener } from './listener-brokers.js';

const BROKERS_ENDPOINT = 1;

export default defineApi<DescribeClusterRequest, DescribeClusterResponse>({
  api: describeClusterApi,
  minVersion: 0,
  maxVersion: 1,
  handle(ctx, req) {
    const { broker, version } = ctx;
    const endpointType = version >= 1 ? req.endpointType : BROKERS_ENDPOINT;
    const base = {
      throttleTimeMs: 0,
      endpointType,
      clusterId: broker.image.clusterId,
      controllerId: broker.image.controllerId,
      // Kafka: requested operations need DESCRIBE on the cluster, else 0.
      clusterAuthorizedOperations: !req.includeClusterAuthorizedOperations
        ? -2147483648
        : !clusterAllowed(ctx, AclOp.DESCRIBE)
          ? 0
          : authorizedOperations(ctx, ResType.CLUSTER, CLUSTER_NAME, CLUSTER_ALL_OPS),
    };
    if (endpointType !== BROKERS_ENDPOINT) {
      return {
        ...base,
        errorCode: ErrorCode.UNSUPPORTED_ENDPOINT_TYPE,
        errorMessage: `Unsupported endpoint type ${endpointType}`,
        brokers: [],
      };
    }
    return {
      ...base,
      errorCode: ErrorCode.NONE,
      errorMessage: null,
      brokers: brokersForListener(ctx).map((b) => ({
        brokerId: b.nodeId,
        host: b.host,
        port: b.port,
        rack: b.rack,
      })),
    };
  },
});
