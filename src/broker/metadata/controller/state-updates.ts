// Conditional partition-state writes, Kafka's way (PartitionStateMachine.electLeaderForPartitions,
// ReplicaStateMachine.removeReplicasFromIsr): compute each new state from the last known one, write
// it on that version, and for the partitions that lost (BAD_VERSION) re-read and compute again.
// A CONNECTION_LOSS leaves the outcome unknown — the write may have been applied — so the states
// are re-read before anything is recomputed; a write found applied is then simply not needed any
// more. NOT_CONTROLLER deposes the term.

import type { LeaderAndIsr, PartitionState, PartitionStateWrite, TopicPartition } from '../store/records.js';
import type { ActiveTerm } from './active-term.js';
import { isStoreError } from './controller-errors.js';

/** New state for a partition given its current one (undefined = none yet); null = leave it. */
export type StateTransition = (
  tp: TopicPartition,
  current: PartitionState | undefined,
) => LeaderAndIsr | null | Promise<LeaderAndIsr | null>;

export interface StateUpdateResult {
  /** Partitions whose state differs from before the call (ours, or a lost reply's). */
  readonly changed: TopicPartition[];
  /** Of those, the partitions that had no state before (new partitions). */
  readonly created: TopicPartition[];
}

const MAX_ROUNDS = 10;

export async function updatePartitionStates(
  term: ActiveTerm,
  partitions: readonly TopicPartition[],
  transition: StateTransition,
): Promise<StateUpdateResult> {
  const ctx = term.ctx;
  const before = partitions.map((tp) => ctx.state(tp.topic, tp.partition)?.version);
  let remaining = partitions;
  for (let round = 0, losses = 0; remaining.length > 0; round++) {
    if (round >= MAX_ROUNDS) {
      term.log('error', 'gave up partition state updates after repeated version conflicts', {
        partitions: remaining.map((tp) => `${tp.topic}-${tp.partition}`).slice(0, 20),
      });
      break;
    }
    term.check();
    const writes: PartitionStateWrite[] = [];
    for (const tp of remaining) {
      if (!ctx.hasPartition(tp.topic, tp.partition)) continue;
      const current = ctx.state(tp.topic, tp.partition);
      const next = await transition(tp, current);
      if (next === null) continue;
      writes.push({ ...tp, state: next, expectedVersion: current?.version ?? -1 });
    }
    if (writes.length === 0) break;
    let results: Awaited<ReturnType<typeof term.deps.store.writePartitionStates>>;
    try {
      results = await term.deps.store.writePartitionStates(term.lease, writes);
      losses = 0;
    } catch (e) {
      if (isStoreError(e, 'NOT_CONTROLLER')) throw term.fenced(e.message);
      if (!isStoreError(e, 'CONNECTION_LOSS')) throw e;
      await term.deps.gate.afterConnectionLoss(losses++);
      await term.refreshStates(writes.map((w) => w.topic));
      remaining = writes.map(({ topic, partition }) => ({ topic, partition }));
      round--; // a lost connection is not a version conflict
      continue;
    }
    const retry: TopicPartition[] = [];
    results.forEach((r, i) => {
      const w = writes[i]!;
      if (r.ok) ctx.setState(r.topic, r.partition, { ...w.state, version: r.version });
      else if (r.reason === 'NO_NODE')
        term.log('info', 'partition state not written: topic gone', { topic: r.topic });
      else retry.push({ topic: r.topic, partition: r.partition });
    });
    if (retry.length > 0) await term.refreshStates(retry.map((tp) => tp.topic));
    remaining = retry;
  }
  const changed: TopicPartition[] = [];
  const created: TopicPartition[] = [];
  partitions.forEach((tp, i) => {
    const now = ctx.state(tp.topic, tp.partition)?.version;
    if (now === before[i]) return;
    changed.push(tp);
    if (before[i] === undefined) created.push(tp);
  });
  return { changed, created };
}
