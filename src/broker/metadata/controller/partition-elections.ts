// Bringing partitions online (Kafka's PartitionStateMachine.triggerOnlinePartitionStateChange plus
// the OfflineReplica ISR removal): new partitions get their first state, partitions whose leader
// is gone get the offline election, replicas of dead brokers leave ISRs — one conditional write per
// partition — and the replicas of every changed partition hear about it (LeaderAndIsr, and every
// live broker through UpdateMetadata). Topics queued for deletion are left alone.

import type { ConfigEntity, TopicPartition } from '../store/records.js';
import type { ActiveTerm } from './active-term.js';
import { tpKey } from './controller-context.js';
import { initialLeaderAndIsr, isUncleanElection, reconcilePartition } from './leader-election.js';
import type { RequestBatch } from './request-batch.js';
import { type StateUpdateResult, updatePartitionStates } from './state-updates.js';

export interface ReconcileOptions {
  /** ElectLeaders(UNCLEAN): unclean election allowed whatever the topic says. */
  readonly allowUnclean?: boolean;
}

/** Writes what the live brokers allow for these partitions and queues the requests announcing it. */
export async function reconcilePartitions(
  term: ActiveTerm,
  batch: RequestBatch,
  partitions: readonly TopicPartition[],
  options: ReconcileOptions = {},
): Promise<StateUpdateResult> {
  const ctx = term.ctx;
  const todo = partitions.filter((tp) => !ctx.isQueuedForDeletion(tp.topic));
  const unclean = new Map<string, Promise<boolean>>();
  const stillNew = new Set<string>();
  const result = await updatePartitionStates(term, todo, async (tp, current) => {
    const replicas = ctx.replicas(tp.topic, tp.partition);
    if (current === undefined) {
      const first = initialLeaderAndIsr(replicas, ctx.isOnline, term.epoch);
      if (first === null) stillNew.add(`${tp.topic}-${tp.partition}`);
      return first;
    }
    const leaderGone = current.leader < 0 || !ctx.isLive(current.leader);
    let allowUnclean = false;
    if (leaderGone && !current.isr.some(ctx.isOnline) && replicas.some(ctx.isOnline))
      allowUnclean = options.allowUnclean === true || (await term.uncleanEnabled(tp.topic, unclean));
    const next = reconcilePartition(current, replicas, ctx.isLive, ctx.isOnline, allowUnclean, term.epoch);
    if (next !== null && isUncleanElection(current, next))
      term.log('warn', 'unclean leader election: records not replicated to the new leader may be lost', {
        topic: tp.topic,
        partition: tp.partition,
        leader: next.leader,
        previousIsr: current.isr,
      });
    return next;
  });
  if (stillNew.size > 0)
    term.log('info', 'new partitions stay offline: no assigned replica is alive', {
      count: stillNew.size,
      partitions: [...stillNew].slice(0, 20),
    });
  announce(term, batch, result);
  return result;
}

/** LeaderAndIsr to the live replicas of every changed partition (isNew for new ones). */
export function announce(term: ActiveTerm, batch: RequestBatch, result: StateUpdateResult): void {
  const created = new Set(result.created.map((tp) => tpKey(tp.topic, tp.partition)));
  for (const tp of result.changed) {
    const recipients = term.ctx.replicas(tp.topic, tp.partition).filter(term.ctx.isLive);
    batch.leaderAndIsr(recipients, tp, created.has(tpKey(tp.topic, tp.partition)));
  }
}

/** Partitions with no state yet or no live leader, outside deletions: those an election may help. */
export function offlinePartitions(term: ActiveTerm, topic?: string): TopicPartition[] {
  const ctx = term.ctx;
  const all = topic === undefined ? ctx.allPartitions() : ctx.partitionsOf(topic);
  return all.filter((tp) => {
    if (ctx.isQueuedForDeletion(tp.topic)) return false;
    const st = ctx.state(tp.topic, tp.partition);
    return st === undefined || st.leader < 0 || !ctx.isLive(st.leader);
  });
}

/** New partitions (of new topics, or added ones): first states, then LeaderAndIsr to all their replicas. */
export async function onNewPartitions(
  term: ActiveTerm,
  batch: RequestBatch,
  partitions: readonly TopicPartition[],
): Promise<void> {
  const result = await reconcilePartitions(term, batch, partitions);
  const changed = new Set(result.changed.map((tp) => tpKey(tp.topic, tp.partition)));
  // States already written (by a controller that died before telling anyone) are announced too.
  for (const tp of partitions) {
    if (changed.has(tpKey(tp.topic, tp.partition)) || term.ctx.isQueuedForDeletion(tp.topic)) continue;
    if (term.ctx.state(tp.topic, tp.partition) === undefined) continue;
    batch.leaderAndIsr(term.ctx.replicas(tp.topic, tp.partition).filter(term.ctx.isLive), tp, true);
  }
}

/**
 * Dynamic configs changed: `unclean.leader.election.enable` may now allow an election for offline
 * partitions of the topic (or of every topic, for broker-level configs), as Kafka's
 * TopicUncleanLeaderElectionEnable / UncleanLeaderElectionEnable events.
 */
export async function processConfigChange(term: ActiveTerm, entity: ConfigEntity): Promise<void> {
  if (entity.type === 'topics' && !term.ctx.topics.has(entity.name)) return;
  const offline = offlinePartitions(term, entity.type === 'topics' ? entity.name : undefined);
  if (offline.length === 0) return;
  const batch = term.batch();
  await reconcilePartitions(term, batch, offline);
  batch.send();
}
