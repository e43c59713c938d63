// Cluster description: DescribeCluster (v0+, what the Java admin uses) when the broker offers
// it, else the broker list, controller and cluster id of a Metadata response.
import { describeClusterApi } from '../../protocol/messages/generated/describe-cluster.js';
import { KafkaResponseError } from '../errors.js';
import type { AdminContext } from './context.js';

export interface ClusterDescription {
  clusterId: string | null;
  controller: number;
  brokers: { nodeId: number; host: string; port: number; rack: string | null }[];
}

export async function describeCluster(ctx: AdminContext): Promise<ClusterDescription> {
  return ctx.retry(async () => {
    const link = await ctx.pool.any();
    if (link.brokerRange(describeClusterApi.key) !== undefined) {
      const res = await link.request(describeClusterApi, {
        includeClusterAuthorizedOperations: false,
        endpointType: 1,
      });
      if (res.errorCode !== 0)
        throw new KafkaResponseError(res.errorCode, 'DescribeCluster', res.errorMessage);
      return {
        clusterId: res.clusterId,
        controller: res.controllerId,
        brokers: res.brokers
          .map((b) => ({ nodeId: b.brokerId, host: b.host, port: b.port, rack: b.rack }))
          .sort((a, b) => a.nodeId - b.nodeId),
      };
    }
    await ctx.metadata.refresh();
    return {
      clusterId: ctx.metadata.clusterId,
      controller: ctx.metadata.controllerId,
      brokers: ctx.pool.brokers().sort((a, b) => a.nodeId - b.nodeId),
    };
  });
}
