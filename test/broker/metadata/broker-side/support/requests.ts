// Builders of the controller's requests in their newest forms, for the broker-side tests.

import type {
  LeaderAndIsrRequest,
  LeaderAndIsrRequestLeaderAndIsrPartitionState,
} from '../../../../../src/protocol/messages/generated/leader-and-isr.js';
import type {
  StopReplicaRequest,
  StopReplicaRequestStopReplicaPartitionState,
} from '../../../../../src/protocol/messages/generated/stop-replica.js';
import type {
  UpdateMetadataRequest,
  UpdateMetadataRequestUpdateMetadataBroker,
  UpdateMetadataRequestUpdateMetadataPartitionState,
} from '../../../../../src/protocol/messages/generated/update-metadata.js';

export interface Control {
  controllerId?: number;
  controllerEpoch?: number;
  brokerEpoch?: bigint;
}

export type PartitionSpec = Partial<LeaderAndIsrRequestLeaderAndIsrPartitionState> & {
  partitionIndex: number;
  leader: number;
  leaderEpoch: number;
};

export function partitionState(
  s: PartitionSpec,
  controllerEpoch = 1,
): LeaderAndIsrRequestLeaderAndIsrPartitionState {
  return {
    topicName: '',
    controllerEpoch,
    isr: [s.leader],
    partitionEpoch: s.leaderEpoch,
    replicas: [s.leader],
    addingReplicas: [],
    removingReplicas: [],
    isNew: false,
    leaderRecoveryState: 0,
    ...s,
  };
}

export function leaderAndIsr(
  c: Control,
  topics: { name: string; id: string; partitions: PartitionSpec[] }[],
): LeaderAndIsrRequest {
  const controllerEpoch = c.controllerEpoch ?? 1;
  return {
    controllerId: c.controllerId ?? 1,
    isKRaftController: false,
    controllerEpoch,
    brokerEpoch: c.brokerEpoch ?? -1n,
    type: 0,
    ungroupedPartitionStates: [],
    topicStates: topics.map((t) => ({
      topicName: t.name,
      topicId: t.id,
      partitionStates: t.partitions.map((p) => partitionState(p, controllerEpoch)),
    })),
    liveLeaders: [],
  };
}

export function stopReplica(
  c: Control,
  topics: { name: string; partitions: Partial<StopReplicaRequestStopReplicaPartitionState>[] }[],
): StopReplicaRequest {
  return {
    controllerId: c.controllerId ?? 1,
    isKRaftController: false,
    controllerEpoch: c.controllerEpoch ?? 1,
    brokerEpoch: c.brokerEpoch ?? -1n,
    deletePartitions: false,
    ungroupedPartitions: [],
    topics: [],
    topicStates: topics.map((t) => ({
      topicName: t.name,
      partitionStates: t.partitions.map((p) => ({
        partitionIndex: 0,
        leaderEpoch: -1,
        deletePartition: false,
        ...p,
      })),
    })),
  };
}

export function umBroker(
  id: number,
  port = 9090 + id,
  rack: string | null = null,
): UpdateMetadataRequestUpdateMetadataBroker {
  return {
    id,
    v0Host: '',
    v0Port: 0,
    endpoints: [
      { port, host: `broker-${id}`, listener: 'PLAINTEXT', securityProtocol: 0 },
      { port: port + 1000, host: `internal-${id}`, listener: 'INTERNAL', securityProtocol: 1 },
    ],
    rack,
  };
}

export type UmPartition = Partial<UpdateMetadataRequestUpdateMetadataPartitionState> & {
  partitionIndex: number;
  leader: number;
};

export function updateMetadata(
  c: Control,
  brokers: UpdateMetadataRequestUpdateMetadataBroker[],
  topics: { name: string; id: string; partitions: UmPartition[] }[],
): UpdateMetadataRequest {
  const controllerEpoch = c.controllerEpoch ?? 1;
  return {
    controllerId: c.controllerId ?? 1,
    isKRaftController: false,
    type: 0,
    controllerEpoch,
    brokerEpoch: c.brokerEpoch ?? -1n,
    ungroupedPartitionStates: [],
    topicStates: topics.map((t) => ({
      topicName: t.name,
      topicId: t.id,
      partitionStates: t.partitions.map((p) => ({
        topicName: '',
        controllerEpoch,
        leaderEpoch: 0,
        isr: [p.leader],
        zkVersion: 0,
        replicas: [p.leader],
        offlineReplicas: [],
        ...p,
      })),
    })),
    liveBrokers: brokers,
  };
}
