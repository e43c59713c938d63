// Automatic preferred-leader rebalance (`auto.leader.rebalance.enable`), Kafka's
// checkAndTriggerAutoLeaderRebalance: every `leader.imbalance.check.interval.seconds` the active
// controller groups partitions by preferred replica (first assigned); for each broker, the share
// of its preferred partitions led by someone else is its imbalance. Above
// `leader.imbalance.per.broker.percentage`, the partitions whose preferred replica is online and
// in the ISR get a preferred election. Topics being deleted are left alone.

import type { TopicPartition } from '../store/records.js';
import type { ActiveTerm } from './active-term.js';
import type { ControllerContext } from './controller-context.js';
import { electLeaders } from './elect-leaders.js';
import { preferredReplicaLeader } from './leader-election.js';

export interface LeaderRebalanceConfig {
  readonly enable: boolean;
  readonly checkIntervalMs: number;
  /** Allowed share (percent) of a broker's preferred partitions led elsewhere. */
  readonly imbalancePerBrokerPercentage: number;
}

/** Kafka's defaults: on, every 300 s, 10 %. */
export const DEFAULT_LEADER_REBALANCE: LeaderRebalanceConfig = {
  enable: true,
  checkIntervalMs: 300_000,
  imbalancePerBrokerPercentage: 10,
};

/** Kafka waits this long after a controller election before the first check. */
export const FIRST_CHECK_DELAY_MS = 5_000;

/** The partitions a rebalance check would elect, per the algorithm above. */
export function partitionsToRebalance(ctx: ControllerContext, percentage: number): TopicPartition[] {
  const byPreferred = new Map<number, TopicPartition[]>();
  for (const tp of ctx.allPartitions()) {
    if (ctx.isQueuedForDeletion(tp.topic)) continue;
    const preferred = ctx.replicas(tp.topic, tp.partition)[0];
    if (preferred === undefined) continue;
    const l = byPreferred.get(preferred);
    if (l === undefined) byPreferred.set(preferred, [tp]);
    else l.push(tp);
  }
  const out: TopicPartition[] = [];
  for (const [broker, partitions] of byPreferred) {
    const elsewhere = partitions.filter((tp) => {
      const st = ctx.state(tp.topic, tp.partition);
      return st !== undefined && st.leader !== broker;
    });
    if (elsewhere.length / partitions.length <= percentage / 100) continue;
    for (const tp of elsewhere) {
      const st = ctx.state(tp.topic, tp.partition)!;
      if (preferredReplicaLeader(ctx.replicas(tp.topic, tp.partition), st.isr, ctx.isOnline) !== null)
        out.push(tp);
    }
  }
  return out;
}

export async function autoLeaderRebalance(term: ActiveTerm, percentage: number): Promise<void> {
  const partitions = partitionsToRebalance(term.ctx, percentage);
  if (partitions.length === 0) return;
  const outcomes = await electLeaders(term, true, partitions);
  const moved = outcomes.filter((o) => o.errorCode === 0);
  term.log('info', 'automatic preferred leader election', {
    elected: moved.length,
    failed: outcomes.length - moved.length,
    partitions: moved.map((o) => `${o.topic}-${o.partition}→${o.leader}`).slice(0, 20),
  });
}
