// Topic deletion (Kafka's TopicDeletionManager). A queued topic is first announced as deleted to
// every live broker (UpdateMetadata leader -2: caches drop it), then every replica gets StopReplica
// with deletePartition. The topic leaves the store only when every replica confirmed; a replica on
// a broker that is down makes the topic wait until that broker is back (as Kafka, which never
// leaves a stray log behind on a broker that missed the deletion). A failed replica is retried
// when its broker re-registers, or at the next controller election.

import type { StopReplicaResponse } from '../../../protocol/messages/generated/stop-replica.js';
import type { TopicPartition } from '../store/records.js';
import type { ActiveTerm } from './active-term.js';
import type { ReplicaDeletionState } from './controller-context.js';
import type { RequestBatch, StopReplicaOutcome } from './request-batch.js';
import { processTopicChange } from './topic-changes.js';

/** `/admin/delete_topics` changed: queue the requested topics and drive their deletion. */
export async function processTopicDeletion(term: ActiveTerm): Promise<void> {
  const requested = await term.read((s) => s.pendingTopicDeletions());
  // A request may name a topic whose creation this controller has not processed yet.
  if (requested.some((t) => !term.ctx.topics.has(t))) await processTopicChange(term);
  const batch = term.batch();
  await enqueueDeletions(term, batch, requested);
  batch.send();
}

export async function enqueueDeletions(
  term: ActiveTerm,
  batch: RequestBatch,
  requested: readonly string[],
): Promise<void> {
  const ctx = term.ctx;
  if (!term.deps.deleteTopicEnable) {
    if (requested.length > 0)
      term.log('warn', 'topic deletion is disabled; requests left pending', { topics: requested });
    return;
  }
  for (const topic of requested) {
    if (ctx.isQueuedForDeletion(topic)) continue;
    if (!ctx.topics.has(topic)) {
      term.log('info', 'dropping the deletion request of a topic that does not exist', { topic });
      await term.read((s) => s.completeTopicDeletion(term.lease, topic));
      continue;
    }
    term.log('info', 'topic deletion queued', { topic });
    ctx.deletion.queued.add(topic);
  }
  await resumeDeletions(term, batch);
}

/** A broker went away: its pending replica deletions fail, their topics wait for it. */
export function failDeletionsOn(term: ActiveTerm, brokers: ReadonlySet<number>): void {
  const d = term.ctx.deletion;
  for (const topic of d.queued) {
    for (const [key, state] of replicaStates(term, topic)) {
      const broker = Number(key.slice(key.indexOf(':') + 1));
      if (brokers.has(broker) && state !== 'done') {
        d.replicas.get(topic)!.set(key, 'failed');
        d.ineligible.add(topic);
      }
    }
  }
}

/** Brokers (re)joined: topics with replicas on them may continue. */
export async function resumeDeletionsOn(
  term: ActiveTerm,
  batch: RequestBatch,
  brokers: ReadonlySet<number>,
): Promise<void> {
  const ctx = term.ctx;
  let any = false;
  for (const topic of ctx.deletion.queued) {
    const onThem = ctx
      .partitionsOf(topic)
      .some((tp) => ctx.replicas(tp.topic, tp.partition).some((r) => brokers.has(r)));
    if (onThem) {
      ctx.deletion.ineligible.delete(topic);
      any = true;
    }
  }
  if (any) await resumeDeletions(term, batch);
}

/** A StopReplica for deletion was answered (or lost): record each replica, finish what is done. */
export async function onStopReplicaOutcome(term: ActiveTerm, outcome: StopReplicaOutcome): Promise<void> {
  const d = term.ctx.deletion;
  const errors = partitionErrors(outcome.response);
  for (const tp of outcome.deleted) {
    const states = d.replicas.get(tp.topic);
    if (!d.queued.has(tp.topic) || states === undefined) continue;
    const key = `${tp.partition}:${outcome.brokerId}`;
    const code =
      outcome.response === null
        ? -1
        : outcome.response.errorCode || (errors.get(`${tp.topic}:${tp.partition}`) ?? 0);
    if (code === 0) states.set(key, 'done');
    else {
      states.set(key, 'failed');
      d.ineligible.add(tp.topic);
      term.log('warn', 'replica deletion failed; the topic waits for a retry', {
        topic: tp.topic,
        partition: tp.partition,
        broker: outcome.brokerId,
        errorCode: code,
      });
    }
  }
  const batch = term.batch();
  await resumeDeletions(term, batch);
  batch.send();
}

/** Completes finished deletions, (re)starts the others unless they wait for a broker. */
export async function resumeDeletions(term: ActiveTerm, batch: RequestBatch): Promise<void> {
  const d = term.ctx.deletion;
  for (const topic of [...d.queued]) {
    const states = replicaStates(term, topic);
    const replicas = replicasOf(term, topic);
    if (replicas.every((r) => states.get(r.key) === 'done')) {
      await completeDeletion(term, batch, topic);
      continue;
    }
    if (d.ineligible.has(topic) || [...states.values()].includes('started')) continue;
    startDeletion(term, batch, topic, states, replicas);
  }
}

/** StopReplica(delete) to every live replica not deleted yet; replicas on absent brokers wait. */
function startDeletion(
  term: ActiveTerm,
  batch: RequestBatch,
  topic: string,
  states: Map<string, ReplicaDeletionState>,
  replicas: readonly { key: string; broker: number; tp: TopicPartition }[],
): void {
  const ctx = term.ctx;
  if (!ctx.deletion.announced.has(topic)) {
    ctx.deletion.announced.add(topic);
    // Leader -2 for every partition: brokers stop serving the topic at once.
    batch.updateMetadata(ctx.liveBrokerIds(), ctx.partitionsOf(topic));
  }
  const waiting = new Set<number>();
  for (const { key, broker, tp } of replicas) {
    if (states.get(key) === 'done') continue;
    if (!ctx.isLive(broker)) {
      states.set(key, 'failed');
      waiting.add(broker);
      continue;
    }
    states.set(key, 'started');
    batch.stopReplica([broker], tp, true);
  }
  if (waiting.size > 0) {
    ctx.deletion.ineligible.add(topic);
    term.log('info', 'topic deletion waits for offline replicas', { topic, brokers: [...waiting] });
  } else term.log('info', 'topic deletion started', { topic });
}

async function completeDeletion(term: ActiveTerm, batch: RequestBatch, topic: string): Promise<void> {
  const ctx = term.ctx;
  const assignment = ctx.topics.get(topic);
  const states = new Map(ctx.states.get(topic));
  await term.read((s) => s.completeTopicDeletion(term.lease, topic));
  ctx.removeTopic(topic);
  term.log('info', 'topic deleted', { topic });
  if (assignment !== undefined)
    batch.announceDeleted(topic, assignment.topicId, assignment.partitions, states);
}

function replicaStates(term: ActiveTerm, topic: string): Map<string, ReplicaDeletionState> {
  const d = term.ctx.deletion;
  let m = d.replicas.get(topic);
  if (m === undefined) {
    m = new Map();
    d.replicas.set(topic, m);
  }
  return m;
}

function replicasOf(term: ActiveTerm, topic: string): { key: string; broker: number; tp: TopicPartition }[] {
  const ctx = term.ctx;
  return ctx
    .partitionsOf(topic)
    .flatMap((tp) =>
      ctx
        .replicas(tp.topic, tp.partition)
        .map((broker) => ({ key: `${tp.partition}:${broker}`, broker, tp })),
    );
}

function partitionErrors(response: StopReplicaResponse | null): Map<string, number> {
  const m = new Map<string, number>();
  for (const e of response?.partitionErrors ?? []) m.set(`${e.topicName}:${e.partitionIndex}`, e.errorCode);
  return m;
}
