// ListPartitionReassignments (key 46), v0 (KIP-455): the partitions being moved, each with its
// current replica set and the replicas being added and removed; of the named partitions (those
// not moving, or unknown, are left out) or of all when the list is null. Served by the active
// controller; elsewhere NOT_CONTROLLER (Kafka's ZooKeeper mode).

import { ErrorCode, KafkaError } from '../../protocol/errors.js';
import {
  type ListPartitionReassignmentsRequest,
  type ListPartitionReassignmentsResponse,
  listPartitionReassignmentsApi,
} from '../../protocol/messages/generated/list-partition-reassignments.js';
import { defineApi } from './api.js';
import { AclOp, clusterAllowed } from './authorize.js';

const failed = (errorCode: number, errorMessage: string | null): ListPartitionReassignmentsResponse => ({
  throttleTimeMs: 0,
  errorCode,
  errorMessage,
  topics: [],
});

export default defineApi<ListPartitionReassignmentsRequest, ListPartitionReassignmentsResponse>({
  api: listPartitionReassignmentsApi,
  minVersion: 0,
  maxVersion: 0,
  async handle(ctx, req) {
    if (!clusterAllowed(ctx, AclOp.DESCRIBE)) return failed(ErrorCode.CLUSTER_AUTHORIZATION_FAILED, null);
    const controller = ctx.broker.leadership;
    if (controller === undefined) return failed(ErrorCode.NOT_CONTROLLER, null);
    const named =
      req.topics === null
        ? null
        : req.topics.flatMap((t) => t.partitionIndexes.map((partition) => ({ topic: t.name, partition })));
    let ongoing: Awaited<ReturnType<typeof controller.listPartitionReassignments>>;
    try {
      ongoing = await controller.listPartitionReassignments(named);
    } catch (e) {
      if (e instanceof KafkaError)
        return failed(e.code, e.code === ErrorCode.NOT_CONTROLLER ? null : e.message);
      throw e;
    }
    const byTopic = new Map<string, ListPartitionReassignmentsResponse['topics'][number]>();
    const seen = new Set<string>();
    for (const r of ongoing) {
      const key = `${r.topic}\u0000${r.partition}`;
      if (seen.has(key)) continue;
      seen.add(key);
      let t = byTopic.get(r.topic);
      if (t === undefined) {
        t = { name: r.topic, partitions: [] };
        byTopic.set(r.topic, t);
      }
      t.partitions.push({
        partitionIndex: r.partition,
        replicas: [...r.replicas],
        addingReplicas: [...r.adding],
        removingReplicas: [...r.removing],
      });
    }
    return {
      throttleTimeMs: 0,
      errorCode: ErrorCode.NONE,
      errorMessage: null,
      topics: [...byTopic.values()],
    };
  },
});
