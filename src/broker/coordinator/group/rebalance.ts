// The rebalance engine of classic groups (Kafka's GroupMetadataManager, classic part):
// preparing a rebalance, completing the join phase, propagating the leader's assignment,
// session and sync timeouts. Join/Sync/Heartbeat/Leave in classic-group-manager.ts drive it.
import { randomUUID } from 'node:crypto';
import { ErrorCode } from '../../../protocol/errors.js';
import type { Clock } from '../runtime/clock.js';
import type { CoordinatorTimer } from '../runtime/coordinator-shard.js';
import { ClassicGroup, type ClassicGroupMember } from './classic-group.js';
import type { GroupConfig } from './group-config.js';
import { type GroupRecord, groupRecord } from './group-records.js';
import { EMPTY_BUFFER, type JoinGroupMember, type JoinGroupResult } from './group-types.js';
import { OpEffects } from './op-effects.js';

export const heartbeatKey = (groupId: string, memberId: string): string =>
  `hb\u0000${groupId}\u0000${memberId}`;
const joinKey = (groupId: string): string => `join\u0000${groupId}`;
const syncKey = (groupId: string): string => `sync\u0000${groupId}`;

export function joinError(errorCode: number, memberId = ''): JoinGroupResult {
  return {
    errorCode,
    generationId: -1,
    protocolType: null,
    protocolName: null,
    leader: '',
    skipAssignment: false,
    memberId,
    members: [],
  };
}

export class RebalanceEngine {
  readonly groups = new Map<string, ClassicGroup>();
  /** Member ids handed out; a UUID suffix as in Kafka, after the client id. */
  newMemberId: (clientId: string) => string = (clientId) => `${clientId}-${randomUUID()}`;

  constructor(
    readonly config: GroupConfig,
    readonly clock: Clock,
    readonly timer: CoordinatorTimer<GroupRecord>,
  ) {}

  now(): number {
    return this.clock.now();
  }

  /** The members list the leader gets to compute the assignment from. */
  leaderMembers(group: ClassicGroup): JoinGroupMember[] {
    const protocol = group.protocolName ?? '';
    return [...group.members.values()].map((m) => ({
      memberId: m.memberId,
      groupInstanceId: m.groupInstanceId,
      metadata: m.metadataFor(protocol),
    }));
  }

  currentJoinResult(group: ClassicGroup, member: ClassicGroupMember, withMembers: boolean): JoinGroupResult {
    return {
      errorCode: ErrorCode.NONE,
      generationId: group.generationId,
      protocolType: group.protocolType,
      protocolName: group.protocolName,
      leader: group.leaderId ?? '',
      skipAssignment: false,
      memberId: member.memberId,
      members: withMembers ? this.leaderMembers(group) : [],
    };
  }

  scheduleHeartbeat(
    group: ClassicGroup,
    member: ClassicGroupMember,
    timeoutMs = member.sessionTimeoutMs,
  ): void {
    const { groupId } = group;
    const { memberId } = member;
    this.timer.schedule(heartbeatKey(groupId, memberId), timeoutMs, () => {
      const fx = new OpEffects();
      this.expireHeartbeat(fx, groupId, memberId);
      return fx.toResult(undefined);
    });
  }

  /** Session timeout of a member (or of a member id handed out with MEMBER_ID_REQUIRED). */
  expireHeartbeat(fx: OpEffects, groupId: string, memberId: string): void {
    const group = this.groups.get(groupId);
    if (group === undefined || group.is('Dead')) return;
    if (group.pendingMembers.delete(memberId)) {
      this.maybeCompleteJoin(fx, group);
      return;
    }
    const member = group.members.get(memberId);
    if (member === undefined) return;
    // Members parked in a join or a sync are covered by the rebalance/sync timeouts, except
    // new members, which get the new-member join timeout instead.
    if (!member.isNew && (member.awaitingJoin !== null || member.awaitingSync !== null)) return;
    this.removeMemberAndUpdateGroup(fx, group, member);
  }

  removeMemberAndUpdateGroup(fx: OpEffects, group: ClassicGroup, member: ClassicGroupMember): void {
    this.dropMember(group, member);
    switch (group.state) {
      case 'Stable':
      case 'CompletingRebalance':
        this.prepareRebalance(fx, group);
        break;
      case 'PreparingRebalance':
        this.maybeCompleteJoin(fx, group);
        break;
      default:
        break;
    }
  }

  /** Removes a member and answers its parked requests so that a live client rejoins. */
  dropMember(group: ClassicGroup, member: ClassicGroupMember): void {
    this.timer.cancel(heartbeatKey(group.groupId, member.memberId));
    group.remove(member.memberId);
    const join = member.awaitingJoin;
    member.awaitingJoin = null;
    join?.(joinError(ErrorCode.UNKNOWN_MEMBER_ID, member.memberId));
    const sync = member.awaitingSync;
    member.awaitingSync = null;
    sync?.({
      errorCode: ErrorCode.UNKNOWN_MEMBER_ID,
      protocolType: null,
      protocolName: null,
      assignment: EMPTY_BUFFER,
    });
  }

  canRebalance(group: ClassicGroup): boolean {
    return group.is('Stable') || group.is('CompletingRebalance') || group.is('Empty');
  }

  maybePrepareRebalanceOrCompleteJoin(fx: OpEffects, group: ClassicGroup): void {
    if (this.canRebalance(group)) this.prepareRebalance(fx, group);
    else this.maybeCompleteJoin(fx, group);
  }

  prepareRebalance(fx: OpEffects, group: ClassicGroup): void {
    if (group.is('CompletingRebalance'))
      this.resetAssignmentsWithError(group, ErrorCode.REBALANCE_IN_PROGRESS);
    this.timer.cancel(syncKey(group.groupId));
    group.pendingSyncMembers.clear();
    const initial = group.is('Empty');
    group.transitionTo('PreparingRebalance', this.now());
    group.initialJoin = initial;
    if (initial) {
      // A new group waits group.initial.rebalance.delay.ms for more members, extended by
      // that delay each time one arrives, up to the rebalance timeout.
      const delay = this.config.initialRebalanceDelayMs;
      const remaining = Math.max(group.rebalanceTimeoutMs() - delay, 0);
      group.newMemberAdded = false;
      this.scheduleInitialJoin(group, delay, remaining);
    } else if (group.hasAllMembersJoined()) {
      this.completeJoin(fx, group);
    } else {
      this.scheduleJoinTimeout(group);
    }
  }

  scheduleInitialJoin(group: ClassicGroup, delayMs: number, remainingMs: number): void {
    const { groupId } = group;
    this.timer.schedule(joinKey(groupId), delayMs, () => {
      const fx = new OpEffects();
      const g = this.groups.get(groupId);
      if (g !== undefined && g.is('PreparingRebalance')) {
        if (g.newMemberAdded && remainingMs > 0) {
          g.newMemberAdded = false;
          const next = Math.min(this.config.initialRebalanceDelayMs, remainingMs);
          this.scheduleInitialJoin(g, next, Math.max(remainingMs - next, 0));
        } else {
          this.completeJoin(fx, g);
        }
      }
      return fx.toResult(undefined);
    });
  }

  scheduleJoinTimeout(group: ClassicGroup): void {
    const { groupId } = group;
    this.timer.schedule(joinKey(groupId), group.rebalanceTimeoutMs(), () => {
      const fx = new OpEffects();
      const g = this.groups.get(groupId);
      if (g !== undefined && g.is('PreparingRebalance')) this.completeJoin(fx, g);
      return fx.toResult(undefined);
    });
  }

  /** Completes the join phase early once everyone is in (never during the initial delay). */
  maybeCompleteJoin(fx: OpEffects, group: ClassicGroup): void {
    if (group.is('PreparingRebalance') && !group.initialJoin && group.hasAllMembersJoined()) {
      this.completeJoin(fx, group);
    }
  }

  completeJoin(fx: OpEffects, group: ClassicGroup): void {
    this.timer.cancel(joinKey(group.groupId));
    if (!group.is('PreparingRebalance')) return;
    // Members that did not rejoin in time are out (static ones too: they lost their slot).
    for (const m of [...group.members.values()]) if (m.awaitingJoin === null) this.dropMember(group, m);
    group.initialJoin = false;
    group.generationId++;
    group.pendingSyncMembers.clear();
    if (group.members.size === 0) {
      group.protocolName = null;
      group.transitionTo('Empty', this.now());
      fx.write(groupRecord(group.groupId, group.toRecord()));
      return;
    }
    group.protocolName = group.selectProtocol();
    group.transitionTo('CompletingRebalance', this.now());
    const leaderMembers = this.leaderMembers(group);
    for (const m of group.members.values()) {
      const respond = m.awaitingJoin;
      m.awaitingJoin = null;
      m.isNew = false;
      group.pendingSyncMembers.add(m.memberId);
      this.scheduleHeartbeat(group, m);
      respond?.({
        ...this.currentJoinResult(group, m, false),
        members: group.isLeader(m.memberId) ? leaderMembers : [],
      });
    }
    this.schedulePendingSync(group);
  }

  /** Members that got their JoinGroup answer must send SyncGroup within the rebalance timeout. */
  schedulePendingSync(group: ClassicGroup): void {
    const { groupId, generationId } = group;
    this.timer.schedule(syncKey(groupId), group.rebalanceTimeoutMs(), () => {
      const fx = new OpEffects();
      const g = this.groups.get(groupId);
      if (
        g !== undefined &&
        g.generationId === generationId &&
        (g.is('CompletingRebalance') || g.is('Stable'))
      ) {
        const late = [...g.pendingSyncMembers];
        g.pendingSyncMembers.clear();
        if (late.length > 0) {
          for (const id of late) {
            const m = g.members.get(id);
            if (m !== undefined) this.dropMember(g, m);
          }
          this.prepareRebalance(fx, g);
        }
      }
      return fx.toResult(undefined);
    });
  }

  removePendingSync(group: ClassicGroup, memberId: string): void {
    if (group.pendingSyncMembers.delete(memberId) && group.pendingSyncMembers.size === 0) {
      this.timer.cancel(syncKey(group.groupId));
    }
  }

  resetAssignmentsWithError(group: ClassicGroup, errorCode: number): void {
    for (const m of group.members.values()) {
      m.assignment = EMPTY_BUFFER;
      const sync = m.awaitingSync;
      m.awaitingSync = null;
      sync?.({ errorCode, protocolType: null, protocolName: null, assignment: EMPTY_BUFFER });
    }
  }

  /** After the leader's assignment is committed: every parked SyncGroup gets its share. */
  propagateAssignment(group: ClassicGroup, assignments: ReadonlyMap<string, Buffer>): void {
    for (const m of group.members.values()) {
      m.assignment = assignments.get(m.memberId) ?? EMPTY_BUFFER;
      const sync = m.awaitingSync;
      m.awaitingSync = null;
      if (sync !== undefined && sync !== null) {
        sync({
          errorCode: ErrorCode.NONE,
          protocolType: group.protocolType,
          protocolName: group.protocolName,
          assignment: m.assignment,
        });
        this.scheduleHeartbeat(group, m);
      }
    }
  }

  /** Cancels every timer of a group that is going away. */
  cancelGroupTimers(group: ClassicGroup): void {
    this.timer.cancel(joinKey(group.groupId));
    this.timer.cancel(syncKey(group.groupId));
    for (const id of group.members.keys()) this.timer.cancel(heartbeatKey(group.groupId, id));
    for (const id of group.pendingMembers) this.timer.cancel(heartbeatKey(group.groupId, id));
  }

  getOrCreate(groupId: string): ClassicGroup {
    let group = this.groups.get(groupId);
    if (group === undefined) {
      group = new ClassicGroup(groupId, this.now());
      this.groups.set(groupId, group);
    }
    return group;
  }
}
