// The controller-to-broker requests change shape across versions: LeaderAndIsr groups partitions
// by topic from v2 (topic ids from v5), UpdateMetadata from v5, StopReplica lists partitions
// flat (v0), by topic (v1-2) or by topic with per-partition epochs and delete flags (v3+).
// The controller builds the newest form; the channel converts it to the version a broker speaks,
// and the receiving broker reads every form into one list. Responses are completed the same way:
// a LeaderAndIsr response carries both its v0-4 (by name) and v5+ (by topic id) partition lists,
// so callers never care which version travelled.

import type {
  LeaderAndIsrRequest,
  LeaderAndIsrRequestLeaderAndIsrPartitionState,
  LeaderAndIsrResponse,
  LeaderAndIsrResponseLeaderAndIsrTopicError,
} from '../../../protocol/messages/generated/leader-and-isr.js';
import type {
  StopReplicaRequest,
  StopReplicaRequestStopReplicaTopicState,
} from '../../../protocol/messages/generated/stop-replica.js';
import type {
  UpdateMetadataRequest,
  UpdateMetadataRequestUpdateMetadataPartitionState,
} from '../../../protocol/messages/generated/update-metadata.js';
import type { LeaderAndIsrInput, PartitionError, StopReplicaInput } from '../../replica/transitions.js';
import { ZERO_UUID } from '../uuid.js';

const LEADER_AND_ISR_GROUPED_FROM = 2;
const UPDATE_METADATA_GROUPED_FROM = 5;
const STOP_REPLICA_BY_TOPIC_FROM = 1;
const STOP_REPLICA_STATES_FROM = 3;

// -- LeaderAndIsr ---------------------------------------------------------------------------

/** Every partition state of the request with its topic and topic id, whatever the form. */
export function leaderAndIsrInputs(req: LeaderAndIsrRequest): LeaderAndIsrInput[] {
  const out: LeaderAndIsrInput[] = [];
  const input = (
    topic: string,
    topicId: string | null,
    s: LeaderAndIsrRequestLeaderAndIsrPartitionState,
  ): LeaderAndIsrInput => ({
    topic,
    topicId: topicId === ZERO_UUID ? null : topicId,
    partition: s.partitionIndex,
    controllerEpoch: s.controllerEpoch,
    leader: s.leader,
    leaderEpoch: s.leaderEpoch,
    isr: s.isr,
    partitionEpoch: s.partitionEpoch,
    replicas: s.replicas,
    addingReplicas: s.addingReplicas,
    removingReplicas: s.removingReplicas,
    isNew: s.isNew,
    leaderRecoveryState: s.leaderRecoveryState,
  });
  for (const s of req.ungroupedPartitionStates) out.push(input(s.topicName, null, s));
  for (const t of req.topicStates)
    for (const s of t.partitionStates) out.push(input(t.topicName, t.topicId, s));
  return out;
}

/** The request in the form of `version` (grouped by topic from v2). */
export function leaderAndIsrForVersion(req: LeaderAndIsrRequest, version: number): LeaderAndIsrRequest {
  return regroup(req, version >= LEADER_AND_ISR_GROUPED_FROM);
}

/** Topic name → id of the request (ids only where it has them). */
export function leaderAndIsrTopicIds(req: LeaderAndIsrRequest): Map<string, string> {
  const ids = new Map<string, string>();
  for (const t of req.topicStates) ids.set(t.topicName, t.topicId);
  return ids;
}

/** A response with both partition lists (v0-4 by name, v5+ by topic id). */
export function leaderAndIsrResponse(
  errorCode: number,
  errors: readonly PartitionError[],
  topicIds: ReadonlyMap<string, string>,
): LeaderAndIsrResponse {
  const topics = new Map<string, LeaderAndIsrResponseLeaderAndIsrTopicError>();
  const partitionErrors = errors.map((e) => ({
    topicName: e.topic,
    partitionIndex: e.partition,
    errorCode: e.errorCode,
  }));
  for (const e of partitionErrors) {
    const topicId = topicIds.get(e.topicName) ?? ZERO_UUID;
    let t = topics.get(e.topicName);
    if (t === undefined) {
      t = { topicId, partitionErrors: [] };
      topics.set(e.topicName, t);
    }
    t.partitionErrors.push(e);
  }
  return { errorCode, partitionErrors, topics: [...topics.values()] };
}

/** Every partition of the request (once each) failed with `errorCode`, which is also the top-level code. */
export function leaderAndIsrErrorResponse(req: LeaderAndIsrRequest, errorCode: number): LeaderAndIsrResponse {
  const errors = new Map<string, PartitionError>();
  for (const i of leaderAndIsrInputs(req)) {
    const key = `${i.topic}\u0000${i.partition}`;
    if (!errors.has(key)) errors.set(key, { topic: i.topic, partition: i.partition, errorCode });
  }
  return leaderAndIsrResponse(errorCode, [...errors.values()], leaderAndIsrTopicIds(req));
}

/** Fills whichever partition list the response version lacked, from the request's topics. */
export function completeLeaderAndIsrResponse(
  res: LeaderAndIsrResponse,
  req: LeaderAndIsrRequest,
): LeaderAndIsrResponse {
  const ids = leaderAndIsrTopicIds(req);
  if (res.topics.length > 0 && res.partitionErrors.length === 0) {
    const names = new Map([...ids].map(([name, id]) => [id, name]));
    const partitionErrors = res.topics.flatMap((t) =>
      t.partitionErrors.map((p) => ({ ...p, topicName: p.topicName || (names.get(t.topicId) ?? '') })),
    );
    return leaderAndIsrResponse(
      res.errorCode,
      partitionErrors.map((p) => ({
        topic: p.topicName,
        partition: p.partitionIndex,
        errorCode: p.errorCode,
      })),
      ids,
    );
  }
  return leaderAndIsrResponse(
    res.errorCode,
    res.partitionErrors.map((p) => ({
      topic: p.topicName,
      partition: p.partitionIndex,
      errorCode: p.errorCode,
    })),
    ids,
  );
}

// -- UpdateMetadata -------------------------------------------------------------------------

export interface UpdateMetadataPartition {
  readonly topic: string;
  /** Null when the request carries none (UpdateMetadata < v7, or the zero uuid). */
  readonly topicId: string | null;
  readonly state: UpdateMetadataRequestUpdateMetadataPartitionState;
}

export function updateMetadataPartitions(req: UpdateMetadataRequest): UpdateMetadataPartition[] {
  const out: UpdateMetadataPartition[] = [];
  for (const s of req.ungroupedPartitionStates) out.push({ topic: s.topicName, topicId: null, state: s });
  for (const t of req.topicStates) {
    const topicId = t.topicId === ZERO_UUID ? null : t.topicId;
    for (const s of t.partitionStates) out.push({ topic: t.topicName, topicId, state: s });
  }
  return out;
}

/** The request in the form of `version` (grouped by topic from v5). */
export function updateMetadataForVersion(req: UpdateMetadataRequest, version: number): UpdateMetadataRequest {
  return regroup(req, version >= UPDATE_METADATA_GROUPED_FROM);
}

/**
 * LeaderAndIsr and UpdateMetadata carry their partition states either flat, each naming its
 * topic (old versions), or grouped by topic (newer ones): moves them to the form asked for.
 */
function regroup<
  S extends { topicName: string },
  R extends {
    ungroupedPartitionStates: S[];
    topicStates: { topicName: string; topicId: string; partitionStates: S[] }[];
  },
>(req: R, grouped: boolean): R {
  if (grouped) {
    if (req.ungroupedPartitionStates.length === 0) return req;
    const byTopic = new Map<string, R['topicStates'][number]>();
    for (const t of req.topicStates)
      byTopic.set(t.topicName, { ...t, partitionStates: [...t.partitionStates] });
    for (const s of req.ungroupedPartitionStates) {
      let t = byTopic.get(s.topicName);
      if (t === undefined) {
        t = { topicName: s.topicName, topicId: ZERO_UUID, partitionStates: [] };
        byTopic.set(s.topicName, t);
      }
      t.partitionStates.push(s);
    }
    return { ...req, ungroupedPartitionStates: [], topicStates: [...byTopic.values()] };
  }
  if (req.topicStates.length === 0) return req;
  const flat = [...req.ungroupedPartitionStates];
  for (const t of req.topicStates)
    for (const s of t.partitionStates) flat.push({ ...s, topicName: t.topicName });
  return { ...req, ungroupedPartitionStates: flat, topicStates: [] };
}

// -- StopReplica ----------------------------------------------------------------------------

export function stopReplicaInputs(req: StopReplicaRequest): StopReplicaInput[] {
  const out: StopReplicaInput[] = [];
  const del = req.deletePartitions;
  for (const p of req.ungroupedPartitions)
    out.push({ topic: p.topicName, partition: p.partitionIndex, leaderEpoch: -1, deletePartition: del });
  for (const t of req.topics)
    for (const i of t.partitionIndexes)
      out.push({ topic: t.name, partition: i, leaderEpoch: -1, deletePartition: del });
  for (const t of req.topicStates)
    for (const s of t.partitionStates)
      out.push({
        topic: t.topicName,
        partition: s.partitionIndex,
        leaderEpoch: s.leaderEpoch,
        deletePartition: s.deletePartition,
      });
  return out;
}

/**
 * The request in the form of `version`. Below v3 one request has one delete flag: the
 * top-level `deletePartitions` is kept (the controller sends deletions apart, as Kafka's does
 * for old brokers); per-partition epochs are dropped.
 */
export function stopReplicaForVersion(req: StopReplicaRequest, version: number): StopReplicaRequest {
  const inputs = stopReplicaInputs(req);
  if (version >= STOP_REPLICA_STATES_FROM) {
    if (req.ungroupedPartitions.length === 0 && req.topics.length === 0) return req;
    const byTopic = new Map<string, StopReplicaRequestStopReplicaTopicState>();
    for (const s of inputs) {
      let t = byTopic.get(s.topic);
      if (t === undefined) {
        t = { topicName: s.topic, partitionStates: [] };
        byTopic.set(s.topic, t);
      }
      t.partitionStates.push({
        partitionIndex: s.partition,
        leaderEpoch: s.leaderEpoch,
        deletePartition: s.deletePartition,
      });
    }
    return { ...req, ungroupedPartitions: [], topics: [], topicStates: [...byTopic.values()] };
  }
  const deletePartitions =
    req.topicStates.length > 0 ? inputs.some((s) => s.deletePartition) : req.deletePartitions;
  if (version >= STOP_REPLICA_BY_TOPIC_FROM) {
    const byTopic = new Map<string, number[]>();
    for (const s of inputs) {
      const list = byTopic.get(s.topic) ?? [];
      list.push(s.partition);
      byTopic.set(s.topic, list);
    }
    return {
      ...req,
      deletePartitions,
      ungroupedPartitions: [],
      topics: [...byTopic].map(([name, partitionIndexes]) => ({ name, partitionIndexes })),
      topicStates: [],
    };
  }
  return {
    ...req,
    deletePartitions,
    ungroupedPartitions: inputs.map((s) => ({ topicName: s.topic, partitionIndex: s.partition })),
    topics: [],
    topicStates: [],
  };
}
