// Becoming the active controller (Kafka's onControllerFailover): rebuild the whole view from the
// store — nothing is trusted from an earlier term — then tell every live broker everything: full
// UpdateMetadata, LeaderAndIsr for all the replicas it hosts; initialise partitions that have no
// state yet, elect leaders where they are gone, drop dead replicas from ISRs, resume the
// reassignments the topic records show in progress (adding/removing replicas), and resume pending
// deletions.

import type { ActiveTerm } from './active-term.js';
import { reconcilePartitions } from './partition-elections.js';
import { resumeReassignments } from './partition-reassignment.js';
import { enqueueDeletions } from './topic-deletion.js';

export async function initializeTerm(term: ActiveTerm): Promise<void> {
  const ctx = term.ctx;
  const brokers = await term.read((s) => s.liveBrokers());
  for (const b of brokers) {
    ctx.liveBrokers.set(b.nodeId, b);
    term.addBroker(b);
  }
  const names = await term.read((s) => s.topicNames());
  for (const a of await term.read((s) => s.assignments(names))) ctx.topics.set(a.name, a);
  await term.refreshStates(names);
  const deletions = await term.read((s) => s.pendingTopicDeletions());
  // Queued before any election so that partitions being deleted are left alone.
  if (term.deps.deleteTopicEnable)
    for (const t of deletions) if (ctx.topics.has(t)) ctx.deletion.queued.add(t);
  term.log('info', 'active controller initialised', {
    brokers: ctx.liveBrokerIds(),
    topics: ctx.topics.size,
    pendingDeletions: deletions.length,
  });

  const batch = term.batch();
  batch.updateMetadataFull(ctx.liveBrokerIds());
  for (const tp of ctx.allPartitions()) {
    if (ctx.isQueuedForDeletion(tp.topic) || ctx.state(tp.topic, tp.partition) === undefined) continue;
    batch.leaderAndIsr(ctx.replicas(tp.topic, tp.partition).filter(ctx.isLive), tp);
  }
  await reconcilePartitions(term, batch, ctx.allPartitions());
  await resumeReassignments(term, batch);
  await enqueueDeletions(term, batch, deletions);
  batch.send();
}
