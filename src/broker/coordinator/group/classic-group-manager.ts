// JoinGroup, SyncGroup, Heartbeat and LeaveGroup of the classic protocol, with Kafka's
// validation order and error codes. Each method runs as one coordinator operation and
// returns records (GroupMetadata) plus a response; JoinGroup/SyncGroup answers that must
// wait for other members are delivered through the `respond` callback instead.
import { ErrorCode } from '../../../protocol/errors.js';
import type { CoordinatorResult } from '../runtime/coordinator-shard.js';
import { type ClassicGroup, ClassicGroupMember } from './classic-group.js';
import { type GroupRecord, groupRecord } from './group-records.js';
import {
  EMPTY_BUFFER,
  type HeartbeatRequest,
  type JoinGroupRequest,
  type JoinGroupResult,
  type LeaveGroupResult,
  type LeaveMember,
  type RequestOrigin,
  type SyncGroupRequest,
  type SyncGroupResult,
} from './group-types.js';
import { OpEffects } from './op-effects.js';
import { heartbeatKey, joinError, RebalanceEngine } from './rebalance.js';

type Result<T> = CoordinatorResult<GroupRecord, T>;
type JoinCallback = (r: JoinGroupResult) => void;

const syncError = (errorCode: number): SyncGroupResult => ({
  errorCode,
  protocolType: null,
  protocolName: null,
  assignment: EMPTY_BUFFER,
});

export class ClassicGroupManager extends RebalanceEngine {
  join(origin: RequestOrigin, req: JoinGroupRequest, respond: JoinCallback): Result<void> {
    const fx = new OpEffects();
    const error = this.#join(fx, origin, req, respond);
    if (error !== ErrorCode.NONE) respond(joinError(error, req.memberId));
    return fx.toResult(undefined);
  }

  #join(fx: OpEffects, origin: RequestOrigin, req: JoinGroupRequest, respond: JoinCallback): number {
    if (req.groupId === '') return ErrorCode.INVALID_GROUP_ID;
    const { minSessionTimeoutMs, maxSessionTimeoutMs, maxSize } = this.config;
    if (req.sessionTimeoutMs < minSessionTimeoutMs || req.sessionTimeoutMs > maxSessionTimeoutMs) {
      return ErrorCode.INVALID_SESSION_TIMEOUT;
    }
    const unknownMember = req.memberId === '';
    const existing = this.groups.get(req.groupId);
    if (existing === undefined && !unknownMember) return ErrorCode.UNKNOWN_MEMBER_ID;
    const group = existing ?? this.getOrCreate(req.groupId);
    const dropIfNew = (code: number): number => {
      if (existing === undefined) this.groups.delete(req.groupId);
      return code;
    };
    if (!group.supportsProtocols(req.protocolType, req.protocols)) {
      return dropIfNew(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    }
    const known = group.members.has(req.memberId) || group.pendingMembers.has(req.memberId);
    const isStaticRejoin = req.groupInstanceId !== null && group.staticMembers.has(req.groupInstanceId);
    if (!known && !isStaticRejoin && group.members.size + group.pendingMembers.size >= maxSize) {
      return dropIfNew(ErrorCode.GROUP_MAX_SIZE_REACHED);
    }
    return unknownMember
      ? this.#newMemberJoin(fx, group, origin, req, respond)
      : this.#currentMemberJoin(fx, group, origin, req, respond);
  }

  #newMemberJoin(
    fx: OpEffects,
    group: ClassicGroup,
    origin: RequestOrigin,
    req: JoinGroupRequest,
    respond: JoinCallback,
  ): number {
    if (req.groupInstanceId !== null) {
      const oldMemberId = group.staticMembers.get(req.groupInstanceId);
      if (oldMemberId !== undefined)
        return this.#staticMemberRejoin(fx, group, oldMemberId, origin, req, respond);
      this.#addMemberAndRebalance(fx, group, this.newMemberId(origin.clientId), origin, req, respond);
      return ErrorCode.NONE;
    }
    const memberId = this.newMemberId(origin.clientId);
    if (origin.apiVersion >= 4) {
      // KIP-394: hand out the id first, so that a client whose JoinGroup times out does not
      // leave a defunct member behind; it must come back with this id within its session.
      group.pendingMembers.add(memberId);
      const { groupId } = group;
      this.timer.schedule(heartbeatKey(groupId, memberId), req.sessionTimeoutMs, () => {
        const timeoutFx = new OpEffects();
        this.expireHeartbeat(timeoutFx, groupId, memberId);
        return timeoutFx.toResult(undefined);
      });
      respond(joinError(ErrorCode.MEMBER_ID_REQUIRED, memberId));
      return ErrorCode.NONE;
    }
    this.#addMemberAndRebalance(fx, group, memberId, origin, req, respond);
    return ErrorCode.NONE;
  }

  #addMemberAndRebalance(
    fx: OpEffects,
    group: ClassicGroup,
    memberId: string,
    origin: RequestOrigin,
    req: JoinGroupRequest,
    respond: JoinCallback,
  ): void {
    const member = new ClassicGroupMember(
      memberId,
      req.groupInstanceId,
      origin.clientId,
      origin.clientHost,
      req.rebalanceTimeoutMs >= 0 ? req.rebalanceTimeoutMs : req.sessionTimeoutMs,
      req.sessionTimeoutMs,
      req.protocolType,
      req.protocols,
    );
    member.isNew = true;
    member.awaitingJoin = respond;
    if (group.is('PreparingRebalance') && group.initialJoin) group.newMemberAdded = true;
    group.pendingMembers.delete(memberId);
    group.add(member);
    // A new member cannot heartbeat while its JoinGroup is parked; if it vanishes, the
    // new-member join timeout removes it so it does not hold up the rebalance forever.
    this.scheduleHeartbeat(group, member, this.config.newMemberJoinTimeoutMs);
    this.maybePrepareRebalanceOrCompleteJoin(fx, group);
  }

  #staticMemberRejoin(
    fx: OpEffects,
    group: ClassicGroup,
    oldMemberId: string,
    origin: RequestOrigin,
    req: JoinGroupRequest,
    respond: JoinCallback,
  ): number {
    const old = group.members.get(oldMemberId);
    if (old === undefined) return ErrorCode.UNKNOWN_MEMBER_ID;
    // The instance restarted: it takes over the old member's slot (and assignment) under a
    // new id; whatever the old incarnation still has parked is fenced.
    const member = new ClassicGroupMember(
      this.newMemberId(origin.clientId),
      req.groupInstanceId,
      origin.clientId,
      origin.clientHost,
      old.rebalanceTimeoutMs,
      old.sessionTimeoutMs,
      old.protocolType,
      old.protocols,
    );
    member.assignment = old.assignment;
    const wasLeader = group.isLeader(oldMemberId);
    const oldJoin = old.awaitingJoin;
    const oldSync = old.awaitingSync;
    old.awaitingJoin = null;
    old.awaitingSync = null;
    this.timer.cancel(heartbeatKey(group.groupId, oldMemberId));
    group.remove(oldMemberId);
    group.add(member);
    if (wasLeader) group.leaderId = member.memberId;
    if (group.pendingSyncMembers.delete(oldMemberId)) group.pendingSyncMembers.add(member.memberId);
    oldJoin?.(joinError(ErrorCode.FENCED_INSTANCE_ID, oldMemberId));
    oldSync?.(syncError(ErrorCode.FENCED_INSTANCE_ID));
    this.scheduleHeartbeat(group, member);

    const previous = {
      protocols: member.protocols,
      rebalance: member.rebalanceTimeoutMs,
      session: member.sessionTimeoutMs,
    };
    this.#updateMember(member, origin, req);
    if (group.is('Stable')) {
      if (group.selectProtocol() !== group.protocolName) {
        member.awaitingJoin = respond;
        this.prepareRebalance(fx, group);
        return ErrorCode.NONE;
      }
      // Same protocol: no rebalance. Persist the new member id, then answer with the
      // current generation; the leader (v9+) is told to skip the assignment.
      const skipAssignment = wasLeader && origin.apiVersion >= 9;
      const generation = group.generationId;
      fx.write(groupRecord(group.groupId, group.toRecord()), (err) => {
        if (err !== null) {
          Object.assign(member, {
            protocols: previous.protocols,
            rebalanceTimeoutMs: previous.rebalance,
            sessionTimeoutMs: previous.session,
          });
          respond(joinError(ErrorCode.UNKNOWN_SERVER_ERROR, member.memberId));
          return;
        }
        respond({
          ...this.currentJoinResult(group, member, skipAssignment),
          generationId: generation,
          skipAssignment,
        });
      });
      return ErrorCode.NONE;
    }
    member.awaitingJoin = respond;
    if (group.is('CompletingRebalance')) this.prepareRebalance(fx, group);
    else this.maybeCompleteJoin(fx, group);
    return ErrorCode.NONE;
  }

  #currentMemberJoin(
    fx: OpEffects,
    group: ClassicGroup,
    origin: RequestOrigin,
    req: JoinGroupRequest,
    respond: JoinCallback,
  ): number {
    if (group.pendingMembers.has(req.memberId)) {
      this.#addMemberAndRebalance(fx, group, req.memberId, origin, req, respond);
      return ErrorCode.NONE;
    }
    const err = this.#validateMember(group, req.memberId, req.groupInstanceId);
    if (err !== ErrorCode.NONE) return err;
    const member = group.members.get(req.memberId) as ClassicGroupMember;
    switch (group.state) {
      case 'PreparingRebalance':
        this.#updateMemberThenRebalance(fx, group, member, origin, req, respond);
        return ErrorCode.NONE;
      case 'CompletingRebalance':
        // Same metadata: the member probably missed its JoinGroup answer; send it again.
        if (member.matches(req.protocols)) {
          respond(this.currentJoinResult(group, member, group.isLeader(member.memberId)));
        } else {
          this.#updateMemberThenRebalance(fx, group, member, origin, req, respond);
        }
        return ErrorCode.NONE;
      case 'Stable':
        // The leader rejoining forces a rebalance: that is how it reacts to metadata changes
        // (new partitions) that do not change any member's subscription.
        if (group.isLeader(member.memberId) || !member.matches(req.protocols)) {
          this.#updateMemberThenRebalance(fx, group, member, origin, req, respond);
        } else {
          this.scheduleHeartbeat(group, member);
          respond(this.currentJoinResult(group, member, false));
        }
        return ErrorCode.NONE;
      default:
        return ErrorCode.UNKNOWN_MEMBER_ID;
    }
  }

  #updateMember(member: ClassicGroupMember, origin: RequestOrigin, req: JoinGroupRequest): void {
    member.protocols = req.protocols;
    member.protocolType = req.protocolType;
    member.sessionTimeoutMs = req.sessionTimeoutMs;
    member.rebalanceTimeoutMs = req.rebalanceTimeoutMs >= 0 ? req.rebalanceTimeoutMs : req.sessionTimeoutMs;
    member.clientId = origin.clientId;
    member.clientHost = origin.clientHost;
  }

  #updateMemberThenRebalance(
    fx: OpEffects,
    group: ClassicGroup,
    member: ClassicGroupMember,
    origin: RequestOrigin,
    req: JoinGroupRequest,
    respond: JoinCallback,
  ): void {
    this.#updateMember(member, origin, req);
    // A JoinGroup re-sent while the previous one is still parked replaces it; the earlier
    // request must still get an answer (responses on a connection are in order).
    const previous = member.awaitingJoin;
    member.awaitingJoin = respond;
    previous?.(joinError(ErrorCode.REBALANCE_IN_PROGRESS, member.memberId));
    this.maybePrepareRebalanceOrCompleteJoin(fx, group);
  }

  /** Kafka's validateMember: a static instance id must map to this member id. */
  #validateMember(group: ClassicGroup, memberId: string, groupInstanceId: string | null): number {
    if (groupInstanceId !== null) {
      const current = group.staticMembers.get(groupInstanceId);
      if (current === undefined) return ErrorCode.UNKNOWN_MEMBER_ID;
      if (current !== memberId) return ErrorCode.FENCED_INSTANCE_ID;
      return ErrorCode.NONE;
    }
    return group.members.has(memberId) ? ErrorCode.NONE : ErrorCode.UNKNOWN_MEMBER_ID;
  }

  /** Shared by SyncGroup, Heartbeat and OffsetCommit. */
  validateGeneration(
    group: ClassicGroup,
    memberId: string,
    groupInstanceId: string | null,
    generationId: number,
  ): number {
    if (group.is('Dead')) return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    const err = this.#validateMember(group, memberId, groupInstanceId);
    if (err !== ErrorCode.NONE) return err;
    return generationId === group.generationId ? ErrorCode.NONE : ErrorCode.ILLEGAL_GENERATION;
  }

  sync(req: SyncGroupRequest, respond: (r: SyncGroupResult) => void): Result<void> {
    const fx = new OpEffects();
    const error = this.#sync(fx, req, respond);
    if (error !== ErrorCode.NONE) respond(syncError(error));
    return fx.toResult(undefined);
  }

  #sync(fx: OpEffects, req: SyncGroupRequest, respond: (r: SyncGroupResult) => void): number {
    if (req.groupId === '') return ErrorCode.INVALID_GROUP_ID;
    const group = this.groups.get(req.groupId);
    if (group === undefined) return ErrorCode.UNKNOWN_MEMBER_ID;
    const err = this.validateGeneration(group, req.memberId, req.groupInstanceId, req.generationId);
    if (err !== ErrorCode.NONE) return err;
    if (
      (req.protocolType !== null && req.protocolType !== group.protocolType) ||
      (req.protocolName !== null && req.protocolName !== group.protocolName)
    ) {
      return ErrorCode.INCONSISTENT_GROUP_PROTOCOL;
    }
    const member = group.members.get(req.memberId) as ClassicGroupMember;
    switch (group.state) {
      case 'PreparingRebalance':
        return ErrorCode.REBALANCE_IN_PROGRESS;
      case 'CompletingRebalance': {
        const previous = member.awaitingSync;
        member.awaitingSync = respond;
        previous?.(syncError(ErrorCode.REBALANCE_IN_PROGRESS));
        this.removePendingSync(group, member.memberId);
        if (group.isLeader(member.memberId)) this.#storeAssignment(fx, group, req);
        return ErrorCode.NONE;
      }
      case 'Stable':
        this.removePendingSync(group, member.memberId);
        this.scheduleHeartbeat(group, member);
        respond({
          errorCode: ErrorCode.NONE,
          protocolType: group.protocolType,
          protocolName: group.protocolName,
          assignment: member.assignment,
        });
        return ErrorCode.NONE;
      default:
        return ErrorCode.UNKNOWN_MEMBER_ID;
    }
  }

  /** The leader's assignment is written first; members get it once it is committed. */
  #storeAssignment(fx: OpEffects, group: ClassicGroup, req: SyncGroupRequest): void {
    const assignments = new Map<string, Buffer>();
    for (const a of req.assignments)
      if (group.members.has(a.memberId)) assignments.set(a.memberId, a.assignment);
    const value = group.toRecord();
    for (const m of value.members) m.assignment = assignments.get(m.memberId) ?? EMPTY_BUFFER;
    const generation = group.generationId;
    fx.write(groupRecord(group.groupId, value), (err) => {
      if (
        !group.is('CompletingRebalance') ||
        group.generationId !== generation ||
        this.groups.get(group.groupId) !== group
      ) {
        return;
      }
      if (err !== null) {
        this.resetAssignmentsWithError(group, ErrorCode.COORDINATOR_NOT_AVAILABLE);
        // The records of this rebalance (none) need not be written: start a new one.
        this.prepareRebalance(new OpEffects(), group);
        return;
      }
      this.propagateAssignment(group, assignments);
      group.transitionTo('Stable', this.now());
    });
  }

  heartbeat(req: HeartbeatRequest): Result<number> {
    const fx = new OpEffects();
    return fx.toResult(this.#heartbeat(req));
  }

  #heartbeat(req: HeartbeatRequest): number {
    if (req.groupId === '') return ErrorCode.INVALID_GROUP_ID;
    const group = this.groups.get(req.groupId);
    if (group === undefined) return ErrorCode.UNKNOWN_MEMBER_ID;
    const err = this.validateGeneration(group, req.memberId, req.groupInstanceId, req.generationId);
    if (err !== ErrorCode.NONE) return err;
    const member = group.members.get(req.memberId) as ClassicGroupMember;
    switch (group.state) {
      case 'PreparingRebalance':
        this.scheduleHeartbeat(group, member);
        return ErrorCode.REBALANCE_IN_PROGRESS;
      case 'CompletingRebalance':
      case 'Stable':
        this.scheduleHeartbeat(group, member);
        return ErrorCode.NONE;
      default:
        return ErrorCode.UNKNOWN_MEMBER_ID;
    }
  }

  leave(groupId: string, leaving: readonly LeaveMember[]): Result<LeaveGroupResult> {
    const fx = new OpEffects();
    if (groupId === '') return fx.toResult({ errorCode: ErrorCode.INVALID_GROUP_ID, members: [] });
    const group = this.groups.get(groupId);
    if (group === undefined) {
      return fx.toResult({
        errorCode: ErrorCode.NONE,
        members: leaving.map((m) => ({ ...m, errorCode: ErrorCode.UNKNOWN_MEMBER_ID })),
      });
    }
    if (group.is('Dead')) return fx.toResult({ errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, members: [] });
    let removedMember = false;
    let removedPending = false;
    const members = leaving.map((m) => {
      let memberId = m.memberId;
      if (memberId === '' && m.groupInstanceId !== null) {
        const current = group.staticMembers.get(m.groupInstanceId);
        if (current === undefined) return { ...m, errorCode: ErrorCode.UNKNOWN_MEMBER_ID };
        memberId = current;
      } else if (m.groupInstanceId !== null) {
        const err = this.#validateMember(group, memberId, m.groupInstanceId);
        if (err !== ErrorCode.NONE) return { ...m, errorCode: err };
      }
      if (group.pendingMembers.delete(memberId)) {
        this.timer.cancel(heartbeatKey(groupId, memberId));
        removedPending = true;
        return { ...m, errorCode: ErrorCode.NONE };
      }
      const member = group.members.get(memberId);
      if (member === undefined) return { ...m, errorCode: ErrorCode.UNKNOWN_MEMBER_ID };
      this.dropMember(group, member);
      removedMember = true;
      return { ...m, errorCode: ErrorCode.NONE };
    });
    if (removedMember) this.maybePrepareRebalanceOrCompleteJoin(fx, group);
    else if (removedPending) this.maybeCompleteJoin(fx, group);
    return fx.toResult({ errorCode: ErrorCode.NONE, members });
  }
}
