// The timers of KIP-848 consumer-group members (Kafka's GroupMetadataManager keys): the session
// (every member; a classic member's own JoinGroup session timeout), the rebalance timeout of a
// member asked to revoke (ConsumerGroupHeartbeat members), and, for members that joined with
// JoinGroup, the join timeout (told to rejoin, it must within its rebalance timeout) and the sync
// timeout (joined, it must send SyncGroup within its rebalance timeout). Every one fences the
// member when it fires; `fence` finds the member again and does nothing if it is gone.
import type { CoordinatorResult, CoordinatorTimer } from '../runtime/coordinator-shard.js';
import type { GroupRecord } from './group-records.js';

/** Fences `memberId` of `groupId` (only while it is still at `epoch`, when given). */
export type FenceOp = (
  groupId: string,
  memberId: string,
  epoch?: number,
) => CoordinatorResult<GroupRecord, undefined>;

const key = (kind: string, g: string, m: string) => `cg-${kind}\u0000${g}\u0000${m}`;

export class ConsumerGroupTimers {
  constructor(
    private readonly timer: CoordinatorTimer<GroupRecord>,
    private readonly fence: FenceOp,
  ) {}

  session(groupId: string, memberId: string, timeoutMs: number): void {
    this.timer.schedule(key('session', groupId, memberId), timeoutMs, () => this.fence(groupId, memberId));
  }

  rebalance(groupId: string, memberId: string, epoch: number, timeoutMs: number): void {
    this.timer.schedule(key('rebalance', groupId, memberId), Math.max(0, timeoutMs), () =>
      this.fence(groupId, memberId, epoch),
    );
  }

  cancelRebalance(groupId: string, memberId: string): void {
    this.timer.cancel(key('rebalance', groupId, memberId));
  }

  /** Kafka's scheduleConsumerGroupJoinTimeoutIfAbsent: the first "rejoin" sets the deadline. */
  joinIfAbsent(groupId: string, memberId: string, timeoutMs: number): void {
    const k = key('join', groupId, memberId);
    if (this.timer.isScheduled(k)) return;
    this.timer.schedule(k, Math.max(0, timeoutMs), () => this.fence(groupId, memberId));
  }

  cancelJoin(groupId: string, memberId: string): void {
    this.timer.cancel(key('join', groupId, memberId));
  }

  sync(groupId: string, memberId: string, timeoutMs: number): void {
    this.timer.schedule(key('sync', groupId, memberId), Math.max(0, timeoutMs), () =>
      this.fence(groupId, memberId),
    );
  }

  cancelSync(groupId: string, memberId: string): void {
    this.timer.cancel(key('sync', groupId, memberId));
  }

  cancelAll(groupId: string, memberId: string): void {
    for (const kind of ['session', 'rebalance', 'join', 'sync'])
      this.timer.cancel(key(kind, groupId, memberId));
  }
}
