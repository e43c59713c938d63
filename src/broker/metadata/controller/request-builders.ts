// Builds the controller's requests in their newest form (LeaderAndIsr v7, UpdateMetadata v8,
// StopReplica v4) from the controller's view; the channel converts them for older brokers.
// Header fields are the sender's (controller id and epoch) and the target's broker epoch.

import type {
  LeaderAndIsrRequest,
  LeaderAndIsrRequestLeaderAndIsrPartitionState,
} from '../../../protocol/messages/generated/leader-and-isr.js';
import type { StopReplicaRequest } from '../../../protocol/messages/generated/stop-replica.js';
import type {
  UpdateMetadataRequest,
  UpdateMetadataRequestUpdateMetadataBroker,
  UpdateMetadataRequestUpdateMetadataPartitionState,
} from '../../../protocol/messages/generated/update-metadata.js';
import type { BrokerInfo, PartitionState, TopicPartition } from '../store/records.js';
import type { ControllerContext } from './controller-context.js';
import { EPOCH_DURING_DELETE, LEADER_DURING_DELETE } from './leader-election.js';

/** Kafka's SecurityProtocol ids (UpdateMetadata endpoints). */
const SECURITY_PROTOCOL_IDS: Readonly<Record<string, number>> = {
  PLAINTEXT: 0,
  SSL: 1,
  SASL_PLAINTEXT: 2,
  SASL_SSL: 3,
};

/** AbstractControlRequest.Type: UpdateMetadata says whether it carries every partition. */
const TYPE_UNKNOWN = 0;
const TYPE_FULL = 2;

export interface Sender {
  readonly controllerId: number;
  readonly controllerEpoch: number;
}

/** An UpdateMetadata partition state with its topic id, grouped by topic when sent. */
export type UmState = UpdateMetadataRequestUpdateMetadataPartitionState & { readonly topicId: string };

/** States to announce; partitions with no state yet are skipped (as Kafka), deletions say -2. */
export function updateMetadataStates(
  ctx: ControllerContext,
  partitions: Iterable<TopicPartition>,
): UmState[] {
  const out: UmState[] = [];
  for (const { topic, partition } of partitions) {
    const st = ctx.state(topic, partition);
    const topicId = ctx.topicIdOf(topic);
    if (st === undefined || topicId === undefined) continue;
    const s = umState(
      topic,
      partition,
      st,
      ctx.replicas(topic, partition),
      ctx.offlineReplicas(topic, partition),
    );
    out.push({ ...s, topicId, leader: ctx.isQueuedForDeletion(topic) ? LEADER_DURING_DELETE : s.leader });
  }
  return out;
}

/** States of a topic already gone from the context, announced as deleted (leader -2). */
export function deletedTopicStates(
  topic: string,
  topicId: string,
  replicas: readonly (readonly number[])[],
  states: ReadonlyMap<number, PartitionState>,
): UmState[] {
  return [...states].map(([p, st]) => ({
    ...umState(topic, p, st, replicas[p] ?? [], []),
    leader: LEADER_DURING_DELETE,
    topicId,
  }));
}

export function liveBrokersForUpdateMetadata(
  ctx: ControllerContext,
): UpdateMetadataRequestUpdateMetadataBroker[] {
  return [...ctx.liveBrokers.values()].sort((a, b) => a.nodeId - b.nodeId).map(umBroker);
}

export function updateMetadataRequest(
  sender: Sender,
  target: BrokerInfo,
  states: readonly UmState[],
  liveBrokers: UpdateMetadataRequestUpdateMetadataBroker[],
  full: boolean,
): UpdateMetadataRequest {
  const byTopic = new Map<string, { topicName: string; topicId: string; partitionStates: UmState[] }>();
  for (const s of states) {
    let t = byTopic.get(s.topicName);
    if (t === undefined) {
      t = { topicName: s.topicName, topicId: s.topicId, partitionStates: [] };
      byTopic.set(s.topicName, t);
    }
    t.partitionStates.push(s);
  }
  return {
    controllerId: sender.controllerId,
    isKRaftController: false,
    type: full ? TYPE_FULL : TYPE_UNKNOWN,
    controllerEpoch: sender.controllerEpoch,
    brokerEpoch: target.epoch,
    ungroupedPartitionStates: [],
    topicStates: [...byTopic.values()].map((t) => ({
      topicName: t.topicName,
      topicId: t.topicId,
      partitionStates: t.partitionStates.map(({ topicId: _id, ...rest }) => rest),
    })),
    liveBrokers,
  };
}

/** LeaderAndIsr for the partitions `entries` names (null if none has a state any more). */
export function leaderAndIsrRequest(
  sender: Sender,
  ctx: ControllerContext,
  target: BrokerInfo,
  entries: Iterable<TopicPartition & { readonly isNew: boolean }>,
  interBrokerListener: string | undefined,
): LeaderAndIsrRequest | null {
  const byTopic = new Map<string, LeaderAndIsrRequestLeaderAndIsrPartitionState[]>();
  const leaders = new Set<number>();
  for (const { topic, partition, isNew } of entries) {
    const st = ctx.state(topic, partition);
    const a = ctx.topics.get(topic);
    if (st === undefined || a === undefined) continue;
    leaders.add(st.leader);
    let list = byTopic.get(topic);
    if (list === undefined) {
      list = [];
      byTopic.set(topic, list);
    }
    list.push({
      topicName: topic,
      partitionIndex: partition,
      controllerEpoch: st.controllerEpoch,
      leader: st.leader,
      leaderEpoch: st.leaderEpoch,
      isr: [...st.isr],
      partitionEpoch: st.version,
      replicas: [...(a.partitions[partition] ?? [])],
      addingReplicas: [...(a.addingReplicas?.[partition] ?? [])],
      removingReplicas: [...(a.removingReplicas?.[partition] ?? [])],
      isNew,
      leaderRecoveryState: st.leaderRecoveryState,
    });
  }
  if (byTopic.size === 0) return null;
  return {
    controllerId: sender.controllerId,
    isKRaftController: false,
    controllerEpoch: sender.controllerEpoch,
    brokerEpoch: target.epoch,
    type: TYPE_UNKNOWN,
    ungroupedPartitionStates: [],
    topicStates: [...byTopic].map(([topicName, partitionStates]) => ({
      topicName,
      topicId: ctx.topicIdOf(topicName)!,
      partitionStates,
    })),
    // Followers fetch from these: the inter-broker endpoint of each live leader.
    liveLeaders: [...leaders]
      .sort((x, y) => x - y)
      .flatMap((id) => {
        const b = ctx.liveBrokers.get(id);
        if (b === undefined) return [];
        const listener = interBrokerListener;
        const e =
          (listener !== undefined ? b.endpoints.find((x) => x.listener === listener) : undefined) ?? b;
        return [{ brokerId: id, hostName: e.host, port: e.port }];
      }),
  };
}

/** StopReplica for `entries`, and which of them it asks to delete. */
export function stopReplicaRequest(
  sender: Sender,
  ctx: ControllerContext,
  target: BrokerInfo,
  entries: Iterable<TopicPartition & { readonly deletePartition: boolean }>,
): { request: StopReplicaRequest; deleted: TopicPartition[] } {
  const byTopic = new Map<
    string,
    { partitionIndex: number; leaderEpoch: number; deletePartition: boolean }[]
  >();
  const deleted: TopicPartition[] = [];
  let count = 0;
  for (const { topic, partition, deletePartition } of entries) {
    let list = byTopic.get(topic);
    if (list === undefined) {
      list = [];
      byTopic.set(topic, list);
    }
    // -2 deletes whatever the broker's epoch; otherwise the current epoch, which a broker
    // compares with its own so that a late StopReplica cannot stop a newer replica.
    const leaderEpoch = ctx.isQueuedForDeletion(topic)
      ? EPOCH_DURING_DELETE
      : (ctx.state(topic, partition)?.leaderEpoch ?? -1);
    list.push({ partitionIndex: partition, leaderEpoch, deletePartition });
    if (deletePartition) deleted.push({ topic, partition });
    count++;
  }
  return {
    request: {
      controllerId: sender.controllerId,
      isKRaftController: false,
      controllerEpoch: sender.controllerEpoch,
      brokerEpoch: target.epoch,
      // Only versions 0-2 carry one flag for the whole request; v3+ say it per partition.
      deletePartitions: deleted.length === count,
      ungroupedPartitions: [],
      topics: [],
      topicStates: [...byTopic].map(([topicName, partitionStates]) => ({ topicName, partitionStates })),
    },
    deleted,
  };
}

function umState(
  topic: string,
  partition: number,
  st: PartitionState,
  replicas: readonly number[],
  offline: readonly number[],
): UpdateMetadataRequestUpdateMetadataPartitionState {
  return {
    topicName: topic,
    partitionIndex: partition,
    controllerEpoch: st.controllerEpoch,
    leader: st.leader,
    leaderEpoch: st.leaderEpoch,
    isr: [...st.isr],
    zkVersion: st.version,
    replicas: [...replicas],
    offlineReplicas: [...offline],
  };
}

function umBroker(b: BrokerInfo): UpdateMetadataRequestUpdateMetadataBroker {
  const endpoints =
    b.endpoints.length > 0
      ? b.endpoints
      : [{ listener: 'PLAINTEXT', securityProtocol: 'PLAINTEXT', host: b.host, port: b.port }];
  return {
    id: b.nodeId,
    v0Host: b.host,
    v0Port: b.port,
    endpoints: endpoints.map((e) => ({
      port: e.port,
      host: e.host,
      listener: e.listener,
      securityProtocol: SECURITY_PROTOCOL_IDS[e.securityProtocol] ?? 0,
    })),
    rack: b.rack,
  };
}
