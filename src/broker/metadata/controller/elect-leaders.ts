// ElectLeaders (KIP-460; also what an automatic leader rebalance would run): PREFERRED moves
// leadership back to each partition's first assigned replica when it is alive and in sync;
// UNCLEAN elects a leader for partitions that have none, from out-of-sync replicas if need be.
// Per-partition outcomes carry Kafka's error codes.

import { ErrorCode } from '../../../protocol/errors.js';
import type { TopicPartition } from '../store/records.js';
import type { ActiveTerm } from './active-term.js';
import { tpKey } from './controller-context.js';
import { electPreferred } from './leader-election.js';
import { announce, reconcilePartitions } from './partition-elections.js';
import { updatePartitionStates } from './state-updates.js';

export interface ElectionOutcome extends TopicPartition {
  readonly errorCode: number;
  readonly errorMessage: string | null;
  /** The leader after the election (also when none was needed); -1 when unknown. */
  readonly leader: number;
}

export async function electLeaders(
  term: ActiveTerm,
  preferred: boolean,
  partitions: readonly TopicPartition[] | null,
): Promise<ElectionOutcome[]> {
  const ctx = term.ctx;
  const wanted = partitions ?? ctx.allPartitions();
  const outcomes = new Map<string, ElectionOutcome>();
  const fail = (tp: TopicPartition, errorCode: number, errorMessage: string | null) =>
    outcomes.set(tpKey(tp.topic, tp.partition), {
      ...tp,
      errorCode,
      errorMessage,
      leader: ctx.state(tp.topic, tp.partition)?.leader ?? -1,
    });
  const electable: TopicPartition[] = [];
  for (const tp of wanted) {
    if (!ctx.hasPartition(tp.topic, tp.partition))
      fail(tp, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, 'The partition does not exist.');
    else if (ctx.isQueuedForDeletion(tp.topic))
      fail(tp, ErrorCode.INVALID_TOPIC_EXCEPTION, 'The topic is being deleted');
    else {
      const st = ctx.state(tp.topic, tp.partition);
      const needed = preferred
        ? st?.leader !== ctx.replicas(tp.topic, tp.partition)[0]
        : st === undefined || st.leader < 0 || !ctx.isLive(st.leader);
      if (needed) electable.push(tp);
      else fail(tp, ErrorCode.ELECTION_NOT_NEEDED, null);
    }
  }

  const batch = term.batch();
  let changed: TopicPartition[];
  if (preferred) {
    const result = await updatePartitionStates(term, electable, (tp, current) =>
      current === undefined
        ? null
        : electPreferred(current, ctx.replicas(tp.topic, tp.partition), ctx.isOnline, term.epoch),
    );
    announce(term, batch, result);
    changed = result.changed;
  } else {
    changed = (await reconcilePartitions(term, batch, electable, { allowUnclean: true })).changed;
  }
  batch.send();

  const done = new Set(changed.map((tp) => tpKey(tp.topic, tp.partition)));
  for (const tp of electable) {
    const leader = ctx.state(tp.topic, tp.partition)?.leader ?? -1;
    const ok =
      done.has(tpKey(tp.topic, tp.partition)) &&
      (preferred ? leader === ctx.replicas(tp.topic, tp.partition)[0] : leader >= 0);
    if (ok)
      outcomes.set(tpKey(tp.topic, tp.partition), {
        ...tp,
        errorCode: ErrorCode.NONE,
        errorMessage: null,
        leader,
      });
    else if (preferred)
      fail(
        tp,
        ErrorCode.PREFERRED_LEADER_NOT_AVAILABLE,
        `Failed to elect leader for partition ${tp.topic}-${tp.partition} under strategy PreferredReplicaPartitionLeaderElectionStrategy`,
      );
    else
      fail(
        tp,
        ErrorCode.ELIGIBLE_LEADERS_NOT_AVAILABLE,
        `Failed to elect leader for partition ${tp.topic}-${tp.partition} under strategy OfflinePartitionLeaderElectionStrategy(true)`,
      );
  }
  return wanted.map((tp) => outcomes.get(tpKey(tp.topic, tp.partition))!);
}
