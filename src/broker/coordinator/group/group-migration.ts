// Online migration between a classic group and a KIP-848 consumer group with members (Kafka's
// GroupMetadataManager convertToConsumerGroup / convertToClassicGroup, gated by
// `group.consumer.migration.policy`; empty groups convert either way whatever the policy).
//
// Upgrade: the first ConsumerGroupHeartbeat to a non-empty classic group of protocol type
// `consumer` turns it into a consumer group. Its classic members become members that joined with
// JoinGroup: each keeps the partitions of its last assignment, at the classic generation as
// member epoch (which is also the group and target epoch), and keeps working through
// JoinGroup/SyncGroup/Heartbeat (consumer-group-classic.ts). Requests they had parked get
// REBALANCE_IN_PROGRESS, so they rejoin. The classic group's tombstone and the consumer group's
// records are written together, so a coordinator loading the partition sees one or the other.
//
// Downgrade: when the last member using ConsumerGroupHeartbeat leaves (or is fenced) and classic
// members remain, the group becomes a classic group again: Stable at the group epoch as
// generation, and a rebalance starts at once (every member rejoins through the classic protocol).
// Until it completes each member's assignment is what it may still hold (its partitions and those
// it has not revoked yet), not its target as in Kafka: an upgrade back before the members rejoin
// takes these as owned, where targets would hand a new member partitions their previous owners
// still work on. (A static member replacing the leaving one takes that member's target, and no
// rebalance follows, as in Kafka.) Its state changes in memory here, as Kafka does;
// the records (the consumer group's tombstones, one GroupMetadata) only persist it.
import { ErrorCode } from '../../../protocol/errors.js';
import { ClassicGroup, ClassicGroupMember } from './classic-group.js';
import type { ClassicGroupManager } from './classic-group-manager.js';
import { ConsumerGroup } from './consumer-group.js';
import {
  currentAssignmentRecord,
  fail,
  memberMetadataRecord,
  rec,
  removeMemberRecords,
  targetMemberRecord,
} from './consumer-group-heartbeat-parts.js';
import type { ConsumerGroupManager, GroupMigrationHooks } from './consumer-group-manager.js';
import {
  type Assignment,
  type ConsumerGroupMember,
  EMPTY_ASSIGNMENT,
  MemberState,
  newMember,
} from './consumer-group-member.js';
import {
  decodeAssignment,
  decodeSubscription,
  encodeAssignment,
  protocolVersion,
} from './consumer-protocol.js';
import { downgradeEnabled, upgradeEnabled } from './group-config.js';
import { type GroupRecord, groupRecord } from './group-records.js';
import { EMPTY_BUFFER } from './group-types.js';
import { OpEffects } from './op-effects.js';
import { joinError } from './rebalance.js';

export class GroupMigration implements GroupMigrationHooks {
  constructor(
    private readonly classic: ClassicGroupManager,
    private readonly consumer: ConsumerGroupManager,
  ) {}

  classicGroupIsEmpty(groupId: string): boolean | undefined {
    const g = this.classic.groups.get(groupId);
    return g === undefined ? undefined : g.is('Empty') && g.pendingMembers.size === 0;
  }

  upgrade(groupId: string, records: GroupRecord[]): ConsumerGroup {
    const classic = this.classic.groups.get(groupId);
    const { consumerMigrationPolicy: policy, consumerMaxSize } = this.consumer.config;
    if (
      classic === undefined ||
      !upgradeEnabled(policy) ||
      classic.protocolType !== 'consumer' ||
      classic.members.size > consumerMaxSize
    )
      fail(ErrorCode.GROUP_ID_NOT_FOUND, `Group ${groupId} is not a consumer group.`);
    // Members waiting in a rebalance are told another one is under way: they rejoin the new group.
    for (const m of classic.members.values()) {
      const join = m.awaitingJoin;
      const sync = m.awaitingSync;
      m.awaitingJoin = null;
      m.awaitingSync = null;
      join?.(joinError(ErrorCode.REBALANCE_IN_PROGRESS, m.memberId));
      sync?.({
        errorCode: ErrorCode.REBALANCE_IN_PROGRESS,
        protocolType: null,
        protocolName: null,
        assignment: EMPTY_BUFFER,
      });
    }
    const epoch = classic.generationId;
    const converted = [...classic.members.values()].map((m) => this.#fromClassicMember(classic, m, epoch));
    // A cooperative member that joined but has not synced yet (or whose assignment a rebalance
    // reset) still works on what its subscription lists as owned: it holds those partitions too,
    // unless the group's assignment already gave them to someone else.
    const claimed = new Set<string>();
    for (const { assigned } of converted)
      for (const [topicId, ps] of assigned) for (const p of ps) claimed.add(`${topicId}:${p}`);
    for (const { assigned, owned } of converted)
      for (const [topicId, ps] of owned)
        for (const p of ps) {
          const key = `${topicId}:${p}`;
          if (claimed.has(key)) continue;
          claimed.add(key);
          addPartition(assigned, topicId, p);
        }
    const members = converted.map((c) => c.member);
    const created: GroupRecord[] = [
      ...members.map((m) => memberMetadataRecord(groupId, m)),
      rec({ type: 'group-epoch', groupId, value: { epoch } }),
      ...members.map((m) => targetMemberRecord(groupId, m.memberId, m.assignedPartitions)),
      rec({ type: 'target-epoch', groupId, value: { assignmentEpoch: epoch } }),
      ...members.map((m) => currentAssignmentRecord(groupId, m)),
    ];
    records.push(groupRecord(groupId, null), ...created);
    // The group the rest of the heartbeat works on; the runtime replays the same records.
    const group = new ConsumerGroup(groupId);
    for (const r of created) if (r.kind === 'consumer') group.replay(r.record);
    for (const m of members) this.consumer.scheduleSession(groupId, m);
    return group;
  }

  /** The member as a consumer group has it; `assigned` is its (mutable) assignment, `owned` what its subscription lists. */
  #fromClassicMember(
    group: ClassicGroup,
    m: ClassicGroupMember,
    epoch: number,
  ): { member: ConsumerGroupMember; assigned: Map<string, Set<number>>; owned: Map<string, Set<number>> } {
    // Every protocol of a member carries the same subscription; a group that never completed a
    // rebalance has no protocol chosen yet.
    const metadata =
      group.protocolName !== null
        ? m.metadataFor(group.protocolName)
        : (m.protocols[0]?.metadata ?? EMPTY_BUFFER);
    const subscription = decodeSubscription(metadata);
    const assignment = decodeAssignment(m.assignment);
    if (subscription === null || assignment === null)
      fail(
        ErrorCode.GROUP_ID_NOT_FOUND,
        `Cannot upgrade the classic group ${group.groupId} to consumer group because the embedded consumer protocol is malformed.`,
      );
    const assigned = this.#byTopicId(assignment.assignedPartitions);
    const owned = this.#byTopicId(subscription.ownedPartitions);
    const member: ConsumerGroupMember = {
      ...newMember(m.memberId),
      instanceId: m.groupInstanceId,
      rackId: subscription.rackId,
      clientId: m.clientId,
      clientHost: m.clientHost,
      subscribedTopicNames: subscription.topics,
      rebalanceTimeoutMs: m.rebalanceTimeoutMs,
      memberEpoch: epoch,
      previousMemberEpoch: epoch,
      state: MemberState.STABLE,
      assignedPartitions: assigned,
      classicMemberMetadata: {
        sessionTimeoutMs: m.sessionTimeoutMs,
        supportedProtocols: m.protocols.map((p) => ({ name: p.name, metadata: p.metadata })),
      },
    };
    return { member, assigned, owned };
  }

  /** Partitions by topic name as a map by topic id (topics the cluster does not know are left out). */
  #byTopicId(
    topics: ReadonlyArray<{ topic: string; partitions: readonly number[] }>,
  ): Map<string, Set<number>> {
    const out = new Map<string, Set<number>>();
    for (const t of topics) {
      const topic = this.consumer.catalog.byName(t.topic);
      if (topic === undefined) continue;
      for (const p of t.partitions) addPartition(out, topic.topicId, p);
    }
    return out;
  }

  downgrade(
    group: ConsumerGroup,
    leavingMemberId: string,
    joining: ConsumerGroupMember | null,
    records: GroupRecord[],
  ): boolean {
    const { consumerMigrationPolicy: policy } = this.consumer.config;
    const remaining = group.members.size - (joining === null ? 1 : 0);
    if (
      !group.allMembersUseClassicProtocolExcept(leavingMemberId) ||
      (joining === null && group.members.size <= 1) ||
      !downgradeEnabled(policy) ||
      remaining > this.classic.config.maxSize
    )
      return false;
    const classic = new ClassicGroup(group.groupId, this.classic.now());
    classic.generationId = group.groupEpoch;
    const targetOf = new Map<string, Assignment>();
    for (const m of group.members.values()) {
      if (m.memberId === leavingMemberId) continue;
      classic.add(toClassicMember(m));
      // With a rebalance to follow: what it may still hold, not its target (see above).
      targetOf.set(
        m.memberId,
        joining === null ? holdings(m) : (group.targetAssignment.get(m.memberId) ?? EMPTY_ASSIGNMENT),
      );
    }
    if (joining !== null) {
      // A classic static member replacing the last member of the other protocol takes its target.
      classic.add(toClassicMember(joining));
      targetOf.set(joining.memberId, group.targetAssignment.get(leavingMemberId) ?? EMPTY_ASSIGNMENT);
    }
    if (classic.candidateProtocols().size === 0) return false;
    classic.protocolName = classic.selectProtocol();
    for (const m of classic.members.values()) {
      const version = protocolVersion(m.metadataFor(classic.protocolName));
      m.assignment = encodeAssignment(this.#named(targetOf.get(m.memberId)!), version);
    }
    classic.state = 'Stable';
    // On a reload the tombstones remove what this operation's other records created (a
    // replacing static member is in the log under its new id by now).
    const ids = [...group.members.keys()].map((id) =>
      id === leavingMemberId && joining !== null ? joining.memberId : id,
    );
    for (const id of ids) records.push(...removeMemberRecords(group.groupId, id));
    records.push(
      rec({ type: 'target-epoch', groupId: group.groupId, value: null }),
      rec({ type: 'subscription-metadata', groupId: group.groupId, value: null }),
      rec({ type: 'group-epoch', groupId: group.groupId, value: null }),
      groupRecord(group.groupId, classic.toRecord()),
    );
    for (const id of group.members.keys()) this.consumer.timers.cancelAll(group.groupId, id);
    if (joining !== null) this.consumer.timers.cancelAll(group.groupId, joining.memberId);
    this.consumer.groups.delete(group.groupId);
    this.classic.groups.set(group.groupId, classic);
    for (const m of classic.members.values()) this.classic.scheduleHeartbeat(classic, m);
    if (joining === null) {
      // The member that left had partitions: everyone rejoins through the classic protocol.
      const fx = new OpEffects();
      this.classic.prepareRebalance(fx, classic);
      records.push(...fx.records);
    }
    return true;
  }

  /** An assignment by topic name, for the embedded protocol (topics the cluster lost are left out). */
  #named(a: Assignment): Array<{ topic: string; partitions: number[] }> {
    const out: Array<{ topic: string; partitions: number[] }> = [];
    for (const [topicId, ps] of a) {
      const topic = this.consumer.catalog.nameOf(topicId);
      if (topic !== undefined && ps.size > 0) out.push({ topic, partitions: [...ps].sort((x, y) => x - y) });
    }
    return out;
  }
}

function addPartition(a: Map<string, Set<number>>, topicId: string, partition: number): void {
  const set = a.get(topicId);
  if (set === undefined) a.set(topicId, new Set([partition]));
  else set.add(partition);
}

/** The partitions a member may be working on: those assigned and those it has not revoked yet. */
function holdings(m: ConsumerGroupMember): Assignment {
  if (m.partitionsPendingRevocation.size === 0) return m.assignedPartitions;
  const out = new Map<string, Set<number>>();
  for (const a of [m.assignedPartitions, m.partitionsPendingRevocation])
    for (const [topicId, ps] of a) for (const p of ps) addPartition(out, topicId, p);
  return out;
}

function toClassicMember(m: ConsumerGroupMember): ClassicGroupMember {
  const c = m.classicMemberMetadata!;
  return new ClassicGroupMember(
    m.memberId,
    m.instanceId,
    m.clientId,
    m.clientHost,
    m.rebalanceTimeoutMs,
    c.sessionTimeoutMs,
    'consumer',
    c.supportedProtocols.map((p) => ({ name: p.name, metadata: p.metadata })),
  );
}
