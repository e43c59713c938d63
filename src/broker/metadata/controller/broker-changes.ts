// Brokers registering and leaving (Kafka's BrokerChange event). A registration with a higher epoch
// than the one known is a restart even if the id stayed: it is handled as a loss followed by a
// join, because the restarted broker lost its in-memory replica state and must catch up again.
//
// Loss: every partition it led gets a new leader from the live ISR (or none: -1), and it leaves
// every ISR. Join: it gets the full metadata and the LeaderAndIsr of all its replicas, and may be
// elected where partitions were offline; topic deletions waiting for it continue, and so do the
// reassignments that involve it (its new replicas get their LeaderAndIsr again).

import type { BrokerInfo } from '../store/records.js';
import type { ActiveTerm } from './active-term.js';
import { offlinePartitions, reconcilePartitions } from './partition-elections.js';
import { resumeReassignments } from './partition-reassignment.js';
import type { RequestBatch } from './request-batch.js';
import { failDeletionsOn, resumeDeletionsOn } from './topic-deletion.js';

export async function processBrokerChange(term: ActiveTerm): Promise<void> {
  const ctx = term.ctx;
  const current = await term.read((s) => s.liveBrokers());
  const byId = new Map(current.map((b) => [b.nodeId, b]));
  const added: number[] = [];
  const bounced: number[] = [];
  const updated: number[] = [];
  const dead: number[] = [];
  for (const b of current) {
    const known = ctx.liveBrokers.get(b.nodeId);
    if (known === undefined) added.push(b.nodeId);
    else if (b.epoch > known.epoch) bounced.push(b.nodeId);
    else if (!sameEndpoints(known, b)) updated.push(b.nodeId);
  }
  for (const id of ctx.liveBrokers.keys()) if (!byId.has(id)) dead.push(id);
  if (added.length + bounced.length + updated.length + dead.length === 0) return;
  term.log('info', 'brokers changed', { added, dead, bounced, live: current.map((b) => b.nodeId) });

  const batch = term.batch();
  const gone = new Set([...dead, ...bounced]);
  for (const id of gone) {
    ctx.liveBrokers.delete(id);
    ctx.shuttingDown.delete(id);
    term.removeBroker(id);
  }
  if (gone.size > 0) await onBrokerFailure(term, batch, gone);

  const joined = new Set([...added, ...bounced]);
  for (const id of [...joined, ...updated]) {
    const info = byId.get(id)!;
    ctx.liveBrokers.set(id, info);
    term.addBroker(info);
  }
  if (joined.size > 0) await onBrokerStartup(term, batch, joined);
  // Every live broker learns the new list of brokers, even when no partition changed.
  batch.updateMetadata(ctx.liveBrokerIds());
  batch.send();
}

async function onBrokerFailure(
  term: ActiveTerm,
  batch: RequestBatch,
  dead: ReadonlySet<number>,
): Promise<void> {
  const ctx = term.ctx;
  failDeletionsOn(term, dead);
  const affected = ctx.partitionsOnBrokers(dead).filter((tp) => !ctx.isQueuedForDeletion(tp.topic));
  await reconcilePartitions(term, batch, affected);
  // Unchanged partitions still have new offline replicas to report.
  batch.updateMetadata(ctx.liveBrokerIds(), affected);
}

async function onBrokerStartup(
  term: ActiveTerm,
  batch: RequestBatch,
  joined: ReadonlySet<number>,
): Promise<void> {
  const ctx = term.ctx;
  batch.updateMetadataFull(joined);
  for (const tp of ctx.partitionsOnBrokers(joined)) {
    if (ctx.isQueuedForDeletion(tp.topic) || ctx.state(tp.topic, tp.partition) === undefined) continue;
    batch.leaderAndIsr(
      ctx.replicas(tp.topic, tp.partition).filter((r) => joined.has(r)),
      tp,
    );
  }
  await reconcilePartitions(term, batch, offlinePartitions(term));
  await resumeReassignments(term, batch, joined);
  await resumeDeletionsOn(term, batch, joined);
}

function sameEndpoints(a: BrokerInfo, b: BrokerInfo): boolean {
  return (
    a.host === b.host &&
    a.port === b.port &&
    a.rack === b.rack &&
    JSON.stringify(a.endpoints) === JSON.stringify(b.endpoints)
  );
}
