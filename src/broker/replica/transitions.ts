// The shapes of the controller-driven replica transitions (Kafka's ReplicaManager
// becomeLeaderOrFollower / stopReplicas): the normalized per-partition input the receiver builds
// from LeaderAndIsr and StopReplica (every request version), the per-partition outcome, the
// leadership changes this broker went through, and the hooks the replica fetcher plugs into.

import type { Partition, PartitionLeaderAndIsr } from './partition.js';

export interface TopicPartitionRef {
  readonly topic: string;
  readonly partition: number;
}

/** One partition of a LeaderAndIsr request, whatever the request version. */
export interface LeaderAndIsrInput extends PartitionLeaderAndIsr, TopicPartitionRef {
  /** Null when the request carries none (LeaderAndIsr < v5, or the zero uuid). */
  readonly topicId: string | null;
  /** The controller created this partition just now (LeaderAndIsr v1+). */
  readonly isNew: boolean;
}

/** One partition of a StopReplica request. */
export interface StopReplicaInput extends TopicPartitionRef {
  /** -1 = no epoch (StopReplica < v3: not checked); -2 = the topic is being deleted. */
  readonly leaderEpoch: number;
  readonly deletePartition: boolean;
}

export interface PartitionError extends TopicPartitionRef {
  readonly errorCode: number;
}

/** This broker gained or lost the leadership of a partition. */
export interface LeadershipChange extends TopicPartitionRef {
  readonly topicId: string;
  readonly isLeader: boolean;
  /** The leader epoch of the decision (for a deletion: the partition's last known epoch). */
  readonly leaderEpoch: number;
}

export interface ReplicaTransitionResult {
  /** One entry per distinct partition of the request, in request order. */
  readonly errors: readonly PartitionError[];
  readonly leadershipChanges: readonly LeadershipChange[];
}

/** A live leader as LeaderAndIsr lists it (the follower's fetch target). */
export interface LiveLeader {
  readonly brokerId: number;
  readonly hostName: string;
  readonly port: number;
}

/**
 * Where the replica fetcher (replication issue) plugs in. Called after the partitions' state
 * changed, in the replica manager's queue; a rejection is logged, never fails the request.
 */
export interface ReplicaFetcherHooks {
  /**
   * These partitions now follow `partition.leaderId` (−1: no leader yet) at `partition.leaderEpoch`:
   * stop any fetch of theirs, truncate as needed, and fetch from the new leader.
   */
  onBecomeFollower?(
    partitions: readonly Partition[],
    liveLeaders: readonly LiveLeader[],
  ): void | Promise<void>;
  /** Stop fetching these partitions (this broker leads them now, or they were stopped). */
  removeFetchers?(partitions: readonly TopicPartitionRef[]): void | Promise<void>;
}
