// One partition replica on this broker: its log plus the leadership state from the metadata
// image (leader, epoch, replicas, ISR). On a leader whose ISR is itself only, the high
// watermark follows the log end offset after every append (Kafka's HW = min LEO over the ISR).
// Follower fetching and ISR changes are the replication issue's; this class is where they go.
// In a cluster the state comes from the controller's LeaderAndIsr (`applyLeaderAndIsr`), with
// the partition epoch (zkVersion), the controller epoch and KIP-704's leader recovery state.

import { ErrorCode, KafkaError } from '../../protocol/errors.js';
import type { AppendResult, PartitionLog } from '../../storage/index.js';
import type { PartitionRecord } from '../metadata/types.js';

/** A LeaderAndIsr decision for one partition, as the replica manager applies it. */
export interface PartitionLeaderAndIsr {
  readonly leader: number;
  readonly leaderEpoch: number;
  readonly isr: readonly number[];
  readonly replicas: readonly number[];
  /** The state's version (ZooKeeper zkVersion). */
  readonly partitionEpoch: number;
  readonly controllerEpoch: number;
  readonly addingReplicas: readonly number[];
  readonly removingReplicas: readonly number[];
  /** KIP-704: 1 = recovering from an unclean election. */
  readonly leaderRecoveryState: number;
}

export class Partition {
  #partitionEpoch = -1;
  #controllerEpoch = -1;
  #leaderRecoveryState: 0 | 1 = 0;
  #addingReplicas: readonly number[] = [];
  #removingReplicas: readonly number[] = [];
  /**
   * This broker can no longer prove it leads (its metadata-store session is lost or expired):
   * writes are refused until the controller's next decision arrives.
   */
  #fenced = false;

  constructor(
    readonly topic: string,
    readonly topicId: string,
    readonly log: PartitionLog,
    private state: PartitionRecord,
    private readonly localNodeId: number,
  ) {}

  get index(): number {
    return this.state.partition;
  }

  get leaderId(): number {
    return this.state.leader;
  }

  get leaderEpoch(): number {
    return this.state.leaderEpoch;
  }

  get isr(): readonly number[] {
    return this.state.isr;
  }

  get replicas(): readonly number[] {
    return this.state.replicas;
  }

  get isLeader(): boolean {
    return this.state.leader === this.localNodeId;
  }

  get fenced(): boolean {
    return this.#fenced;
  }

  /** Stops accepting writes as leader until `unfence()` or a newer LeaderAndIsr. */
  fence(): void {
    this.#fenced = true;
  }

  unfence(): void {
    this.#fenced = false;
  }

  /** Version of the partition state this replica applied (-1: none from a controller yet). */
  get partitionEpoch(): number {
    return this.#partitionEpoch;
  }

  /** Epoch of the controller whose decision this replica applied (-1: none yet). */
  get controllerEpoch(): number {
    return this.#controllerEpoch;
  }

  get leaderRecoveryState(): 0 | 1 {
    return this.#leaderRecoveryState;
  }

  get addingReplicas(): readonly number[] {
    return this.#addingReplicas;
  }

  get removingReplicas(): readonly number[] {
    return this.#removingReplicas;
  }

  updateState(state: PartitionRecord): void {
    this.state = state;
    this.maybeAdvanceHighWatermark();
  }

  /**
   * Applies a controller decision (the replica manager has checked that it is newer). A leader
   * recovering from an unclean election (KIP-704) keeps the state until its AlterPartition marks
   * it recovered; nothing here depends on it yet.
   */
  applyLeaderAndIsr(s: PartitionLeaderAndIsr): void {
    this.state = {
      partition: this.state.partition,
      leader: s.leader,
      leaderEpoch: s.leaderEpoch,
      replicas: [...s.replicas],
      isr: [...s.isr],
    };
    this.#partitionEpoch = s.partitionEpoch;
    this.#controllerEpoch = s.controllerEpoch;
    this.#leaderRecoveryState = s.leaderRecoveryState === 1 ? 1 : 0;
    this.#addingReplicas = [...s.addingReplicas];
    this.#removingReplicas = [...s.removingReplicas];
    this.#fenced = false;
    this.maybeAdvanceHighWatermark();
  }

  /**
   * Checks leadership and `min.insync.replicas` (acks=all only), then hands the batch to the
   * log. The log assigns offsets synchronously, so call order is log order.
   */
  appendAsLeader(batch: Buffer, acks: number, minInsyncReplicas: number): Promise<AppendResult> {
    if (!this.isLeader || this.#fenced)
      return Promise.reject(new KafkaError(ErrorCode.NOT_LEADER_OR_FOLLOWER));
    if (acks === -1 && this.state.isr.length < minInsyncReplicas) {
      return Promise.reject(
        new KafkaError(
          ErrorCode.NOT_ENOUGH_REPLICAS,
          `The size of the current ISR ${this.state.isr.length} is insufficient to satisfy the min.isr requirement of ${minInsyncReplicas} for partition ${this.topic}-${this.index}`,
        ),
      );
    }
    return this.log.appendAsLeader(batch, this.state.leaderEpoch).then((r) => {
      this.maybeAdvanceHighWatermark();
      return r;
    });
  }

  /** With no other replica in the ISR, everything written is committed. */
  maybeAdvanceHighWatermark(): void {
    if (!this.isLeader) return;
    if (
      this.state.isr.length === 1 &&
      this.state.isr[0] === this.localNodeId &&
      this.log.highWatermark < this.log.logEndOffset
    ) {
      this.log.setHighWatermark(this.log.logEndOffset);
    }
  }
}
