// Classic-protocol members of a KIP-848 consumer group (Kafka's classicGroupJoinToConsumerGroup,
// classicGroupSyncToConsumerGroup, classicGroupHeartbeatToConsumerGroup and
// classicGroupLeaveToConsumerGroup): a consumer that only speaks JoinGroup/SyncGroup/Heartbeat
// stays in a group that was upgraded, or joins one. The coordinator assigns for it like for any
// member; the classic requests are the bridge:
// - JoinGroup updates the member's subscription (from its embedded ConsumerProtocolSubscription),
//   recomputes the target assignment and reconciles the member, with the partitions its
//   subscription says it owns (an eager member owns nothing when it rejoins; a cooperative one
//   lists what it kept) — the same incremental reconciliation as ConsumerGroupHeartbeat, so a
//   partition is never handed out while another member still holds it. It answers at once with
//   the member epoch as generation and no member list (the member is never the leader).
// - SyncGroup answers the member's current assignment, in the embedded protocol's version.
// - Heartbeat answers REBALANCE_IN_PROGRESS when the member must rejoin: the group epoch moved
//   past it, it must revoke partitions, or partitions it waits for were released; it then has its
//   rebalance timeout to rejoin (join timer), and after a join its rebalance timeout to sync.
// - LeaveGroup removes members and bumps the group epoch (never a downgrade, as in Kafka).
import { ErrorCode } from '../../../protocol/errors.js';
import type { CoordinatorResult } from '../runtime/coordinator-shard.js';
import type { ClassicGroup } from './classic-group.js';
import type { ConsumerGroup } from './consumer-group.js';
import { fail } from './consumer-group-heartbeat-parts.js';
import type { ConsumerGroupManager } from './consumer-group-manager.js';
import {
  type ConsumerGroupMember,
  MemberState,
  newMember,
  usesClassicProtocol,
} from './consumer-group-member.js';
import { GroupOpError, type TopicPartitionIds } from './consumer-group-types.js';
import { decodeSubscription, encodeAssignment, protocolVersion } from './consumer-protocol.js';
import type { GroupRecord } from './group-records.js';
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
import { joinError } from './rebalance.js';

type Result<T> = CoordinatorResult<GroupRecord, T>;

/** JoinGroup v4+: a dynamic member without an id is handed one first (KIP-394). */
const KNOWN_MEMBER_ID_VERSION = 4;

function attempt<T>(op: () => Result<T>, onError: (code: number) => T): Result<T> {
  try {
    return op();
  } catch (err) {
    if (!(err instanceof GroupOpError)) throw err;
    return { records: [], response: onError(err.code) };
  }
}

export class ClassicMembersOfConsumerGroups {
  constructor(
    private readonly mgr: ConsumerGroupManager,
    /** The shard's classic groups (where a downgraded group is). */
    private readonly classicGroups: ReadonlyMap<string, ClassicGroup>,
  ) {}

  join(group: ConsumerGroup, origin: RequestOrigin, req: JoinGroupRequest): Result<JoinGroupResult> {
    return attempt<JoinGroupResult>(
      () => this.#join(group, origin, req),
      (code) => joinError(code),
    );
  }

  #join(group: ConsumerGroup, origin: RequestOrigin, req: JoinGroupRequest): Result<JoinGroupResult> {
    const { mgr } = this;
    const { groupId } = group;
    const unknown = req.memberId === '';
    const memberId = unknown ? mgr.newMemberId() : req.memberId;
    mgr.checkCapacity(group, memberId);
    if (
      !group.supportsClassicProtocols(
        req.protocolType,
        req.protocols.map((p) => p.name),
      )
    )
      fail(ErrorCode.INCONSISTENT_GROUP_PROTOCOL, `Member ${memberId}'s protocols are not supported.`);
    if (req.groupInstanceId === null && unknown && origin.apiVersion >= KNOWN_MEMBER_ID_VERSION)
      return { records: [], response: joinError(ErrorCode.MEMBER_ID_REQUIRED, memberId) };
    // Every protocol of a JoinGroup carries the same subscription.
    const subscription = decodeSubscription(req.protocols[0]!.metadata);
    if (subscription === null)
      fail(
        ErrorCode.INCONSISTENT_GROUP_PROTOCOL,
        `Member ${memberId}'s embedded consumer protocol is malformed.`,
      );
    const records: GroupRecord[] = [];
    let member: ConsumerGroupMember;
    let replaced: ConsumerGroupMember | undefined;
    const instanceId = req.groupInstanceId;
    const holder = instanceId === null ? undefined : group.staticMember(instanceId);
    if (instanceId === null || (unknown && holder === undefined)) {
      member = group.members.get(memberId) ?? newMember(memberId);
    } else if (unknown && holder !== undefined) {
      // A restarted static instance takes over its old member's place under a new id.
      replaced = holder;
      member = { ...holder, memberId, memberEpoch: 0, previousMemberEpoch: 0 };
      records.push(...mgr.replaceRecords(group, holder, member));
    } else {
      member = mgr.staticMemberOf(group, instanceId, memberId);
    }
    const isNew = !group.members.has(memberId) && replaced === undefined;
    const rebalanceTimeoutMs = req.rebalanceTimeoutMs >= 0 ? req.rebalanceTimeoutMs : req.sessionTimeoutMs;
    const updated: ConsumerGroupMember = {
      ...member,
      instanceId: instanceId ?? member.instanceId,
      rackId: subscription.rackId ?? member.rackId,
      rebalanceTimeoutMs,
      subscribedTopicNames: subscription.topics,
      clientId: origin.clientId,
      clientHost: origin.clientHost,
      classicMemberMetadata: {
        sessionTimeoutMs: req.sessionTimeoutMs,
        supportedProtocols: req.protocols.map((p) => ({ name: p.name, metadata: p.metadata })),
      },
    };
    const reconciled = mgr.updateAndReconcile({
      group,
      member,
      updated,
      replaced,
      isNew,
      owned: this.#owned(subscription.ownedPartitions),
      records,
    });
    if (replaced !== undefined && mgr.migration.downgrade(group, replaced.memberId, reconciled, records)) {
      // The group is classic again, Stable, and this member holds what the one it replaced had.
      return { records, response: this.#classicJoinAnswer(groupId, memberId, req), replayRecords: false };
    }
    mgr.timers.cancelJoin(groupId, memberId);
    if (replaced !== undefined && replaced.memberId !== memberId)
      mgr.timers.cancelAll(groupId, replaced.memberId);
    mgr.timers.session(groupId, memberId, req.sessionTimeoutMs);
    mgr.timers.sync(groupId, memberId, rebalanceTimeoutMs);
    return {
      records,
      response: {
        errorCode: ErrorCode.NONE,
        generationId: reconciled.memberEpoch,
        protocolType: 'consumer',
        protocolName: req.protocols[0]!.name,
        leader: '',
        skipAssignment: false,
        memberId,
        members: [],
      },
    };
  }

  /** The JoinGroup answer after a downgrade: the member's place in the classic group. */
  #classicJoinAnswer(groupId: string, memberId: string, req: JoinGroupRequest): JoinGroupResult {
    const classic = this.classicGroups.get(groupId);
    return {
      errorCode: ErrorCode.NONE,
      generationId: classic?.generationId ?? -1,
      protocolType: 'consumer',
      protocolName: classic?.protocolName ?? req.protocols[0]!.name,
      leader: classic?.leaderId ?? '',
      skipAssignment: false,
      memberId,
      members: [],
    };
  }

  /** The partitions an embedded subscription says the member owns, by topic id (unknown topics dropped). */
  #owned(owned: ReadonlyArray<{ topic: string; partitions: number[] }>): TopicPartitionIds[] {
    const out: TopicPartitionIds[] = [];
    for (const t of owned) {
      const topic = this.mgr.catalog.byName(t.topic);
      if (topic !== undefined) out.push({ topicId: topic.topicId, partitions: t.partitions });
    }
    return out;
  }

  /** Kafka's validateConsumerGroupMember plus the classic-protocol check. */
  #classicMember(group: ConsumerGroup, memberId: string, instanceId: string | null): ConsumerGroupMember {
    let m: ConsumerGroupMember | undefined;
    if (instanceId === null) {
      m = group.members.get(memberId);
      if (m === undefined)
        fail(ErrorCode.UNKNOWN_MEMBER_ID, `Member ${memberId} is not a member of group ${group.groupId}.`);
    } else {
      m = this.mgr.staticMemberOf(group, instanceId, memberId);
    }
    if (!usesClassicProtocol(m))
      fail(ErrorCode.UNKNOWN_MEMBER_ID, `Member ${m.memberId} does not use the classic protocol.`);
    return m;
  }

  #checkGeneration(m: ConsumerGroupMember, generationId: number): void {
    if (m.memberEpoch !== generationId)
      fail(
        ErrorCode.ILLEGAL_GENERATION,
        `The request generation id ${generationId} is not equal to the member epoch ${m.memberEpoch} of member ${m.memberId}.`,
      );
  }

  sync(group: ConsumerGroup, req: SyncGroupRequest): Result<SyncGroupResult> {
    return attempt<SyncGroupResult>(
      () => {
        const m = this.#classicMember(group, req.memberId, req.groupInstanceId);
        this.#checkGeneration(m, req.generationId);
        const protocol = m.classicMemberMetadata!.supportedProtocols[0]!;
        if (
          (req.protocolType !== null && req.protocolType !== 'consumer') ||
          (req.protocolName !== null && req.protocolName !== protocol.name)
        )
          fail(
            ErrorCode.INCONSISTENT_GROUP_PROTOCOL,
            `Member ${m.memberId}'s protocol does not match the group's.`,
          );
        // A new target since the join: rejoin first (unless still revoking, which the next join finishes).
        if (group.groupEpoch > m.memberEpoch && m.state !== MemberState.UNREVOKED_PARTITIONS) {
          this.mgr.timers.joinIfAbsent(group.groupId, m.memberId, m.rebalanceTimeoutMs);
          fail(ErrorCode.REBALANCE_IN_PROGRESS, `A new rebalance is triggered in group ${group.groupId}.`);
        }
        this.mgr.timers.cancelSync(group.groupId, m.memberId);
        this.mgr.scheduleSession(group.groupId, m);
        const assigned: Array<{ topic: string; partitions: number[] }> = [];
        for (const [topicId, ps] of m.assignedPartitions) {
          const topic = this.mgr.catalog.nameOf(topicId);
          if (topic !== undefined) assigned.push({ topic, partitions: [...ps].sort((a, b) => a - b) });
        }
        return {
          records: [],
          response: {
            errorCode: ErrorCode.NONE,
            protocolType: req.protocolType,
            protocolName: req.protocolName,
            assignment: encodeAssignment(assigned, protocolVersion(protocol.metadata)),
          },
        };
      },
      (errorCode) => ({ errorCode, protocolType: null, protocolName: null, assignment: EMPTY_BUFFER }),
    );
  }

  heartbeat(group: ConsumerGroup, req: HeartbeatRequest): Result<number> {
    return attempt<number>(
      () => {
        const m = this.#classicMember(group, req.memberId, req.groupInstanceId);
        this.#checkGeneration(m, req.generationId);
        this.mgr.scheduleSession(group.groupId, m);
        const rejoin =
          m.memberEpoch < group.groupEpoch ||
          m.state === MemberState.UNREVOKED_PARTITIONS ||
          (m.state === MemberState.UNRELEASED_PARTITIONS && !group.waitingOnUnreleasedPartition(m));
        if (!rejoin) return { records: [], response: ErrorCode.NONE };
        this.mgr.timers.joinIfAbsent(group.groupId, m.memberId, m.rebalanceTimeoutMs);
        return { records: [], response: ErrorCode.REBALANCE_IN_PROGRESS };
      },
      (code) => code,
    );
  }

  leave(group: ConsumerGroup, leaving: readonly LeaveMember[]): Result<LeaveGroupResult> {
    const removed: ConsumerGroupMember[] = [];
    const members = leaving.map((l) => {
      try {
        const m =
          l.groupInstanceId === null
            ? this.#classicMember(group, l.memberId, null)
            : this.#staticLeaving(group, l.memberId, l.groupInstanceId);
        if (!removed.includes(m)) removed.push(m);
        return { memberId: m.memberId, groupInstanceId: l.groupInstanceId, errorCode: ErrorCode.NONE };
      } catch (err) {
        if (!(err instanceof GroupOpError)) throw err;
        return { ...l, errorCode: err.code };
      }
    });
    const records = removed.length === 0 ? [] : this.mgr.removeRecords(group, removed);
    return { records, response: { errorCode: ErrorCode.NONE, members } };
  }

  /** LeaveGroup by instance id: an admin may leave out the member id. */
  #staticLeaving(group: ConsumerGroup, memberId: string, instanceId: string): ConsumerGroupMember {
    const m = group.staticMember(instanceId);
    if (m === undefined) fail(ErrorCode.UNKNOWN_MEMBER_ID, `Instance id ${instanceId} is unknown.`);
    if (memberId !== '' && m.memberId !== memberId)
      fail(
        ErrorCode.FENCED_INSTANCE_ID,
        `Static member ${memberId} with instance id ${instanceId} was fenced by member ${m.memberId}.`,
      );
    if (!usesClassicProtocol(m))
      fail(ErrorCode.UNKNOWN_MEMBER_ID, `Member ${m.memberId} does not use the classic protocol.`);
    return m;
  }
}
