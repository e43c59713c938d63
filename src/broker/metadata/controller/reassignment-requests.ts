// The controller's side of AlterPartitionReassignments and ListPartitionReassignments (KIP-455),
// with Kafka's ZooKeeper-mode validation order and error codes: the replica list is checked first
// (INVALID_REPLICA_ASSIGNMENT: empty, duplicates, negative ids, new replicas not live), then the
// partition (UNKNOWN_TOPIC_OR_PARTITION, also for a topic being deleted); a cancellation (null
// replicas) of a partition that is not moving is NO_REASSIGNMENT_IN_PROGRESS. A new reassignment
// of a moving partition replaces the old one, starting from the original replicas.

import { ErrorCode } from '../../../protocol/errors.js';
import type { TopicPartition } from '../store/records.js';
import type { ActiveTerm } from './active-term.js';
import {
  onPartitionReassignments,
  type PartitionReassignment,
  reassigningPartitions,
} from './partition-reassignment.js';
import {
  invalidTarget,
  isBeingReassigned,
  originReplicas,
  type PartitionAssignment,
  partitionAssignment,
  reassignTo,
} from './replica-assignment.js';

export interface ReassignmentRequest extends TopicPartition {
  /** The target replicas; null cancels the partition's reassignment. */
  readonly replicas: readonly number[] | null;
}

export interface ReassignmentResult extends TopicPartition {
  readonly errorCode: number;
  readonly errorMessage: string | null;
}

export interface OngoingReassignment extends TopicPartition, PartitionAssignment {}

const EMPTY: PartitionAssignment = { replicas: [], adding: [], removing: [] };

export async function alterPartitionReassignments(
  term: ActiveTerm,
  requests: readonly ReassignmentRequest[],
): Promise<ReassignmentResult[]> {
  const ctx = term.ctx;
  const results: ReassignmentResult[] = [];
  const accepted = new Map<string, PartitionReassignment>();
  for (const r of requests) {
    const known = ctx.hasPartition(r.topic, r.partition) && !ctx.isQueuedForDeletion(r.topic);
    const current = known ? partitionAssignment(ctx.topics.get(r.topic)!, r.partition) : EMPTY;
    const answer = (errorCode: number, errorMessage: string | null) =>
      results.push({ topic: r.topic, partition: r.partition, errorCode, errorMessage });
    const invalid = r.replicas === null ? null : invalidTarget(current, r.replicas, ctx.isOnline);
    if (invalid !== null) {
      answer(ErrorCode.INVALID_REPLICA_ASSIGNMENT, invalid);
      continue;
    }
    if (!known) {
      answer(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, 'The partition does not exist.');
      continue;
    }
    if (r.replicas === null && !isBeingReassigned(current)) {
      answer(ErrorCode.NO_REASSIGNMENT_IN_PROGRESS, null);
      continue;
    }
    const target = r.replicas ?? originReplicas(current);
    accepted.set(`${r.topic}\u0000${r.partition}`, {
      topic: r.topic,
      partition: r.partition,
      assignment: reassignTo(current, target),
    });
    answer(ErrorCode.NONE, null);
  }
  if (accepted.size > 0) {
    const batch = term.batch();
    await onPartitionReassignments(term, batch, [...accepted.values()]);
    batch.send();
  }
  return results;
}

/** Partitions being reassigned (of those named; all when null), with RS, AR and RR. */
export function listPartitionReassignments(
  term: ActiveTerm,
  partitions: readonly TopicPartition[] | null,
): OngoingReassignment[] {
  const ctx = term.ctx;
  const wanted = partitions ?? reassigningPartitions(term);
  const out: OngoingReassignment[] = [];
  for (const tp of wanted) {
    if (!ctx.hasPartition(tp.topic, tp.partition)) continue;
    const a = partitionAssignment(ctx.topics.get(tp.topic)!, tp.partition);
    if (isBeingReassigned(a)) out.push({ topic: tp.topic, partition: tp.partition, ...a });
  }
  return out;
}
