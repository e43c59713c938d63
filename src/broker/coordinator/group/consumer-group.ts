// The state of one KIP-848 consumer group (Kafka's ConsumerGroup), changed only by replaying
// its records (consumer-group-records in __consumer_offsets). Three epochs drive it:
//   - group epoch: bumped whenever membership, subscriptions or the subscribed topics' metadata
//     change; "the target assignment must be recomputed";
//   - assignment epoch: the group epoch the current target assignment was computed for;
//   - member epoch: the target epoch a member has reconciled to (its partitions are final for
//     that epoch); a member behind it is still revoking or waiting for partitions.
// `partitionEpochs` records who holds each partition right now (assigned or still revoking):
// reconciliation uses it to never hand a partition to two members at once.
import type { ConsumerGroupRecord } from '../../../protocol/internal-topics/consumer-group-records.js';
import {
  type Assignment,
  type ConsumerGroupMember,
  EMPTY_ASSIGNMENT,
  fromEntries,
  LEAVE_GROUP_MEMBER_EPOCH,
  MemberState,
  type MemberStateCode,
  newMember,
  usesClassicProtocol,
} from './consumer-group-member.js';

export type ConsumerGroupState = 'Empty' | 'Assigning' | 'Reconciling' | 'Stable';

export interface SubscribedTopic {
  readonly topicId: string;
  readonly topicName: string;
  readonly numPartitions: number;
}

export class ConsumerGroup {
  groupEpoch = 0;
  assignmentEpoch = 0;
  readonly members = new Map<string, ConsumerGroupMember>();
  /** instance id → member id of static members. */
  readonly staticMembers = new Map<string, string>();
  readonly targetAssignment = new Map<string, Assignment>();
  /** Topic name → metadata of every topic some member subscribes to, as last persisted. */
  subscriptionMetadata = new Map<string, SubscribedTopic>();
  /** topic id → partition → epoch of the member holding it. */
  readonly partitionEpochs = new Map<string, Map<number, number>>();
  /** Not persisted: when the subscription metadata must be compared with the cluster again. */
  metadataRefreshDeadline = 0;

  constructor(readonly groupId: string) {}

  /** Kafka's ConsumerGroup.state(), with its capitalized names as DescribeGroups shows them. */
  get state(): ConsumerGroupState {
    if (this.members.size === 0) return 'Empty';
    if (this.groupEpoch !== this.assignmentEpoch) return 'Assigning';
    for (const m of this.members.values()) {
      if (m.memberEpoch !== this.assignmentEpoch || m.state !== MemberState.STABLE) return 'Reconciling';
    }
    return 'Stable';
  }

  partitionEpoch(topicId: string, partition: number): number {
    return this.partitionEpochs.get(topicId)?.get(partition) ?? -1;
  }

  staticMember(instanceId: string): ConsumerGroupMember | undefined {
    const id = this.staticMembers.get(instanceId);
    return id === undefined ? undefined : this.members.get(id);
  }

  /** Members that joined with JoinGroup (classic protocol). */
  classicMembers(): ConsumerGroupMember[] {
    return [...this.members.values()].filter(usesClassicProtocol);
  }

  /**
   * Kafka's supportsClassicProtocols: a JoinGroup of protocol type `consumer` whose protocols
   * share a name with every classic member's (any, when no classic member is left).
   */
  supportsClassicProtocols(protocolType: string, names: readonly string[]): boolean {
    if (protocolType !== 'consumer') return false;
    if (this.members.size === 0) return names.length > 0;
    const classic = this.classicMembers();
    return names.some((n) =>
      classic.every((m) => m.classicMemberMetadata!.supportedProtocols.some((p) => p.name === n)),
    );
  }

  /** Every member but `memberId` joined with JoinGroup, and `memberId` did not (a downgrade's trigger). */
  allMembersUseClassicProtocolExcept(memberId: string): boolean {
    const m = this.members.get(memberId);
    if (m === undefined || usesClassicProtocol(m)) return false;
    for (const o of this.members.values())
      if (o.memberId !== memberId && !usesClassicProtocol(o)) return false;
    return true;
  }

  /** A member still missing target partitions that another member holds (Kafka's waitingOnUnreleasedPartition). */
  waitingOnUnreleasedPartition(member: ConsumerGroupMember): boolean {
    if (member.state !== MemberState.UNRELEASED_PARTITIONS) return false;
    for (const [topicId, ps] of this.targetAssignment.get(member.memberId) ?? []) {
      const have = member.assignedPartitions.get(topicId);
      for (const p of ps) if (!have?.has(p) && this.partitionEpoch(topicId, p) !== -1) return true;
    }
    return false;
  }

  /** Topic names subscribed by name by any member (after replacing `old` by `updated`). */
  subscribedTopicNames(replace?: { old?: ConsumerGroupMember; updated?: ConsumerGroupMember }): Set<string> {
    const out = new Set<string>();
    for (const m of this.members.values()) {
      if (replace?.old !== undefined && m.memberId === replace.old.memberId) continue;
      for (const t of m.subscribedTopicNames) out.add(t);
    }
    for (const t of replace?.updated?.subscribedTopicNames ?? []) out.add(t);
    return out;
  }

  /** The regexes of the members (after replacing `old` by `updated`). */
  subscribedRegexes(replace?: { old?: ConsumerGroupMember; updated?: ConsumerGroupMember }): Set<string> {
    const out = new Set<string>();
    for (const m of this.members.values()) {
      if (replace?.old !== undefined && m.memberId === replace.old.memberId) continue;
      if (m.subscribedTopicRegex !== null && m.subscribedTopicRegex !== '') out.add(m.subscribedTopicRegex);
    }
    const r = replace?.updated?.subscribedTopicRegex;
    if (r !== undefined && r !== null && r !== '') out.add(r);
    return out;
  }

  replay(rec: ConsumerGroupRecord): void {
    switch (rec.type) {
      case 'group-epoch':
        if (rec.value !== null) this.groupEpoch = rec.value.epoch;
        return;
      case 'subscription-metadata':
        this.subscriptionMetadata = new Map(
          (rec.value?.topics ?? []).map((t) => [
            t.topicName,
            { topicId: t.topicId, topicName: t.topicName, numPartitions: t.numPartitions },
          ]),
        );
        return;
      case 'member-metadata':
        this.#replayMemberMetadata(rec.memberId, rec.value);
        return;
      case 'target-epoch':
        this.assignmentEpoch = rec.value?.assignmentEpoch ?? -1;
        return;
      case 'target-member':
        if (rec.value === null) this.targetAssignment.delete(rec.memberId);
        else this.targetAssignment.set(rec.memberId, fromEntries(rec.value.partitions));
        return;
      case 'current-assignment':
        this.#replayCurrentAssignment(rec.memberId, rec.value);
        return;
    }
  }

  #replayMemberMetadata(
    memberId: string,
    v: Extract<ConsumerGroupRecord, { type: 'member-metadata' }>['value'],
  ): void {
    const old = this.members.get(memberId);
    if (v === null) {
      if (old === undefined) return;
      this.#setOwnership(old, null);
      this.members.delete(memberId);
      if (old.instanceId !== null && this.staticMembers.get(old.instanceId) === memberId)
        this.staticMembers.delete(old.instanceId);
      return;
    }
    const base = old ?? newMember(memberId);
    const updated: ConsumerGroupMember = {
      ...base,
      instanceId: v.instanceId,
      rackId: v.rackId,
      clientId: v.clientId,
      clientHost: v.clientHost,
      subscribedTopicNames: v.subscribedTopicNames,
      subscribedTopicRegex: v.subscribedTopicRegex,
      rebalanceTimeoutMs: v.rebalanceTimeoutMs,
      serverAssignor: v.serverAssignor,
      classicMemberMetadata: v.classicMemberMetadata,
    };
    this.members.set(memberId, updated);
    if (old?.instanceId != null && old.instanceId !== v.instanceId) this.staticMembers.delete(old.instanceId);
    if (v.instanceId !== null) this.staticMembers.set(v.instanceId, memberId);
  }

  #replayCurrentAssignment(
    memberId: string,
    v: Extract<ConsumerGroupRecord, { type: 'current-assignment' }>['value'],
  ): void {
    const old = this.members.get(memberId) ?? newMember(memberId);
    const updated: ConsumerGroupMember =
      v === null
        ? {
            ...old,
            memberEpoch: LEAVE_GROUP_MEMBER_EPOCH,
            previousMemberEpoch: LEAVE_GROUP_MEMBER_EPOCH,
            state: MemberState.STABLE,
            assignedPartitions: EMPTY_ASSIGNMENT,
            partitionsPendingRevocation: EMPTY_ASSIGNMENT,
          }
        : {
            ...old,
            memberEpoch: v.memberEpoch,
            previousMemberEpoch: v.previousMemberEpoch,
            state: v.state as MemberStateCode,
            assignedPartitions: fromEntries(v.assignedPartitions),
            partitionsPendingRevocation: fromEntries(v.partitionsPendingRevocation),
          };
    this.#setOwnership(this.members.get(memberId) ?? null, updated);
    if (v === null && !this.members.has(memberId)) return;
    this.members.set(memberId, updated);
  }

  /** Moves the partition-holder index from `old`'s partitions to `updated`'s. */
  #setOwnership(old: ConsumerGroupMember | null, updated: ConsumerGroupMember | null): void {
    if (old !== null) {
      for (const a of [old.assignedPartitions, old.partitionsPendingRevocation]) {
        for (const [topicId, ps] of a) {
          const epochs = this.partitionEpochs.get(topicId);
          if (epochs === undefined) continue;
          for (const p of ps) epochs.delete(p);
          if (epochs.size === 0) this.partitionEpochs.delete(topicId);
        }
      }
    }
    if (updated !== null) {
      for (const a of [updated.assignedPartitions, updated.partitionsPendingRevocation]) {
        for (const [topicId, ps] of a) {
          let epochs = this.partitionEpochs.get(topicId);
          if (epochs === undefined) {
            epochs = new Map();
            this.partitionEpochs.set(topicId, epochs);
          }
          for (const p of ps) epochs.set(p, updated.memberEpoch);
        }
      }
    }
  }
}
