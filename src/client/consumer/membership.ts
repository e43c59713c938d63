// What the consumer, its commits and auto commit see of a group membership, whichever protocol
// runs it: the classic JoinGroup/SyncGroup one (group-membership.ts) or KIP-848's
// ConsumerGroupHeartbeat (consumer-protocol-membership.ts). Commits carry `generation`: the
// classic generation id, or the KIP-848 member epoch (OffsetCommit's GenerationIdOrMemberEpoch);
// a new object whenever it changes, so a commit can tell that the member moved on meanwhile.
import type { Generation } from './group-rpc.js';

export interface Membership {
  readonly groupId: string;
  /**
   * `consumer` (KIP-848): OffsetFetch carries the member id and epoch too (v9+), so the
   * coordinator can refuse a member that is no longer current.
   */
  readonly protocol: 'classic' | 'consumer';
  /** generationId −1 while the member has no generation (epoch) it may commit with. */
  readonly generation: Generation;
  /** STABLE: commits are accepted under `generation` (auto commit runs only then). */
  readonly state: 'UNJOINED' | 'JOINING' | 'STABLE';
  /** The steps that belong to poll(): rebalance work and listener callbacks. */
  poll(): Promise<void>;
  /** The subscription changed (or the group must rebalance): tell the coordinator soon. */
  requestRejoin(reason: string): void;
  /** Classic leader only: a subscribed topic's partition count changed. */
  checkTopicCounts(counts: (topic: string) => number | undefined): void;
  /** A commit or an offset fetch learned that the coordinator no longer knows this member (or its generation). */
  fenced(code: number, why?: string): void;
  /** Waits (bounded) for group round trips in flight before partitions are given up. */
  settle(timeoutMs: number): Promise<void>;
  /** Leaves the group (partitions must have been given up first). */
  leave(reason: string): Promise<void>;
  close(): void;
}
