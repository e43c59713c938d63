// One partition of __consumer_offsets: the classic groups, KIP-848 consumer groups and committed
// offsets whose group id hashes to it. Membership logic lives in ClassicGroupManager and
// ConsumerGroupManager, offsets in OffsetManager; this class replays records and exposes the
// operations the runtime runs. The classic APIs (JoinGroup, SyncGroup, Heartbeat, LeaveGroup)
// are routed by the group's type, as in Kafka: a non-empty consumer group serves them to its
// classic members (consumer-group-classic.ts); an empty one is replaced by a classic group.
import { ErrorCode, KafkaError } from '../../../protocol/errors.js';
import type {
  CoordinatorResult,
  CoordinatorShard,
  ShardContext,
  Undo,
} from '../runtime/coordinator-shard.js';
import type { TransactionalProducer } from '../runtime/partition-writer.js';
import { ClassicGroup } from './classic-group.js';
import { ClassicGroupManager } from './classic-group-manager.js';
import { ClassicMembersOfConsumerGroups } from './consumer-group-classic.js';
import { ConsumerGroupManager } from './consumer-group-manager.js';
import type { GroupConfig } from './group-config.js';
import { GroupMigration } from './group-migration.js';
import { type GroupRecord, groupRecord } from './group-records.js';
import {
  type DescribedGroup,
  EMPTY_BUFFER,
  type HeartbeatRequest,
  type JoinGroupRequest,
  type JoinGroupResult,
  type LeaveGroupResult,
  type LeaveMember,
  type ListedGroup,
  type RequestOrigin,
  type SyncGroupRequest,
  type SyncGroupResult,
} from './group-types.js';
import { OffsetManager } from './offset-manager.js';
import { joinError } from './rebalance.js';

type Result<T> = CoordinatorResult<GroupRecord, T>;

const EXPIRY_KEY = 'offsets-expiry';

export class GroupCoordinatorShard implements CoordinatorShard<GroupRecord> {
  readonly classic: ClassicGroupManager;
  readonly offsets: OffsetManager;
  /** KIP-848 consumer groups; a group id belongs to either `classic` or `consumer`, never both. */
  readonly consumer: ConsumerGroupManager;
  /** JoinGroup/SyncGroup/Heartbeat/LeaveGroup of classic members of consumer groups. */
  readonly classicMembers: ClassicMembersOfConsumerGroups;

  constructor(
    readonly ctx: ShardContext<GroupRecord>,
    readonly config: GroupConfig,
  ) {
    this.classic = new ClassicGroupManager(config, ctx.clock, ctx.timer);
    this.consumer = new ConsumerGroupManager(config, ctx.clock, ctx.timer);
    this.consumer.migration = new GroupMigration(this.classic, this.consumer);
    this.classicMembers = new ClassicMembersOfConsumerGroups(this.consumer, this.classic.groups);
    this.offsets = new OffsetManager(this.classic, this.consumer);
  }

  /**
   * JoinGroup: a classic join answers through `respond` (it may wait for other members); a
   * classic member of a consumer group is answered with the result, once its records are committed.
   */
  join(
    origin: RequestOrigin,
    req: JoinGroupRequest,
    respond: (r: JoinGroupResult) => void,
  ): Result<JoinGroupResult | undefined> {
    const cg = this.consumer.groups.get(req.groupId);
    if (cg === undefined) return { ...this.classic.join(origin, req, respond), response: undefined };
    const { minSessionTimeoutMs, maxSessionTimeoutMs } = this.config;
    if (req.sessionTimeoutMs < minSessionTimeoutMs || req.sessionTimeoutMs > maxSessionTimeoutMs)
      return { records: [], response: joinError(ErrorCode.INVALID_SESSION_TIMEOUT, req.memberId) };
    if (cg.members.size > 0) return this.classicMembers.join(cg, origin, req);
    // An empty consumer group becomes a classic group, whatever the migration policy; only a
    // member without an id may create it (a known id of an unknown group is UNKNOWN_MEMBER_ID).
    if (req.memberId !== '')
      return { records: [], response: joinError(ErrorCode.UNKNOWN_MEMBER_ID, req.memberId) };
    if (req.protocolType === '' || req.protocols.length === 0)
      return { records: [], response: joinError(ErrorCode.INCONSISTENT_GROUP_PROTOCOL, req.memberId) };
    const tombstones = this.consumer.deleteGroupRecords(cg);
    this.consumer.groups.delete(req.groupId);
    const res = this.classic.join(origin, req, respond);
    const group = this.classic.groups.get(req.groupId);
    const records = [...tombstones, ...res.records];
    if (res.records.length === 0 && group !== undefined)
      records.push(groupRecord(req.groupId, group.toRecord()));
    return { ...res, records, response: undefined };
  }

  /** SyncGroup: like JoinGroup, a classic group answers through `respond`. */
  sync(req: SyncGroupRequest, respond: (r: SyncGroupResult) => void): Result<SyncGroupResult | undefined> {
    const cg = this.consumer.groups.get(req.groupId);
    if (cg !== undefined) return this.classicMembers.sync(cg, req);
    return { ...this.classic.sync(req, respond), response: undefined };
  }

  heartbeat(req: HeartbeatRequest): Result<number> {
    const cg = this.consumer.groups.get(req.groupId);
    return cg === undefined ? this.classic.heartbeat(req) : this.classicMembers.heartbeat(cg, req);
  }

  leave(groupId: string, members: readonly LeaveMember[]): Result<LeaveGroupResult> {
    const cg = this.consumer.groups.get(groupId);
    return cg === undefined ? this.classic.leave(groupId, members) : this.classicMembers.leave(cg, members);
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

  /**
   * Committed offsets and their tombstones (the OffsetCommit/OffsetDelete/expiry path) can be
   * taken back when the log refuses their batch: the previous value is restored, and a group
   * this record alone brought into existence is dropped again. Other records cannot (null).
   */
  replayUndoable(record: GroupRecord, offset: bigint, producer?: TransactionalProducer): Undo | null {
    if (record.kind !== 'offset' || producer !== undefined) {
      this.replay(record, offset, producer);
      return null;
    }
    const { group, topic, partition, value } = record;
    const store = this.offsets.store;
    const created = value !== null && !this.consumer.groups.has(group) && !this.groups.has(group);
    const previous = store.put(group, topic, partition, value) ?? null;
    if (created) this.classic.getOrCreate(group);
    return () => {
      store.put(group, topic, partition, previous);
      if (!created) return;
      const g = this.groups.get(group);
      if (g?.is('Empty') && g.members.size === 0 && g.pendingMembers.size === 0 && !store.has(group))
        this.groups.delete(group);
    };
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

  /**
   * DescribeGroups of one group id. A consumer group (mixed or not) is not described, as in
   * Kafka 4: GROUP_ID_NOT_FOUND with Kafka's message, like an unknown id; the handler turns
   * that into the Dead state with no error below v6.
   */
  describe(groupId: string): DescribedGroup {
    const group = this.groups.get(groupId);
    if (group === undefined) {
      return {
        errorCode: ErrorCode.GROUP_ID_NOT_FOUND,
        errorMessage: this.consumer.groups.has(groupId)
          ? `Group ${groupId} is not a classic group.`
          : `Group ${groupId} not found.`,
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
      errorMessage: null,
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

  /** `states`/`types` empty = no filter; matched case-insensitively (states trimmed) as Kafka does. */
  list(states: readonly string[], types: readonly string[]): ListedGroup[] {
    const wantStates = new Set(states.map((s) => s.trim().toLowerCase()));
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
