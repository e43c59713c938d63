// What the API handlers 07 (ControlledShutdown) and 56 (AlterPartition) need of the controller
// running on this broker (ActiveController), and what 43 (ElectLeaders) and 45/46 (partition
// reassignments) need (LeadershipController). The Controller implements both; on a broker that
// is not (or no longer) the active controller its methods fail as Kafka's do: ControlledShutdown
// with STALE_CONTROLLER_EPOCH (Kafka's ControllerMovedException), the others with NOT_CONTROLLER.

import type {
  AlterPartitionRequest,
  AlterPartitionResponse,
} from '../../../protocol/messages/generated/alter-partition.js';
import type { TopicPartition } from '../store/records.js';
import type { ElectionOutcome } from './elect-leaders.js';
import type {
  OngoingReassignment,
  ReassignmentRequest,
  ReassignmentResult,
} from './reassignment-requests.js';

export interface ActiveController {
  /**
   * Moves the leaderships of `brokerId` away (and stops its follower replicas); resolves the
   * partitions it still leads (the broker retries until none is left). Throws KafkaError:
   * STALE_CONTROLLER_EPOCH when not the active controller, STALE_BROKER_EPOCH for an epoch older
   * than the broker's registration, BROKER_NOT_AVAILABLE for a broker that is not live.
   */
  controlledShutdown(brokerId: number, brokerEpoch: bigint): Promise<{ topic: string; partition: number }[]>;
  /**
   * A leader's ISR / leader-recovery-state change (KIP-497), fenced by the partition epoch.
   * `version` is the request's: v0-1 name topics, v2+ use topic ids, v3+ carry the ISR with
   * broker epochs (`newIsrWithEpochs`) instead of `newIsr`. Answers NOT_CONTROLLER (top level)
   * when not the active controller. May throw KafkaError for a whole-request failure.
   */
  alterPartition(request: AlterPartitionRequest, version: number): Promise<AlterPartitionResponse>;
}

export interface LeadershipController {
  /** True while this node is the active controller. */
  readonly isActive: boolean;
  /**
   * ElectLeaders: preferred (true) or unclean (false); null = every partition. Per-partition
   * outcomes (NOT_CONTROLLER for each named partition when not the active controller).
   */
  electLeaders(preferred: boolean, partitions: readonly TopicPartition[] | null): Promise<ElectionOutcome[]>;
  /** AlterPartitionReassignments; throws KafkaError(NOT_CONTROLLER) when not the active controller. */
  alterPartitionReassignments(requests: readonly ReassignmentRequest[]): Promise<ReassignmentResult[]>;
  /** ListPartitionReassignments (null = all); throws KafkaError(NOT_CONTROLLER) likewise. */
  listPartitionReassignments(partitions: readonly TopicPartition[] | null): Promise<OngoingReassignment[]>;
}
