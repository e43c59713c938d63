// One partition of __consumer_offsets: the classic groups and committed offsets whose group
// id hashes to it. Membership logic lives in ClassicGroupManager, offsets in OffsetManager;
// this class replays records and exposes the operations the runtime runs.
import { ErrorCode, KafkaError } from '../../../protocol/errors.js';
import type { CoordinatorResult, CoordinatorShard, ShardContext } from '../runtime/coordinator-shard.js';
import type { TransactionalProducer } from '../runtime/partition-writer.js';
import { ClassicGroup } from './classic-group.js';
import { ClassicGroupManager } from './classic-group-manager.js';
import { ConsumerGroupManager } from './consumer-group-manager.js';
import type { GroupConfig } from './group-config.js';
import type { GroupRecord } from './group-records.js';
import { type DescribedGroup, EMPTY_BUFFER, type ListedGroup } from './group-types.js';
import { OffsetManager } from './offset-manager.js';
import { joinError } from './rebalance.js';

const EXPIRY_KEY = 'offsets-expiry';

export class GroupCoordinatorShard implements CoordinatorShard<GroupRecord> {
  readonly classic: ClassicGroupManager;
  readonly offsets: OffsetManager;
  /** KIP-848 consumer groups; a group id belongs to either `classic` or `consumer`, never both. */
  readonly consumer: ConsumerGroupManager;

  constructor(
    readonly ctx: ShardContext<GroupRecord>,
    readonly config: GroupConfig,
  ) {
    this.classic = new ClassicGroupManager(config, ctx.clock, ctx.timer);
    this.consumer = new ConsumerGroupManager(config, ctx.clock, ctx.timer, {
      classicGroupIsEmpty: (id) => {
        const g = this.classic.groups.get(id);
        return g === undefined ? undefined : g.is('Empty') && g.pendingMembers.size === 0;
      },
    });
    this.offsets = new OffsetManager(this.classic, this.consumer);
  }

  get groups(): Map<string, ClassicGroup> {
    return this.classic.groups;
  }

  replay(record: GroupRecord, _offset?: bigint, producer?: TransactionalProducer): void {
    if (record.kind === 'consumer') {
      this.consumer.replay(record.record);
      return;
    }
    if (record.kind === 'offset' && producer !== undefined) {
      // TxnOffsetCommit: invisible until the transaction's COMMIT marker.
      const { group, topic, partition, value } = record;
      this.offsets.pending.add(producer.producerId, { group, topic, partition, value });
      return;
    }
    if (record.kind === 'offset') {
      this.offsets.store.replay(record.group, record.topic, record.partition, record.value);
      // A group known only by its offsets still exists (Empty, no protocol), as in Kafka.
      if (record.value !== null && !this.consumer.groups.has(record.group))
        this.classic.getOrCreate(record.group);
      return;
    }
    const existing = this.groups.get(record.group);
    if (record.value === null) {
      if (existing !== undefined) {
        this.classic.cancelGroupTimers(existing);
        existing.state = 'Dead';
        this.groups.delete(record.group);
      }
      return;
    }
    this.groups.set(record.group, ClassicGroup.fromRecord(record.group, record.value, this.ctx.clock.now()));
  }

  replayEndTransactionMarker(producerId: bigint, _producerEpoch: number, commit: boolean): void {
    this.offsets.completeTransaction(producerId, commit);
  }

  onLoaded(): void {
    // Loaded members get a fresh session: they are dead only if they stay silent for it.
    for (const group of this.groups.values()) {
      for (const m of group.members.values()) this.classic.scheduleHeartbeat(group, m);
    }
    this.consumer.onLoaded();
    this.#scheduleExpiry();
  }

  onUnloaded(): void {
    const err = KafkaError.fromCode(ErrorCode.NOT_COORDINATOR);
    for (const group of this.groups.values()) {
      for (const m of group.members.values()) {
        const join = m.awaitingJoin;
        const sync = m.awaitingSync;
        m.awaitingJoin = null;
        m.awaitingSync = null;
        join?.(joinError(err.code, m.memberId));
        sync?.({ errorCode: err.code, protocolType: null, protocolName: null, assignment: EMPTY_BUFFER });
      }
    }
  }

  #scheduleExpiry(): void {
    this.ctx.timer.schedule(EXPIRY_KEY, this.config.offsetsRetentionCheckIntervalMs, () => {
      this.#scheduleExpiry();
      return { records: this.offsets.expire(this.ctx.clock.now()), response: undefined };
    });
  }

  deleteGroups(
    groupIds: readonly string[],
  ): CoordinatorResult<GroupRecord, Array<{ groupId: string; errorCode: number }>> {
    const records: GroupRecord[] = [];
    const response = groupIds.map((groupId) => {
      if (groupId === '') return { groupId, errorCode: ErrorCode.INVALID_GROUP_ID };
      const cg = this.consumer.groups.get(groupId);
      if (cg !== undefined) {
        if (cg.members.size > 0) return { groupId, errorCode: ErrorCode.NON_EMPTY_GROUP };
        records.push(...this.offsets.deleteGroupRecords(groupId).filter((r) => r.kind === 'offset'));
        records.push(...this.consumer.deleteGroupRecords(cg));
        return { groupId, errorCode: ErrorCode.NONE };
      }
      const group = this.groups.get(groupId);
      if (group === undefined || group.is('Dead'))
        return { groupId, errorCode: ErrorCode.GROUP_ID_NOT_FOUND };
      if (!group.is('Empty')) return { groupId, errorCode: ErrorCode.NON_EMPTY_GROUP };
      records.push(...this.offsets.deleteGroupRecords(groupId));
      return { groupId, errorCode: ErrorCode.NONE };
    });
    return { records, response };
  }

  describe(groupId: string): DescribedGroup {
    const group = this.groups.get(groupId);
    if (group === undefined) {
      return {
        errorCode: ErrorCode.NONE,
        groupId,
        state: 'Dead',
        protocolType: '',
        protocolData: '',
        members: [],
      };
    }
    // Kafka shows protocol metadata and assignments only for a Stable group.
    const stable = group.is('Stable');
    const protocol = group.protocolName ?? '';
    return {
      errorCode: ErrorCode.NONE,
      groupId,
      state: group.state,
      protocolType: group.protocolType ?? '',
      protocolData: stable ? protocol : '',
      members: [...group.members.values()].map((m) => ({
        memberId: m.memberId,
        groupInstanceId: m.groupInstanceId,
        clientId: m.clientId,
        clientHost: m.clientHost,
        metadata: stable ? m.metadataFor(protocol) : EMPTY_BUFFER,
        assignment: stable ? m.assignment : EMPTY_BUFFER,
      })),
    };
  }

  /** `states`/`types` empty = no filter; matched case-insensitively as Kafka does. */
  list(states: readonly string[], types: readonly string[]): ListedGroup[] {
    const wantStates = new Set(states.map((s) => s.toLowerCase()));
    const wantTypes = new Set(types.map((t) => t.toLowerCase()));
    const out: ListedGroup[] = [];
    for (const g of this.groups.values()) {
      if (wantStates.size > 0 && !wantStates.has(g.state.toLowerCase())) continue;
      if (wantTypes.size > 0 && !wantTypes.has('classic')) continue;
      out.push({ groupId: g.groupId, protocolType: g.protocolType ?? '', state: g.state });
    }
    for (const g of this.consumer.groups.values()) {
      if (wantStates.size > 0 && !wantStates.has(g.state.toLowerCase())) continue;
      if (wantTypes.size > 0 && !wantTypes.has('consumer')) continue;
      out.push({ groupId: g.groupId, protocolType: 'consumer', state: g.state, groupType: 'consumer' });
    }
    return out;
  }
}
