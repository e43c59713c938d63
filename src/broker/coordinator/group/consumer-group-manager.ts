// ConsumerGroupHeartbeat (KIP-848) on one __consumer_offsets shard, following Kafka's
// GroupMetadataManager: validate, find or create the group and the member (fencing stale
// epochs), persist subscription changes and bump the group epoch, recompute the target
// assignment when the group epoch moved past it, reconcile the member towards it, and arm
// the member's session (and, while it revokes, rebalance) timer. Every change is returned as
// records; nothing here mutates the groups except `replay`. Steps 1–3 (`updateAndReconcile`)
// are shared with the JoinGroup of a classic member (consumer-group-classic.ts); turning a
// classic group into a consumer group and back is group-migration.ts's, through `migration`.
import { randomUUID } from 'node:crypto';
import { ErrorCode } from '../../../protocol/errors.js';
import type { ConsumerGroupRecord } from '../../../protocol/internal-topics/consumer-group-records.js';
import type { Clock } from '../runtime/clock.js';
import type { CoordinatorResult, CoordinatorTimer } from '../runtime/coordinator-shard.js';
import type { ServerAssignor } from './assignors/assignor.js';
import { rangeAssignor } from './assignors/range.js';
import { uniformAssignor } from './assignors/uniform.js';
import { ConsumerGroup } from './consumer-group.js';
import {
  currentAssignmentRecord,
  fail,
  memberMetadataRecord,
  ownsSubset,
  rec,
  removeMemberRecords,
  targetMemberRecord,
  validateHeartbeat,
} from './consumer-group-heartbeat-parts.js';
import {
  type Assignment,
  assignmentEquals,
  type ConsumerGroupMember,
  currentAssignmentEquals,
  EMPTY_ASSIGNMENT,
  LEAVE_GROUP_MEMBER_EPOCH,
  LEAVE_GROUP_STATIC_MEMBER_EPOCH,
  MemberState,
  newMember,
  subscriptionEquals,
  toEntries,
  usesClassicProtocol,
} from './consumer-group-member.js';
import { ConsumerGroupTargets, metadataRecord, sameMetadata } from './consumer-group-targets.js';
import { ConsumerGroupTimers } from './consumer-group-timers.js';
import {
  type ConsumerHeartbeatRequest,
  type ConsumerHeartbeatResult,
  EMPTY_CATALOG,
  GroupOpError,
  type TopicCatalog,
} from './consumer-group-types.js';
import { FencedMemberError, type OwnedPartitions, reconcile } from './current-assignment-builder.js';
import type { GroupConfig } from './group-config.js';
import { type GroupRecord, groupRecord } from './group-records.js';

type Result<T> = CoordinatorResult<GroupRecord, T>;

const ALL_ASSIGNORS: readonly ServerAssignor[] = [uniformAssignor, rangeAssignor];

/** What the manager needs of the classic side of the shard (group-migration.ts). */
export interface GroupMigrationHooks {
  /** Undefined when no classic group has this id; else whether it is empty (may be replaced). */
  classicGroupIsEmpty(groupId: string): boolean | undefined;
  /**
   * Online upgrade of the non-empty classic group `groupId` (its tombstone and the new group's
   * records go to `records`): the consumer group it becomes, or GROUP_ID_NOT_FOUND.
   */
  upgrade(groupId: string, records: GroupRecord[]): ConsumerGroup;
  /**
   * Online downgrade when `leavingMemberId`, the last member using ConsumerGroupHeartbeat, leaves
   * (or is replaced by the classic static member `joining`): true once the group became classic
   * (its state changed in memory, `records` persist it), false when the policy or the sizes say no.
   */
  downgrade(
    group: ConsumerGroup,
    leavingMemberId: string,
    joining: ConsumerGroupMember | null,
    records: GroupRecord[],
  ): boolean;
}

const NO_MIGRATION: GroupMigrationHooks = {
  classicGroupIsEmpty: () => undefined,
  upgrade: (id) => fail(ErrorCode.GROUP_ID_NOT_FOUND, `Group ${id} is not a consumer group.`),
  downgrade: () => false,
};

export interface MemberUpdate {
  group: ConsumerGroup;
  /** The member as the group knows it (or a new one), and as the request would leave it. */
  member: ConsumerGroupMember;
  updated: ConsumerGroupMember;
  /** The static member `updated` takes over (its records already written), if any. */
  replaced: ConsumerGroupMember | undefined;
  isNew: boolean;
  owned: OwnedPartitions;
  records: GroupRecord[];
}

export class ConsumerGroupManager {
  readonly groups = new Map<string, ConsumerGroup>();
  readonly assignors: ServerAssignor[];
  readonly timers: ConsumerGroupTimers;
  readonly targets: ConsumerGroupTargets;
  catalog: TopicCatalog = EMPTY_CATALOG;
  migration: GroupMigrationHooks = NO_MIGRATION;
  newMemberId: () => string = randomUUID;

  constructor(
    readonly config: GroupConfig,
    readonly clock: Clock,
    timer: CoordinatorTimer<GroupRecord>,
  ) {
    const byName = new Map(ALL_ASSIGNORS.map((a) => [a.name, a]));
    this.assignors = config.consumerAssignors
      .map((n) => byName.get(n))
      .filter((a): a is ServerAssignor => a !== undefined);
    if (this.assignors.length === 0) this.assignors.push(uniformAssignor);
    this.timers = new ConsumerGroupTimers(timer, (g, m, epoch) => this.#fenceOp(g, m, epoch));
    this.targets = new ConsumerGroupTargets(this.assignors, () => this.catalog);
  }

  replay(r: ConsumerGroupRecord): void {
    let group = this.groups.get(r.groupId);
    if (r.type === 'group-epoch' && r.value === null) {
      this.groups.delete(r.groupId);
      return;
    }
    if (group === undefined) {
      if (r.value === null) return;
      group = new ConsumerGroup(r.groupId);
      this.groups.set(r.groupId, group);
    }
    group.replay(r);
  }

  /**
   * After a load: every member gets a fresh session, revoking members their rebalance timer. As
   * in Kafka the session is the group's (group.consumer.session.timeout.ms) for classic members
   * too, until their next heartbeat: a client whose coordinator just moved may take a while to
   * find the new one.
   */
  onLoaded(): void {
    for (const g of this.groups.values()) {
      for (const m of g.members.values()) {
        this.timers.session(g.groupId, m.memberId, this.config.consumerSessionTimeoutMs);
        if (m.state === MemberState.UNREVOKED_PARTITIONS && !usesClassicProtocol(m))
          this.timers.rebalance(g.groupId, m.memberId, m.memberEpoch, m.rebalanceTimeoutMs);
      }
    }
  }

  /** A member's session: a classic member's own JoinGroup session timeout, else the group's. */
  scheduleSession(groupId: string, m: ConsumerGroupMember): void {
    const ms = m.classicMemberMetadata?.sessionTimeoutMs ?? this.config.consumerSessionTimeoutMs;
    this.timers.session(groupId, m.memberId, ms);
  }

  heartbeat(
    req: ConsumerHeartbeatRequest,
    origin: { clientId: string; clientHost: string },
    apiVersion: number,
  ): Result<ConsumerHeartbeatResult> {
    try {
      validateHeartbeat(req, apiVersion, this.assignors);
      if (req.memberEpoch === LEAVE_GROUP_MEMBER_EPOCH || req.memberEpoch === LEAVE_GROUP_STATIC_MEMBER_EPOCH)
        return this.#leave(req);
      return this.#heartbeat(req, origin);
    } catch (err) {
      if (!(err instanceof GroupOpError)) throw err;
      return {
        records: [],
        response: {
          errorCode: err.code,
          errorMessage: err.message,
          memberId: null,
          memberEpoch: 0,
          heartbeatIntervalMs: 0,
          assignment: null,
        },
      };
    }
  }

  /** The consumer group `groupId`, or GROUP_ID_NOT_FOUND (also when it is a classic group). */
  group(groupId: string): ConsumerGroup {
    const g = this.groups.get(groupId);
    if (g === undefined) fail(ErrorCode.GROUP_ID_NOT_FOUND, `Group ${groupId} not found.`);
    return g;
  }

  /** Kafka's getOrMaybeCreateConsumerGroup: an empty classic group is replaced, a non-empty one upgraded. */
  #getOrMaybeCreate(groupId: string, create: boolean, records: GroupRecord[]): ConsumerGroup {
    const existing = this.groups.get(groupId);
    if (existing !== undefined) return existing;
    const classicEmpty = this.migration.classicGroupIsEmpty(groupId);
    if (classicEmpty === undefined) {
      if (!create) fail(ErrorCode.GROUP_ID_NOT_FOUND, `Consumer group ${groupId} not found.`);
      return new ConsumerGroup(groupId);
    }
    if (!create) fail(ErrorCode.GROUP_ID_NOT_FOUND, `Group ${groupId} is not a consumer group.`);
    if (classicEmpty) {
      records.push(groupRecord(groupId, null));
      return new ConsumerGroup(groupId);
    }
    return this.migration.upgrade(groupId, records);
  }

  /** Kafka's throwIfConsumerGroupIsFull: a member not in the group yet is refused at the maximum. */
  checkCapacity(group: ConsumerGroup, memberId: string): void {
    if (
      group.members.size >= this.config.consumerMaxSize &&
      (memberId === '' || !group.members.has(memberId))
    )
      fail(
        ErrorCode.GROUP_MAX_SIZE_REACHED,
        `The consumer group has reached its maximum capacity of ${this.config.consumerMaxSize} members.`,
      );
  }

  #heartbeat(
    req: ConsumerHeartbeatRequest,
    origin: { clientId: string; clientHost: string },
  ): Result<ConsumerHeartbeatResult> {
    const records: GroupRecord[] = [];
    const create = req.memberEpoch === 0;
    const group = this.#getOrMaybeCreate(req.groupId, create, records);
    const { groupId } = group;
    this.checkCapacity(group, req.memberId);
    const memberId = req.memberId === '' ? this.newMemberId() : req.memberId;
    let replaced: ConsumerGroupMember | undefined;
    let member: ConsumerGroupMember;
    if (req.instanceId === null) {
      const found = group.members.get(memberId);
      if (found === undefined && !create)
        fail(ErrorCode.UNKNOWN_MEMBER_ID, `Member ${memberId} is not a member of group ${groupId}.`);
      member = found ?? newMember(memberId);
      this.#checkEpoch(member, req);
    } else if (create) {
      const holder = group.staticMember(req.instanceId);
      if (holder === undefined) member = group.members.get(memberId) ?? newMember(memberId);
      else {
        // A classic static member may always be replaced; one using this protocol only after
        // it left with epoch -2.
        if (holder.memberEpoch !== LEAVE_GROUP_STATIC_MEMBER_EPOCH && !usesClassicProtocol(holder))
          fail(
            ErrorCode.UNRELEASED_INSTANCE_ID,
            `Static member ${memberId} with instance id ${req.instanceId} cannot join the group because the instance id is owned by ${holder.memberId} member.`,
          );
        replaced = holder;
        member = { ...holder, memberId, memberEpoch: 0, previousMemberEpoch: 0 };
        records.push(...this.replaceRecords(group, holder, member));
      }
    } else {
      member = this.staticMemberOf(group, req.instanceId, memberId);
      this.#checkEpoch(member, req);
    }
    const isNew = !group.members.has(memberId) && replaced === undefined;
    const updated: ConsumerGroupMember = {
      ...member,
      instanceId: req.instanceId ?? member.instanceId,
      rackId: req.rackId ?? member.rackId,
      rebalanceTimeoutMs: req.rebalanceTimeoutMs !== -1 ? req.rebalanceTimeoutMs : member.rebalanceTimeoutMs,
      serverAssignor: req.serverAssignor ?? member.serverAssignor,
      subscribedTopicNames: req.subscribedTopicNames ?? member.subscribedTopicNames,
      subscribedTopicRegex: req.subscribedTopicRegex ?? member.subscribedTopicRegex,
      clientId: origin.clientId,
      clientHost: origin.clientHost,
      // A member that heartbeats uses this protocol, whatever it joined with.
      classicMemberMetadata: null,
    };
    const reconciled = this.updateAndReconcile({
      group,
      member,
      updated,
      replaced,
      isNew,
      owned: req.topicPartitions,
      records,
    });
    this.scheduleSession(groupId, reconciled);
    if (replaced !== undefined && replaced.memberId !== memberId)
      this.timers.cancelAll(groupId, replaced.memberId);

    const full =
      req.memberEpoch === 0 ||
      (req.rebalanceTimeoutMs !== -1 && req.subscribedTopicNames !== null && req.topicPartitions !== null);
    const changed = !assignmentEquals(member.assignedPartitions, reconciled.assignedPartitions);
    return {
      records,
      response: {
        errorCode: ErrorCode.NONE,
        errorMessage: null,
        memberId,
        memberEpoch: reconciled.memberEpoch,
        heartbeatIntervalMs: this.config.consumerHeartbeatIntervalMs,
        assignment: full || changed ? toEntries(reconciled.assignedPartitions) : null,
      },
    };
  }

  /** The static member holding `instanceId`, which must be `memberId` (UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID). */
  staticMemberOf(group: ConsumerGroup, instanceId: string, memberId: string): ConsumerGroupMember {
    const holder = group.staticMember(instanceId);
    if (holder === undefined) fail(ErrorCode.UNKNOWN_MEMBER_ID, `Instance id ${instanceId} is unknown.`);
    if (holder.memberId !== memberId)
      fail(
        ErrorCode.FENCED_INSTANCE_ID,
        `Static member ${memberId} with instance id ${instanceId} was fenced by member ${holder.memberId}.`,
      );
    return holder;
  }

  /** Kafka's replaceMember: the new static incarnation takes the old one's target assignment. */
  replaceRecords(
    group: ConsumerGroup,
    old: ConsumerGroupMember,
    updated: ConsumerGroupMember,
  ): GroupRecord[] {
    const { groupId } = group;
    return [
      ...removeMemberRecords(groupId, old.memberId),
      memberMetadataRecord(groupId, updated),
      targetMemberRecord(
        groupId,
        updated.memberId,
        group.targetAssignment.get(old.memberId) ?? EMPTY_ASSIGNMENT,
      ),
      currentAssignmentRecord(groupId, updated),
    ];
  }

  /**
   * Kafka's heartbeat steps 1–3: persist the member's subscription (bumping the group epoch when
   * it, or the subscribed topics' metadata, changed), recompute the target assignment when the
   * group epoch moved past it, and reconcile the member towards it. Returns the reconciled member.
   */
  updateAndReconcile(u: MemberUpdate): ConsumerGroupMember {
    const { group, member, updated, replaced, isNew, records } = u;
    const { groupId } = group;
    let bump = isNew;
    if (isNew || !subscriptionEquals(member, updated)) {
      records.push(memberMetadataRecord(groupId, updated));
      const names = member.subscribedTopicNames;
      if (
        names.length !== updated.subscribedTopicNames.length ||
        names.some((n, i) => n !== updated.subscribedTopicNames[i])
      )
        bump = true;
      if (member.subscribedTopicRegex !== updated.subscribedTopicRegex) bump = true;
    }
    let groupEpoch = group.groupEpoch;
    const metadata = this.targets.subscriptionMetadata(group, { old: replaced ?? member, updated });
    if (!sameMetadata(metadata, group.subscriptionMetadata)) {
      bump = true;
      records.push(metadataRecord(groupId, metadata));
    }
    if (bump) {
      groupEpoch += 1;
      records.push(rec({ type: 'group-epoch', groupId, value: { epoch: groupEpoch } }));
    }

    let targetEpoch = group.assignmentEpoch;
    let target: Assignment;
    if (groupEpoch > group.assignmentEpoch) {
      target = this.targets.updateTarget(group, groupEpoch, updated, replaced, metadata, records);
      targetEpoch = groupEpoch;
    } else {
      // A returning static member inherits the target of the member it replaces.
      target =
        group.targetAssignment.get(updated.memberId) ??
        (replaced !== undefined ? group.targetAssignment.get(replaced.memberId) : undefined) ??
        EMPTY_ASSIGNMENT;
    }

    if (updated.state === MemberState.STABLE && updated.memberEpoch === targetEpoch && !isNew) return updated;
    let reconciled: ConsumerGroupMember;
    try {
      reconciled = reconcile({
        member: updated,
        targetEpoch,
        target,
        partitionEpoch: (t, p) => group.partitionEpoch(t, p),
        owned: u.owned,
      });
    } catch (err) {
      if (err instanceof FencedMemberError) fail(ErrorCode.FENCED_MEMBER_EPOCH, err.message);
      throw err;
    }
    if (isNew || replaced !== undefined || !currentAssignmentEquals(updated, reconciled)) {
      records.push(currentAssignmentRecord(groupId, reconciled));
      // Classic members have join and sync timeouts instead of a rebalance timeout.
      if (!usesClassicProtocol(reconciled)) {
        if (reconciled.state === MemberState.UNREVOKED_PARTITIONS)
          this.timers.rebalance(
            groupId,
            reconciled.memberId,
            reconciled.memberEpoch,
            reconciled.rebalanceTimeoutMs,
          );
        else this.timers.cancelRebalance(groupId, reconciled.memberId);
      }
    }
    return reconciled;
  }

  /** Kafka's throwIfConsumerGroupMemberEpochIsInvalid. */
  #checkEpoch(member: ConsumerGroupMember, req: ConsumerHeartbeatRequest): void {
    const received = req.memberEpoch;
    if (received > member.memberEpoch)
      fail(
        ErrorCode.FENCED_MEMBER_EPOCH,
        `The consumer group member has a greater member epoch (${received}) than the one known by the group coordinator (${member.memberEpoch}). The member must abandon all its partitions and rejoin.`,
      );
    if (received < member.memberEpoch) {
      // The response that bumped the epoch may have been lost: the previous epoch is accepted
      // if the member owns nothing beyond its current assignment.
      if (
        received !== member.previousMemberEpoch ||
        !ownsSubset(req.topicPartitions, member.assignedPartitions)
      )
        fail(
          ErrorCode.FENCED_MEMBER_EPOCH,
          `The consumer group member has a smaller member epoch (${received}) than the one known by the group coordinator (${member.memberEpoch}). The member must abandon all its partitions and rejoin.`,
        );
    }
  }

  #leave(req: ConsumerHeartbeatRequest): Result<ConsumerHeartbeatResult> {
    const group = this.group(req.groupId);
    const response: ConsumerHeartbeatResult = {
      errorCode: ErrorCode.NONE,
      errorMessage: null,
      memberId: req.memberId,
      memberEpoch: req.memberEpoch,
      heartbeatIntervalMs: 0,
      assignment: null,
    };
    if (req.instanceId === null) {
      const m = group.members.get(req.memberId);
      if (m === undefined)
        fail(
          ErrorCode.UNKNOWN_MEMBER_ID,
          `Member ${req.memberId} is not a member of group ${group.groupId}.`,
        );
      return this.fence(group, m, response);
    }
    const m = this.staticMemberOf(group, req.instanceId, req.memberId);
    if (req.memberEpoch === LEAVE_GROUP_MEMBER_EPOCH) return this.fence(group, m, response);
    // A static member leaving temporarily keeps its partitions (nobody else gets them) until
    // it comes back under a new member id or its session expires.
    const away: ConsumerGroupMember = {
      ...m,
      memberEpoch: LEAVE_GROUP_STATIC_MEMBER_EPOCH,
      partitionsPendingRevocation: EMPTY_ASSIGNMENT,
    };
    return {
      records: [currentAssignmentRecord(group.groupId, away)],
      response: { ...response, memberId: m.memberId },
    };
  }

  /**
   * Removes a member and bumps the group epoch so the others get its partitions (Kafka's
   * consumerGroupFenceMember) — or, when only classic members would be left and the policy
   * allows, turns the group back into a classic group (its state then changed in memory).
   */
  fence<T>(group: ConsumerGroup, m: ConsumerGroupMember, response: T): Result<T> {
    const records: GroupRecord[] = [];
    if (this.migration.downgrade(group, m.memberId, null, records))
      return { records, response, replayRecords: false };
    records.push(...this.removeRecords(group, [m]));
    return { records, response };
  }

  /** Tombstones of `leaving`, the subscription metadata without them, and a group epoch bump. */
  removeRecords(group: ConsumerGroup, leaving: readonly ConsumerGroupMember[]): GroupRecord[] {
    const records: GroupRecord[] = [];
    for (const m of leaving) {
      records.push(...removeMemberRecords(group.groupId, m.memberId));
      this.timers.cancelAll(group.groupId, m.memberId);
    }
    const gone = new Set(leaving.map((m) => m.memberId));
    const remaining = new ConsumerGroup(group.groupId);
    for (const [id, m] of group.members) if (!gone.has(id)) remaining.members.set(id, m);
    const metadata = this.targets.subscriptionMetadata(remaining);
    if (!sameMetadata(metadata, group.subscriptionMetadata))
      records.push(metadataRecord(group.groupId, metadata));
    records.push(
      rec({ type: 'group-epoch', groupId: group.groupId, value: { epoch: group.groupEpoch + 1 } }),
    );
    return records;
  }

  #fenceOp(groupId: string, memberId: string, epoch?: number): Result<undefined> {
    const group = this.groups.get(groupId);
    const m = group?.members.get(memberId);
    if (group === undefined || m === undefined) return { records: [], response: undefined };
    if (epoch !== undefined && m.memberEpoch !== epoch) return { records: [], response: undefined };
    return this.fence(group, m, undefined);
  }

  /** Tombstones for every record of a group (DeleteGroups, offset expiry, a downgrade). */
  deleteGroupRecords(group: ConsumerGroup): GroupRecord[] {
    const records: GroupRecord[] = [];
    for (const id of group.members.keys()) records.push(...removeMemberRecords(group.groupId, id));
    for (const id of group.targetAssignment.keys())
      if (!group.members.has(id)) records.push(targetMemberRecord(group.groupId, id, null));
    records.push(rec({ type: 'target-epoch', groupId: group.groupId, value: null }));
    records.push(rec({ type: 'subscription-metadata', groupId: group.groupId, value: null }));
    records.push(rec({ type: 'group-epoch', groupId: group.groupId, value: null }));
    return records;
  }

  /** Topics the group's members subscribe to (by name or regex), for offset retention/OffsetDelete. */
  subscribedTopics(group: ConsumerGroup): Set<string> {
    return new Set(group.subscriptionMetadata.keys());
  }

  /** The assignor a describe reports: the one the group would use now. */
  assignorName(group: ConsumerGroup): string {
    return this.targets.preferredAssignor(group.members.values()).name;
  }
}
