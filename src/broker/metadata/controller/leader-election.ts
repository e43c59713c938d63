// Leader election strategies and partition-state transitions of Kafka's ZooKeeper-mode controller
// (PartitionLeaderElectionAlgorithms, Election, the ISR removal of the replica state machine), as
// pure functions: the controller supplies who is alive and writes what they return.
//
// Liveness comes in two flavours, as in Kafka: `isLive` = registered (shutting-down brokers
// included), `isOnline` = registered and not shutting down (Kafka's isReplicaOnline). Only online
// replicas may become leader. Every controller-made change bumps the leader epoch (Kafka's
// newLeaderAndIsr), ISR shrinks included.

import type { LeaderAndIsr } from '../store/records.js';

export type BrokerPredicate = (brokerId: number) => boolean;

/** Partition state while its topic is being deleted (UpdateMetadata: caches drop the partition). */
export const LEADER_DURING_DELETE = -2;
/** StopReplica leader epoch that means "deleted, whatever your epoch". */
export const EPOCH_DURING_DELETE = -2;
export const NO_LEADER = -1;

// -- Strategies: who leads -------------------------------------------------------------------

/**
 * OfflinePartitionLeaderElection: the first replica in assignment order that is online and in the
 * ISR; failing that, only if unclean election is enabled, the first online replica.
 */
export function offlinePartitionLeader(
  assignment: readonly number[],
  isr: readonly number[],
  isOnline: BrokerPredicate,
  uncleanEnabled: boolean,
): { readonly leader: number; readonly unclean: boolean } | null {
  const clean = assignment.find((id) => isOnline(id) && isr.includes(id));
  if (clean !== undefined) return { leader: clean, unclean: false };
  if (!uncleanEnabled) return null;
  const any = assignment.find(isOnline);
  return any === undefined ? null : { leader: any, unclean: true };
}

/** ReassignPartitionLeaderElection: the first target replica that is online and in the ISR. */
export function reassignPartitionLeader(
  targetReplicas: readonly number[],
  isr: readonly number[],
  isOnline: BrokerPredicate,
): number | null {
  return targetReplicas.find((id) => isOnline(id) && isr.includes(id)) ?? null;
}

/** PreferredReplicaPartitionLeaderElection: the first assigned replica, if online and in the ISR. */
export function preferredReplicaLeader(
  assignment: readonly number[],
  isr: readonly number[],
  isOnline: BrokerPredicate,
): number | null {
  const preferred = assignment[0];
  return preferred !== undefined && isOnline(preferred) && isr.includes(preferred) ? preferred : null;
}

/** ControlledShutdownPartitionLeaderElection: the first live ISR replica not shutting down. */
export function controlledShutdownLeader(
  assignment: readonly number[],
  isr: readonly number[],
  isLive: BrokerPredicate,
  shuttingDown: ReadonlySet<number>,
): number | null {
  return assignment.find((id) => isLive(id) && isr.includes(id) && !shuttingDown.has(id)) ?? null;
}

// -- Transitions: the state to write (null = no change / no eligible leader) -----------------------

/** NewPartition → OnlinePartition: the first online replica leads, the online replicas are the ISR. */
export function initialLeaderAndIsr(
  assignment: readonly number[],
  isOnline: BrokerPredicate,
  controllerEpoch: number,
): LeaderAndIsr | null {
  const live = assignment.filter(isOnline);
  if (live.length === 0) return null;
  return { leader: live[0]!, leaderEpoch: 0, isr: live, controllerEpoch, leaderRecoveryState: 0 };
}

/**
 * Offline election. A clean leader keeps the ISR minus the replicas that are not online; an unclean
 * one starts a new ISR of itself and marks the partition as recovering (KIP-704).
 */
export function electOffline(
  current: LeaderAndIsr,
  assignment: readonly number[],
  isOnline: BrokerPredicate,
  uncleanEnabled: boolean,
  controllerEpoch: number,
): LeaderAndIsr | null {
  const choice = offlinePartitionLeader(assignment, current.isr, isOnline, uncleanEnabled);
  if (choice === null) return null;
  if (choice.unclean) {
    return {
      leader: choice.leader,
      leaderEpoch: current.leaderEpoch + 1,
      isr: [choice.leader],
      controllerEpoch,
      leaderRecoveryState: 1,
    };
  }
  return {
    ...current,
    leader: choice.leader,
    leaderEpoch: current.leaderEpoch + 1,
    isr: current.isr.filter(isOnline),
    controllerEpoch,
  };
}

/** Preferred election: the preferred replica takes over, the ISR stays. */
export function electPreferred(
  current: LeaderAndIsr,
  assignment: readonly number[],
  isOnline: BrokerPredicate,
  controllerEpoch: number,
): LeaderAndIsr | null {
  const leader = preferredReplicaLeader(assignment, current.isr, isOnline);
  if (leader === null) return null;
  return { ...current, leader, leaderEpoch: current.leaderEpoch + 1, controllerEpoch };
}

/** Reassignment: a target replica takes over, the ISR stays. */
export function electReassign(
  current: LeaderAndIsr,
  targetReplicas: readonly number[],
  isOnline: BrokerPredicate,
  controllerEpoch: number,
): LeaderAndIsr | null {
  const leader = reassignPartitionLeader(targetReplicas, current.isr, isOnline);
  if (leader === null) return null;
  return { ...current, leader, leaderEpoch: current.leaderEpoch + 1, controllerEpoch };
}

/** Controlled shutdown: another ISR member leads; the shutting-down brokers leave the ISR. */
export function electControlledShutdown(
  current: LeaderAndIsr,
  assignment: readonly number[],
  isLive: BrokerPredicate,
  shuttingDown: ReadonlySet<number>,
  controllerEpoch: number,
): LeaderAndIsr | null {
  const leader = controlledShutdownLeader(assignment, current.isr, isLive, shuttingDown);
  if (leader === null) return null;
  return {
    ...current,
    leader,
    leaderEpoch: current.leaderEpoch + 1,
    isr: current.isr.filter((id) => !shuttingDown.has(id)),
    controllerEpoch,
  };
}

/**
 * Removes replicas from the ISR (OfflineReplica). A removed leader leaves the partition without
 * one (-1). Replicas are removed one at a time in id order and the last ISR member always stays,
 * as in Kafka: it is the replica a clean election must wait for. Null when nothing changes.
 */
export function removeFromIsr(
  current: LeaderAndIsr,
  replicas: Iterable<number>,
  controllerEpoch: number,
): LeaderAndIsr | null {
  let leader = current.leader;
  let isr = [...current.isr];
  for (const r of [...replicas].sort((a, b) => a - b)) {
    if (!isr.includes(r)) continue;
    if (r === leader) leader = NO_LEADER;
    if (isr.length > 1) isr = isr.filter((id) => id !== r);
  }
  // Kafka would rewrite an unchanged state (the last ISR member kept); that only bumps epochs.
  if (leader === current.leader && isr.length === current.isr.length) return null;
  return { ...current, leader, leaderEpoch: current.leaderEpoch + 1, isr, controllerEpoch };
}

/**
 * What a broker loss (or a new chance to elect) means for one partition, in one write: a partition
 * whose leader is gone gets the offline election; the replicas that are not registered any more
 * leave the ISR. Null when nothing changes (e.g. still no eligible leader and nothing to remove).
 */
export function reconcilePartition(
  current: LeaderAndIsr,
  assignment: readonly number[],
  isLive: BrokerPredicate,
  isOnline: BrokerPredicate,
  uncleanEnabled: boolean,
  controllerEpoch: number,
): LeaderAndIsr | null {
  const gone = current.isr.filter((id) => !isLive(id));
  if (current.leader === NO_LEADER || !isLive(current.leader)) {
    const elected = electOffline(current, assignment, isOnline, uncleanEnabled, controllerEpoch);
    if (elected !== null) return elected;
    const removed = removeFromIsr(current, gone, controllerEpoch);
    if (removed !== null || current.leader === NO_LEADER) return removed;
    // The dead leader may already be out of the ISR: it still has to go.
    return { ...current, leader: NO_LEADER, leaderEpoch: current.leaderEpoch + 1, controllerEpoch };
  }
  return gone.length === 0 ? null : removeFromIsr(current, gone, controllerEpoch);
}

/** True when `next` has a leader that was not in the ISR of `previous` (an unclean election). */
export function isUncleanElection(previous: LeaderAndIsr, next: LeaderAndIsr): boolean {
  return next.leader >= 0 && next.leader !== previous.leader && !previous.isr.includes(next.leader);
}
