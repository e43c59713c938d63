// Topics and partitions appearing in the store (Kafka's TopicChange and PartitionModifications
// events). Any broker's command façade writes assignments; the controller diffs them against what
// it knows and brings the new partitions online. Changes to the replicas of existing partitions
// are not taken from here (Kafka reassigns through its own path), only added partitions.

import type { ActiveTerm } from './active-term.js';
import { onNewPartitions } from './partition-elections.js';

/** `/brokers/topics` children changed. */
export async function processTopicChange(term: ActiveTerm): Promise<void> {
  const ctx = term.ctx;
  const names = await term.read((s) => s.topicNames());
  const present = new Set(names);
  for (const known of [...ctx.topics.keys()]) {
    if (present.has(known)) continue;
    term.log('info', 'topic removed from the store', { topic: known });
    ctx.removeTopic(known);
  }
  const added = names.filter((n) => !ctx.topics.has(n));
  if (added.length === 0) return;
  const assignments = await term.read((s) => s.assignments(added));
  for (const a of assignments) {
    ctx.topics.set(a.name, a);
    // A state may exist already: written by a controller that died before announcing it.
    const states = await term.read((s) => s.partitionStates(a.name));
    if (states.size > 0) ctx.states.set(a.name, states);
  }
  term.log('info', 'new topics', { topics: assignments.map((a) => a.name) });
  const batch = term.batch();
  await onNewPartitions(
    term,
    batch,
    assignments.flatMap((a) => ctx.partitionsOf(a.name)),
  );
  batch.send();
}

/** `/brokers/topics/<t>` data changed: partitions may have been added. */
export async function processPartitionModifications(term: ActiveTerm, topic: string): Promise<void> {
  const ctx = term.ctx;
  const known = ctx.topics.get(topic);
  if (known === undefined) return; // a new topic: the topics event handles it
  const [stored] = await term.read((s) => s.assignments([topic]));
  if (stored === undefined || stored.partitions.length <= known.partitions.length) return;
  if (ctx.isQueuedForDeletion(topic)) {
    // Kafka puts the assignment back: no partitions are added to a topic being deleted.
    term.log('warn', 'partitions not added to a topic being deleted', { topic });
    await term.read((s) => s.setAssignment(known, term.lease));
    return;
  }
  const first = known.partitions.length;
  ctx.topics.set(topic, { ...known, partitions: [...known.partitions, ...stored.partitions.slice(first)] });
  const added = ctx.partitionsOf(topic).slice(first);
  term.log('info', 'partitions added', { topic, partitions: added.map((tp) => tp.partition) });
  const batch = term.batch();
  await onNewPartitions(term, batch, added);
  batch.send();
}
