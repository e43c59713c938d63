// ConsumerGroupHeartbeat (KIP-848) on one __consumer_offsets shard, following Kafka's
// GroupMetadataManager: validate, find or create the group and the member (fencing stale
// epochs), persist subscription changes and bump the group epoch, recompute the target
// assignment when the group epoch moved past it, reconcile the member towards it, and arm
// the member's session (and, while it revokes, rebalance) timer. Every change is returned as
// records; nothing here mutates the groups except `replay`.
import { randomUUID } from 'node:crypto';
import { ErrorCode } from '../../../protocol/errors.js';
import type { ConsumerGroupRecord } from '../../../protocol/internal-topics/consumer-group-records.js';
import type { Clock } from '../runtime/clock.js';
import type { CoordinatorResult, CoordinatorTimer } from '../runtime/coordinator-shard.js';
import type { ServerAssignor } from './assignors/assignor.js';
import { rangeAssignor } from './assignors/range.js';
import { uniformAssignor } from './assignors/uniform.js';
import { ConsumerGroup, type SubscribedTopic } from './consumer-group.js';
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
} from './consumer-group-member.js';
import { compileTopicRegex } from './consumer-group-regex.js';
import {
  type ConsumerHeartbeatRequest,
  type ConsumerHeartbeatResult,
  EMPTY_CATALOG,
  GroupOpError,
  type TopicCatalog,
} from './consumer-group-types.js';
import { FencedMemberError, reconcile } from './current-assignment-builder.js';
import type { GroupConfig } from './group-config.js';
import { type GroupRecord, groupRecord } from './group-records.js';

type Result<T> = CoordinatorResult<GroupRecord, T>;

const ALL_ASSIGNORS: readonly ServerAssignor[] = [uniformAssignor, rangeAssignor];

const sessionKey = (g: string, m: string) => `cg-session\u0000${g}\u0000${m}`;
const rebalanceKey = (g: string, m: string) => `cg-rebalance\u0000${g}\u0000${m}`;

export interface ClassicGroupsView {
  /** Undefined when no classic group has this id; else whether it is empty (may be replaced). */
  classicGroupIsEmpty(groupId: string): boolean | undefined;
}

export class ConsumerGroupManager {
  readonly groups = new Map<string, ConsumerGroup>();
  readonly assignors: ServerAssignor[];
  catalog: TopicCatalog = EMPTY_CATALOG;
  newMemberId: () => string = randomUUID;

  constructor(
    readonly config: GroupConfig,
    readonly clock: Clock,
    readonly timer: CoordinatorTimer<GroupRecord>,
    readonly classic: ClassicGroupsView,
  ) {
    const byName = new Map(ALL_ASSIGNORS.map((a) => [a.name, a]));
    this.assignors = config.consumerAssignors
      .map((n) => byName.get(n))
      .filter((a): a is ServerAssignor => a !== undefined);
    if (this.assignors.length === 0) this.assignors.push(uniformAssignor);
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

  /** After a load: every member gets a fresh session; revoking members their rebalance timer. */
  onLoaded(): void {
    for (const g of this.groups.values()) {
      for (const m of g.members.values()) {
        this.#scheduleSession(g.groupId, m.memberId);
        if (m.state === MemberState.UNREVOKED_PARTITIONS)
          this.#scheduleRebalance(g.groupId, m.memberId, m.memberEpoch, m.rebalanceTimeoutMs);
      }
    }
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

  #getOrMaybeCreate(groupId: string, create: boolean, records: GroupRecord[]): ConsumerGroup {
    const existing = this.groups.get(groupId);
    if (existing !== undefined) return existing;
    const classicEmpty = this.classic.classicGroupIsEmpty(groupId);
    if (classicEmpty === undefined) {
      if (!create) fail(ErrorCode.GROUP_ID_NOT_FOUND, `Consumer group ${groupId} not found.`);
      return new ConsumerGroup(groupId);
    }
    // An empty classic group (or one known only by its offsets) becomes a consumer group; a
    // classic group with members stays classic (no online upgrade here).
    if (create && classicEmpty) {
      records.push(groupRecord(groupId, null));
      return new ConsumerGroup(groupId);
    }
    fail(ErrorCode.GROUP_ID_NOT_FOUND, `Group ${groupId} is not a consumer group.`);
  }

  #heartbeat(
    req: ConsumerHeartbeatRequest,
    origin: { clientId: string; clientHost: string },
  ): Result<ConsumerHeartbeatResult> {
    const records: GroupRecord[] = [];
    const create = req.memberEpoch === 0;
    const group = this.#getOrMaybeCreate(req.groupId, create, records);
    const { groupId } = group;
    if (
      group.members.size >= this.config.consumerMaxSize &&
      (req.memberId === '' || !group.members.has(req.memberId))
    )
      fail(
        ErrorCode.GROUP_MAX_SIZE_REACHED,
        `The consumer group has reached its maximum capacity of ${this.config.consumerMaxSize} members.`,
      );
    const memberId = req.memberId === '' ? this.newMemberId() : req.memberId;
    let replaced: ConsumerGroupMember | undefined;
    let member: ConsumerGroupMember;
    if (req.instanceId === null) {
      const found = group.members.get(memberId);
      if (found === undefined && !create)
        fail(ErrorCode.UNKNOWN_MEMBER_ID, `Member ${memberId} is not a member of group ${groupId}.`);
      member = found ?? newMember(memberId);
      this.#checkEpoch(member, req);
    } else {
      const holder = group.staticMember(req.instanceId);
      if (create) {
        if (holder === undefined) member = group.members.get(memberId) ?? newMember(memberId);
        else {
          if (holder.memberEpoch !== LEAVE_GROUP_STATIC_MEMBER_EPOCH)
            fail(
              ErrorCode.UNRELEASED_INSTANCE_ID,
              `Static member ${memberId} with instance id ${req.instanceId} cannot join the group because the instance id is owned by ${holder.memberId} member.`,
            );
          // The returning static member takes over the old one's assignment under its new id.
          replaced = holder;
          member = { ...holder, memberId, memberEpoch: 0, previousMemberEpoch: 0 };
          records.push(...removeMemberRecords(groupId, holder.memberId));
          records.push(memberMetadataRecord(groupId, member));
          records.push(
            targetMemberRecord(
              groupId,
              memberId,
              group.targetAssignment.get(holder.memberId) ?? EMPTY_ASSIGNMENT,
            ),
          );
          records.push(currentAssignmentRecord(groupId, member));
        }
      } else {
        if (holder === undefined)
          fail(ErrorCode.UNKNOWN_MEMBER_ID, `Instance id ${req.instanceId} is unknown.`);
        if (holder.memberId !== memberId)
          fail(
            ErrorCode.FENCED_INSTANCE_ID,
            `Static member ${memberId} with instance id ${req.instanceId} was fenced by member ${holder.memberId}.`,
          );
        this.#checkEpoch(holder, req);
        member = holder;
      }
    }
    const isNew = !group.members.has(memberId) && replaced === undefined;

    // 1. Subscription.
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
    };
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
    const replace = { old: replaced ?? member, updated };
    const metadata = this.#subscriptionMetadata(group, replace);
    if (!sameMetadata(metadata, group.subscriptionMetadata)) {
      bump = true;
      records.push(
        rec({
          type: 'subscription-metadata',
          groupId,
          value: {
            topics: [...metadata.values()].map((t) => ({
              topicId: t.topicId,
              topicName: t.topicName,
              numPartitions: t.numPartitions,
            })),
          },
        }),
      );
    }
    if (bump) {
      groupEpoch += 1;
      records.push(rec({ type: 'group-epoch', groupId, value: { epoch: groupEpoch } }));
    }

    // 2. Target assignment.
    let targetEpoch = group.assignmentEpoch;
    let target: Assignment;
    if (groupEpoch > group.assignmentEpoch) {
      target = this.#updateTarget(group, groupEpoch, updated, replaced, metadata, records);
      targetEpoch = groupEpoch;
    } else {
      // A returning static member inherits the target of the member it replaces.
      target =
        group.targetAssignment.get(memberId) ??
        (replaced !== undefined ? group.targetAssignment.get(replaced.memberId) : undefined) ??
        EMPTY_ASSIGNMENT;
    }

    // 3. Reconciliation.
    let reconciled = updated;
    if (!(updated.state === MemberState.STABLE && updated.memberEpoch === targetEpoch) || isNew) {
      try {
        reconciled = reconcile({
          member: updated,
          targetEpoch,
          target,
          partitionEpoch: (t, p) => group.partitionEpoch(t, p),
          owned: req.topicPartitions,
        });
      } catch (err) {
        if (err instanceof FencedMemberError) fail(ErrorCode.FENCED_MEMBER_EPOCH, err.message);
        throw err;
      }
      if (isNew || replaced !== undefined || !currentAssignmentEquals(updated, reconciled)) {
        records.push(currentAssignmentRecord(groupId, reconciled));
        if (reconciled.state === MemberState.UNREVOKED_PARTITIONS)
          this.#scheduleRebalance(groupId, memberId, reconciled.memberEpoch, reconciled.rebalanceTimeoutMs);
        else this.timer.cancel(rebalanceKey(groupId, memberId));
      }
    }
    this.#scheduleSession(groupId, memberId);
    if (replaced !== undefined && replaced.memberId !== memberId)
      this.#cancelTimers(groupId, replaced.memberId);

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

  /** Topics subscribed by name or matched by a regex that exist, by name. */
  #subscriptionMetadata(
    group: ConsumerGroup,
    replace?: { old?: ConsumerGroupMember; updated?: ConsumerGroupMember },
  ): Map<string, SubscribedTopic> {
    const names = group.subscribedTopicNames(replace);
    for (const source of group.subscribedRegexes(replace)) {
      const re = compileTopicRegex(source);
      if (!re.ok) continue;
      for (const t of this.catalog.names()) if (re.test(t)) names.add(t);
    }
    const out = new Map<string, SubscribedTopic>();
    for (const name of [...names].sort()) {
      const t = this.catalog.byName(name);
      if (t !== undefined && t.numPartitions > 0)
        out.set(name, { topicId: t.topicId, topicName: name, numPartitions: t.numPartitions });
    }
    return out;
  }

  /** The topic ids a member subscribes to, among the group's subscription metadata. */
  #memberTopicIds(m: ConsumerGroupMember, metadata: ReadonlyMap<string, SubscribedTopic>): Set<string> {
    const ids = new Set<string>();
    for (const n of m.subscribedTopicNames) {
      const t = metadata.get(n);
      if (t !== undefined) ids.add(t.topicId);
    }
    if (m.subscribedTopicRegex !== null && m.subscribedTopicRegex !== '') {
      const re = compileTopicRegex(m.subscribedTopicRegex);
      if (re.ok) for (const [name, t] of metadata) if (re.test(name)) ids.add(t.topicId);
    }
    return ids;
  }

  /** The assignor most members asked for (Kafka's computePreferredServerAssignor), else the default. */
  #preferredAssignor(members: Iterable<ConsumerGroupMember>): ServerAssignor {
    const counts = new Map<string, number>();
    for (const m of members)
      if (m.serverAssignor !== null) counts.set(m.serverAssignor, (counts.get(m.serverAssignor) ?? 0) + 1);
    let best: string | undefined;
    for (const [name, n] of counts) if (best === undefined || n > counts.get(best)!) best = name;
    return this.assignors.find((a) => a.name === best) ?? this.assignors[0]!;
  }

  #updateTarget(
    group: ConsumerGroup,
    groupEpoch: number,
    updated: ConsumerGroupMember,
    replaced: ConsumerGroupMember | undefined,
    metadata: ReadonlyMap<string, SubscribedTopic>,
    records: GroupRecord[],
  ): Assignment {
    const members = new Map(group.members);
    if (replaced !== undefined) members.delete(replaced.memberId);
    members.set(updated.memberId, updated);
    const topics = new Map(
      [...metadata.values()].map((t) => [t.topicId, { name: t.topicName, numPartitions: t.numPartitions }]),
    );
    const spec = {
      topics,
      members: new Map(
        [...members.values()].map((m) => [
          m.memberId,
          {
            subscribedTopicIds: this.#memberTopicIds(m, metadata),
            assignment:
              group.targetAssignment.get(m.memberId) ??
              (replaced !== undefined && m.memberId === updated.memberId
                ? (group.targetAssignment.get(replaced.memberId) ?? EMPTY_ASSIGNMENT)
                : EMPTY_ASSIGNMENT),
          },
        ]),
      ),
    };
    const assignor = this.#preferredAssignor(members.values());
    const result = assignor.assign(spec);
    for (const [memberId, a] of result) {
      const old = group.targetAssignment.get(memberId);
      if (
        old === undefined ||
        !assignmentEquals(old, a) ||
        (replaced !== undefined && memberId === updated.memberId)
      )
        records.push(targetMemberRecord(group.groupId, memberId, a));
    }
    records.push(
      rec({ type: 'target-epoch', groupId: group.groupId, value: { assignmentEpoch: groupEpoch } }),
    );
    return result.get(updated.memberId) ?? EMPTY_ASSIGNMENT;
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
      return { records: this.fenceRecords(group, m), response };
    }
    const m = group.staticMember(req.instanceId);
    if (m === undefined) fail(ErrorCode.UNKNOWN_MEMBER_ID, `Instance id ${req.instanceId} is unknown.`);
    if (m.memberId !== req.memberId)
      fail(
        ErrorCode.FENCED_INSTANCE_ID,
        `Static member ${req.memberId} with instance id ${req.instanceId} was fenced by member ${m.memberId}.`,
      );
    if (req.memberEpoch === LEAVE_GROUP_MEMBER_EPOCH)
      return { records: this.fenceRecords(group, m), response };
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

  /** Removes a member and bumps the group epoch so the others get its partitions. */
  fenceRecords(group: ConsumerGroup, m: ConsumerGroupMember): GroupRecord[] {
    const records = removeMemberRecords(group.groupId, m.memberId);
    const metadata = this.#subscriptionMetadata(group, { old: m });
    if (!sameMetadata(metadata, group.subscriptionMetadata)) {
      records.push(
        rec({
          type: 'subscription-metadata',
          groupId: group.groupId,
          value: { topics: [...metadata.values()] },
        }),
      );
    }
    records.push(
      rec({ type: 'group-epoch', groupId: group.groupId, value: { epoch: group.groupEpoch + 1 } }),
    );
    this.#cancelTimers(group.groupId, m.memberId);
    return records;
  }

  #fenceOp(groupId: string, memberId: string, epoch?: number): Result<undefined> {
    const group = this.groups.get(groupId);
    const m = group?.members.get(memberId);
    if (group === undefined || m === undefined) return { records: [], response: undefined };
    if (epoch !== undefined && m.memberEpoch !== epoch) return { records: [], response: undefined };
    return { records: this.fenceRecords(group, m), response: undefined };
  }

  #scheduleSession(groupId: string, memberId: string): void {
    this.timer.schedule(sessionKey(groupId, memberId), this.config.consumerSessionTimeoutMs, () =>
      this.#fenceOp(groupId, memberId),
    );
  }

  #scheduleRebalance(groupId: string, memberId: string, epoch: number, timeoutMs: number): void {
    this.timer.schedule(rebalanceKey(groupId, memberId), Math.max(0, timeoutMs), () =>
      this.#fenceOp(groupId, memberId, epoch),
    );
  }

  #cancelTimers(groupId: string, memberId: string): void {
    this.timer.cancel(sessionKey(groupId, memberId));
    this.timer.cancel(rebalanceKey(groupId, memberId));
  }

  /** Tombstones for every record of an empty group (DeleteGroups, offset expiry). */
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

  /**
   * OffsetCommit (v9+: member epoch) / OffsetFetch validation for a consumer group (Kafka's
   * ConsumerGroup.validateOffsetCommit / validateOffsetFetch). Epoch < 0 without a member id is
   * an admin or a consumer without group management: allowed only while the group is empty
   * (commits; fetches always).
   */
  validateOffsetCommit(
    group: ConsumerGroup,
    memberId: string,
    memberEpoch: number,
    apiVersion: number,
    isTransactional: boolean,
  ): number {
    if (memberEpoch < 0 && memberId === '')
      return group.members.size === 0 ? ErrorCode.NONE : ErrorCode.UNKNOWN_MEMBER_ID;
    const m = group.members.get(memberId);
    if (m === undefined) return ErrorCode.UNKNOWN_MEMBER_ID;
    if (!isTransactional && apiVersion < 9) return ErrorCode.UNSUPPORTED_VERSION;
    if (memberEpoch !== m.memberEpoch) return ErrorCode.STALE_MEMBER_EPOCH;
    return ErrorCode.NONE;
  }

  validateOffsetFetch(group: ConsumerGroup, memberId: string | null, memberEpoch: number): number {
    if (memberEpoch < 0 && (memberId === null || memberId === '')) return ErrorCode.NONE;
    const m = group.members.get(memberId ?? '');
    if (m === undefined) return ErrorCode.UNKNOWN_MEMBER_ID;
    if (memberEpoch !== m.memberEpoch) return ErrorCode.STALE_MEMBER_EPOCH;
    return ErrorCode.NONE;
  }

  /** The assignor a describe reports: the one the group would use now. */
  assignorName(group: ConsumerGroup): string {
    return this.#preferredAssignor(group.members.values()).name;
  }
}

function sameMetadata(
  a: ReadonlyMap<string, SubscribedTopic>,
  b: ReadonlyMap<string, SubscribedTopic>,
): boolean {
  if (a.size !== b.size) return false;
  for (const [name, t] of a) {
    const o = b.get(name);
    if (o === undefined || o.topicId !== t.topicId || o.numPartitions !== t.numPartitions) return false;
  }
  return true;
}
