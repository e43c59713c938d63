// Partition reassignment as Kafka's ZooKeeper-mode controller runs it since KIP-455
// (onPartitionReassignment). The topic's assignment record is the durable state: while a
// partition moves it holds RS = target ∪ original, AR (adding) and RR (removing), written before
// anything else, so a new controller finds every reassignment in progress and resumes it.
//
//   U  the new full assignment is written (a replaced or cancelled reassignment stops the replicas
//      it no longer needs);
//   A  (target not all in the ISR) the leader epoch is bumped and LeaderAndIsr goes to RS — new
//      replicas start fetching; the leader adds them to the ISR through AlterPartition, which
//      brings the controller back here;
//   B  (target all in the ISR) leadership moves into the target if the leader is leaving, the ISR
//      becomes ISR ∩ target (one conditional write), the record becomes RS = target with no AR/RR,
//      replicas leaving get StopReplica with deletion.
//
// A partition whose target has no live in-sync replica to lead stays in phase B's waiting room: it
// is retried at the next ISR change, broker change or controller election.

import type { PartitionState, TopicPartition } from '../store/records.js';
import type { ActiveTerm } from './active-term.js';
import { tpKey } from './controller-context.js';
import { reassignPartitionLeader } from './leader-election.js';
import {
  completed,
  isBeingReassigned,
  type PartitionAssignment,
  partitionAssignment,
  sameAssignment,
  targetReplicas,
  withPartitionAssignments,
} from './replica-assignment.js';
import type { RequestBatch } from './request-batch.js';
import { updatePartitionStates } from './state-updates.js';

export interface PartitionReassignment extends TopicPartition {
  readonly assignment: PartitionAssignment;
}

/** Runs the reassignment steps for these partitions (each to its new full assignment). */
export async function onPartitionReassignments(
  term: ActiveTerm,
  batch: RequestBatch,
  reassignments: readonly PartitionReassignment[],
): Promise<void> {
  const ctx = term.ctx;
  const todo = reassignments.filter(
    (r) => ctx.hasPartition(r.topic, r.partition) && !ctx.isQueuedForDeletion(r.topic),
  );
  // U: the store first, then memory (a controller failing after the write resumes from it).
  const unneeded = new Map<string, number[]>();
  for (const [topic, items] of groupByTopic(todo)) {
    const current = ctx.topics.get(topic)!;
    const changes = new Map<number, PartitionAssignment>();
    for (const r of items) {
      const before = partitionAssignment(current, r.partition);
      if (sameAssignment(before, r.assignment)) continue;
      changes.set(r.partition, r.assignment);
      const gone = before.replicas.filter((x) => !r.assignment.replicas.includes(x));
      if (gone.length > 0) unneeded.set(tpKey(topic, r.partition), gone);
    }
    if (changes.size === 0) continue;
    const next = withPartitionAssignments(current, changes);
    await term.read((s) => s.setAssignment(next, term.lease));
    ctx.topics.set(topic, next);
    for (const [p, a] of changes)
      term.log('info', 'partition reassignment', {
        topic,
        partition: p,
        replicas: a.replicas,
        adding: a.adding,
        removing: a.removing,
      });
  }

  const complete: TopicPartition[] = [];
  const incomplete: TopicPartition[] = [];
  for (const r of todo) (reassignmentComplete(term, r) ? complete : incomplete).push(r);
  if (incomplete.length > 0) await startNewReplicas(term, batch, incomplete, unneeded);
  if (complete.length > 0) await completeReassignments(term, batch, complete, unneeded);
}

/** Partitions being reassigned whose target replicas are all in the ISR now: phase B. */
export async function maybeCompleteReassignments(
  term: ActiveTerm,
  partitions: readonly TopicPartition[],
): Promise<void> {
  const ctx = term.ctx;
  const ready = partitions.filter((tp) => {
    const a = ctx.topics.get(tp.topic);
    return (
      a !== undefined &&
      ctx.hasPartition(tp.topic, tp.partition) &&
      isBeingReassigned(partitionAssignment(a, tp.partition)) &&
      reassignmentComplete(term, tp)
    );
  });
  if (ready.length === 0) return;
  const batch = term.batch();
  await completeReassignments(term, batch, ready, new Map());
  batch.send();
}

/** Every reassignment in progress (only those with a replica on `brokers`, when given) runs again. */
export async function resumeReassignments(
  term: ActiveTerm,
  batch: RequestBatch,
  brokers?: ReadonlySet<number>,
): Promise<void> {
  const ctx = term.ctx;
  const resumed: PartitionReassignment[] = [];
  for (const tp of reassigningPartitions(term)) {
    const assignment = partitionAssignment(ctx.topics.get(tp.topic)!, tp.partition);
    if (brokers !== undefined && !assignment.replicas.some((r) => brokers.has(r))) continue;
    resumed.push({ ...tp, assignment });
  }
  if (resumed.length === 0) return;
  term.log('info', 'resuming partition reassignments', { count: resumed.length });
  await onPartitionReassignments(term, batch, resumed);
}

export function reassigningPartitions(term: ActiveTerm): TopicPartition[] {
  const ctx = term.ctx;
  return ctx.allPartitions().filter((tp) => {
    const a = ctx.topics.get(tp.topic)!;
    return (
      (a.addingReplicas !== undefined || a.removingReplicas !== undefined) &&
      !ctx.isQueuedForDeletion(tp.topic) &&
      isBeingReassigned(partitionAssignment(a, tp.partition))
    );
  });
}

/** Kafka's isReassignmentComplete: nothing in flight, or every target replica in the ISR. */
function reassignmentComplete(term: ActiveTerm, tp: TopicPartition): boolean {
  const a = partitionAssignment(term.ctx.topics.get(tp.topic)!, tp.partition);
  if (!isBeingReassigned(a)) return true;
  const isr = term.ctx.state(tp.topic, tp.partition)?.isr;
  return isr !== undefined && targetReplicas(a).every((r) => isr.includes(r));
}

/** Phase A: a new leader epoch, LeaderAndIsr to the whole replica set (new replicas as new). */
async function startNewReplicas(
  term: ActiveTerm,
  batch: RequestBatch,
  partitions: readonly TopicPartition[],
  unneeded: ReadonlyMap<string, readonly number[]>,
): Promise<void> {
  const ctx = term.ctx;
  await updatePartitionStates(term, partitions, (tp, current) => {
    if (current === undefined) return null;
    const a = partitionAssignment(ctx.topics.get(tp.topic)!, tp.partition);
    const gone = unneeded.get(tpKey(tp.topic, tp.partition)) ?? [];
    return withoutReplicas(current, a.replicas, gone, term.epoch);
  });
  for (const tp of partitions) {
    const a = partitionAssignment(ctx.topics.get(tp.topic)!, tp.partition);
    const origin = a.replicas.filter((r) => !a.adding.includes(r));
    batch.leaderAndIsr(origin.filter(ctx.isLive), tp);
    batch.leaderAndIsr(a.adding.filter(ctx.isLive), tp, true);
    stopReplicas(term, batch, tp, unneeded.get(tpKey(tp.topic, tp.partition)) ?? []);
  }
}

/** Phase B: leadership into the target, ISR ∩ target, RS = target, the leaving replicas deleted. */
async function completeReassignments(
  term: ActiveTerm,
  batch: RequestBatch,
  partitions: readonly TopicPartition[],
  unneeded: ReadonlyMap<string, readonly number[]>,
): Promise<void> {
  const ctx = term.ctx;
  const stuck = new Set<string>();
  await updatePartitionStates(term, partitions, (tp, current) => {
    if (current === undefined) return null;
    const target = targetReplicas(partitionAssignment(ctx.topics.get(tp.topic)!, tp.partition));
    const keep = target.includes(current.leader) && ctx.isOnline(current.leader);
    const leader = keep ? current.leader : reassignPartitionLeader(target, current.isr, ctx.isOnline);
    if (leader === null) {
      stuck.add(tpKey(tp.topic, tp.partition));
      return null;
    }
    stuck.delete(tpKey(tp.topic, tp.partition));
    return {
      ...current,
      leader,
      leaderEpoch: current.leaderEpoch + 1,
      isr: current.isr.filter((r) => target.includes(r)),
      controllerEpoch: term.epoch,
    };
  });
  const done = partitions.filter((tp) => !stuck.has(tpKey(tp.topic, tp.partition)));
  if (stuck.size > 0)
    term.log('warn', 'reassignment waits: no live in-sync target replica can lead', {
      partitions: [...stuck].map((k) => k.replace('\u0000', '-')).slice(0, 20),
    });
  for (const [topic, items] of groupByTopic(done)) {
    const current = ctx.topics.get(topic)!;
    const leaving = new Map<number, number[]>();
    const changes = new Map<number, PartitionAssignment>();
    for (const tp of items) {
      const a = partitionAssignment(current, tp.partition);
      changes.set(tp.partition, completed(a));
      leaving.set(tp.partition, [...a.removing, ...(unneeded.get(tpKey(topic, tp.partition)) ?? [])]);
    }
    const next = withPartitionAssignments(current, changes);
    if (!sameTopicAssignment(current, next)) {
      await term.read((s) => s.setAssignment(next, term.lease));
      ctx.topics.set(topic, next);
    }
    for (const tp of items) {
      batch.leaderAndIsr(ctx.replicas(topic, tp.partition).filter(ctx.isLive), tp);
      stopReplicas(term, batch, tp, leaving.get(tp.partition) ?? []);
      term.log('info', 'partition reassignment completed', {
        topic,
        partition: tp.partition,
        replicas: ctx.replicas(topic, tp.partition),
        leader: ctx.state(topic, tp.partition)?.leader ?? -1,
      });
    }
  }
}

/** A new epoch for the partition, with `gone` out of the ISR (and a new leader if it led). */
function withoutReplicas(
  current: PartitionState,
  replicas: readonly number[],
  gone: readonly number[],
  controllerEpoch: number,
) {
  let isr = current.isr.filter((r) => !gone.includes(r));
  if (isr.length === 0) isr = [...current.isr]; // the last in-sync copy stays until others catch up
  let leader = current.leader;
  if (gone.includes(leader)) leader = replicas.find((r) => isr.includes(r) && !gone.includes(r)) ?? -1;
  return { ...current, leader, isr, leaderEpoch: current.leaderEpoch + 1, controllerEpoch };
}

function stopReplicas(
  term: ActiveTerm,
  batch: RequestBatch,
  tp: TopicPartition,
  replicas: readonly number[],
) {
  const live = [...new Set(replicas)].filter(term.ctx.isLive);
  if (live.length > 0) batch.stopReplica(live, tp, true);
}

function groupByTopic<T extends TopicPartition>(items: readonly T[]): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const it of items) {
    const l = m.get(it.topic);
    if (l === undefined) m.set(it.topic, [it]);
    else l.push(it);
  }
  return m;
}

function sameTopicAssignment(
  a: Parameters<typeof partitionAssignment>[0],
  b: Parameters<typeof partitionAssignment>[0],
): boolean {
  return (
    a.partitions.length === b.partitions.length &&
    a.partitions.every((_r, p) => sameAssignment(partitionAssignment(a, p), partitionAssignment(b, p)))
  );
}
