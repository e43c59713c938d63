// One partition replica on this broker: its log plus the leadership state from the metadata
// image (leader, epoch, replicas, ISR). On a leader whose ISR is itself only, the high
// watermark follows the log end offset after every append (Kafka's HW = min LEO over the ISR).
// Follower fetching and ISR changes are the replication issue's; this class is where they go.

import { ErrorCode, KafkaError } from '../../protocol/errors.js';
import type { AppendResult, PartitionLog } from '../../storage/index.js';
import type { PartitionRecord } from '../metadata/types.js';

export class Partition {
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

  updateState(state: PartitionRecord): void {
    this.state = state;
    this.maybeAdvanceHighWatermark();
  }

  /**
   * Checks leadership and `min.insync.replicas` (acks=all only), then hands the batch to the
   * log. The log assigns offsets synchronously, so call order is log order.
   */
  appendAsLeader(batch: Buffer, acks: number, minInsyncReplicas: number): Promise<AppendResult> {
    if (!this.isLeader) return Promise.reject(new KafkaError(ErrorCode.NOT_LEADER_OR_FOLLOWER));
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
