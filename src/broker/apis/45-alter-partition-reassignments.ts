// AlterPartitionReassignments (key 45), v0 (KIP-455): moves partitions to new replica lists, or
// cancels a move (null replicas). Served by the active controller; elsewhere the whole request
// answers NOT_CONTROLLER (Kafka's ZooKeeper mode). The answer comes once the move has started
// (the new assignment is written and the new replicas told), not when it completes:
// ListPartitionReassignments shows the progress. Per-partition errors are Kafka's:
// INVALID_REPLICA_ASSIGNMENT, UNKNOWN_TOPIC_OR_PARTITION, NO_REASSIGNMENT_IN_PROGRESS.

import { ErrorCode, KafkaError } from '../../protocol/errors.js';
import {
  type AlterPartitionReassignmentsRequest,
  type AlterPartitionReassignmentsResponse,
  alterPartitionReassignmentsApi,
} from '../../protocol/messages/generated/alter-partition-reassignments.js';
import { defineApi } from './api.js';
import { AclOp, clusterAllowed } from './authorize.js';

const failed = (errorCode: number, errorMessage: string | null): AlterPartitionReassignmentsResponse => ({
  throttleTimeMs: 0,
  errorCode,
  errorMessage,
  responses: [],
});

export default defineApi<AlterPartitionReassignmentsRequest, AlterPartitionReassignmentsResponse>({
  api: alterPartitionReassignmentsApi,
  minVersion: 0,
  maxVersion: 0,
  async handle(ctx, req) {
    if (!clusterAllowed(ctx, AclOp.ALTER)) return failed(ErrorCode.CLUSTER_AUTHORIZATION_FAILED, null);
    const controller = ctx.broker.leadership;
    if (controller === undefined) return failed(ErrorCode.NOT_CONTROLLER, null);
    const requests = req.topics.flatMap((t) =>
      t.partitions.map((p) => ({ topic: t.name, partition: p.partitionIndex, replicas: p.replicas })),
    );
    let results: Awaited<ReturnType<typeof controller.alterPartitionReassignments>>;
    try {
      results = await controller.alterPartitionReassignments(requests);
    } catch (e) {
      if (e instanceof KafkaError)
        return failed(e.code, e.code === ErrorCode.NOT_CONTROLLER ? null : e.message);
      throw e;
    }
    const byTopic = new Map<string, AlterPartitionReassignmentsResponse['responses'][number]>();
    for (const r of results) {
      let t = byTopic.get(r.topic);
      if (t === undefined) {
        t = { name: r.topic, partitions: [] };
        byTopic.set(r.topic, t);
      }
      t.partitions.push({
        partitionIndex: r.partition,
        errorCode: r.errorCode,
        errorMessage: r.errorMessage,
      });
    }
    return {
      throttleTimeMs: 0,
      errorCode: ErrorCode.NONE,
      errorMessage: null,
      responses: [...byTopic.values()],
    };
  },
});
