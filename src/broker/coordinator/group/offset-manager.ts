// OffsetCommit, OffsetFetch, OffsetDelete and offset expiry for classic groups (Kafka's
// OffsetMetadataManager). Commits are validated against the group's generation; the
// records they produce are replayed into the OffsetStore like any other.
import { ErrorCode } from '../../../protocol/errors.js';
import type { CoordinatorResult } from '../runtime/coordinator-shard.js';
import type { ClassicGroup } from './classic-group.js';
import type { ClassicGroupManager } from './classic-group-manager.js';
import type { ConsumerGroupManager } from './consumer-group-manager.js';
import { validateConsumerGroupCommit, validateConsumerGroupFetch } from './consumer-group-offsets.js';
import { type GroupRecord, groupRecord, type OffsetValue, offsetRecord } from './group-records.js';
import type {
  OffsetCommitRequest,
  OffsetFetchGroupResult,
  OffsetFetchPartition,
  TopicPartitionsResult,
} from './group-types.js';
import { OffsetStore } from './offset-store.js';
import { PendingTxnOffsets } from './pending-txn-offsets.js';

type Result<T> = CoordinatorResult<GroupRecord, T>;

/**
 * The outcome of a commit per partition, in request order (topics, then their partitions): one
 * error code for all of them (the usual case, so nothing per partition is allocated), or one each.
 */
export type CommitCodes = number | readonly number[];

const NO_RECORDS: readonly GroupRecord[] = [];

/** Every partition of a commit answered with one error; nothing written. */
function failAll(errorCode: number): Result<CommitCodes> {
  return { records: NO_RECORDS, response: errorCode };
}

/** The code of the `i`th partition of a commit (request order). */
export function commitCode(codes: CommitCodes, i: number): number {
  return typeof codes === 'number' ? codes : (codes[i] as number);
}

/** `codes` as one result per topic of the request. */
export function commitResults(req: OffsetCommitRequest, codes: CommitCodes): TopicPartitionsResult[] {
  let i = 0;
  return req.topics.map((t) => ({
    name: t.name,
    partitions: t.partitions.map((p) => ({ partition: p.partition, errorCode: commitCode(codes, i++) })),
  }));
}

export class OffsetManager {
  readonly store = new OffsetStore();
  /** TxnOffsetCommit offsets awaiting their transaction's marker. */
  readonly pending = new PendingTxnOffsets();

  constructor(
    private readonly groups: ClassicGroupManager,
    /** KIP-848 groups: commits and fetches are fenced by member epoch instead of generation. */
    private readonly consumer?: ConsumerGroupManager,
  ) {}

  /** Kafka's ClassicGroup.validateOffsetCommit. */
  #validateCommit(group: ClassicGroup, req: OffsetCommitRequest): number {
    if (group.is('Dead')) return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    // Generation -1 without a member: a consumer not using group management (or an admin
    // tool). Allowed only while the group has no members.
    if (req.generationId < 0 && group.is('Empty')) return ErrorCode.NONE;
    if (req.generationId >= 0 || req.memberId !== '' || req.groupInstanceId !== null) {
      const err = this.groups.validateGeneration(group, req.memberId, req.groupInstanceId, req.generationId);
      if (err !== ErrorCode.NONE) return err;
    } else if (!group.is('Empty')) {
      return ErrorCode.UNKNOWN_MEMBER_ID;
    }
    // The members' assignment is being decided: a commit now could be for partitions the
    // member is about to lose.
    if (group.is('CompletingRebalance')) return ErrorCode.REBALANCE_IN_PROGRESS;
    return ErrorCode.NONE;
  }

  /**
   * The group a commit goes to. Only a simple consumer (generation < 0) may create a group by
   * committing (null here: replaying its offset record creates the group, so a write the log
   * refuses leaves no group behind); for anyone else an unknown group is ILLEGAL_GENERATION
   * (undefined here).
   */
  #commitTarget(req: OffsetCommitRequest): ClassicGroup | null | undefined {
    const group = this.groups.groups.get(req.groupId);
    if (group !== undefined) return group;
    return req.generationId >= 0 ? undefined : null;
  }

  commit(req: OffsetCommitRequest, validated = false): Result<CommitCodes> {
    const cg = this.consumer?.groups.get(req.groupId);
    if (cg !== undefined && !validated) {
      const err = validateConsumerGroupCommit(cg, req.memberId, req.generationId, req.apiVersion ?? 9, false);
      if (err !== ErrorCode.NONE) return failAll(err);
      return this.#write(req);
    }
    if (cg !== undefined) return this.#write(req);
    const group = this.#commitTarget(req);
    // OffsetCommit v9+ (either protocol) says so; older versions keep ILLEGAL_GENERATION.
    if (group === undefined)
      return failAll(
        (req.apiVersion ?? 0) >= 9 ? ErrorCode.GROUP_ID_NOT_FOUND : ErrorCode.ILLEGAL_GENERATION,
      );
    if (group === null) return this.#write(req); // a new group: Empty, any simple commit is valid
    const err = validated ? ErrorCode.NONE : this.#validateCommit(group, req);
    if (err !== ErrorCode.NONE) return failAll(err);
    return this.#write(req);
  }

  /**
   * One record per partition whose metadata fits; those that do not are answered
   * OFFSET_METADATA_TOO_LARGE (then the codes are per partition).
   */
  #write(req: OffsetCommitRequest): Result<CommitCodes> {
    const now = this.groups.now();
    const expireTimestamp = req.retentionTimeMs >= 0 ? now + req.retentionTimeMs : -1;
    const maxMetadata = this.groups.config.offsetMetadataMaxBytes;
    const records: GroupRecord[] = [];
    let codes: number[] | null = null;
    let i = 0;
    for (const t of req.topics) {
      for (const p of t.partitions) {
        const metadata = p.metadata ?? '';
        // Characters never outnumber UTF-8 bytes, and a UTF-8 byte count is at most 3 per character.
        const tooLarge =
          metadata.length > maxMetadata ||
          (metadata.length * 3 > maxMetadata && Buffer.byteLength(metadata) > maxMetadata);
        if (tooLarge) {
          codes ??= new Array<number>(i).fill(ErrorCode.NONE);
          codes.push(ErrorCode.OFFSET_METADATA_TOO_LARGE);
        } else {
          codes?.push(ErrorCode.NONE);
          const value: OffsetValue = {
            offset: p.offset,
            leaderEpoch: p.leaderEpoch,
            metadata,
            commitTimestamp: now,
            expireTimestamp,
          };
          records.push(offsetRecord(req.groupId, t.name, p.partition, value));
        }
        i++;
      }
    }
    return { records, response: codes ?? ErrorCode.NONE };
  }

  /**
   * TxnOffsetCommit: the same validation as a commit except that a transactional commit may
   * come from outside the group's membership (generation -1, e.g. kafkajs sendOffsets) and is
   * allowed while a rebalance completes (Kafka's validateOffsetCommit with isTransactional).
   * The records go out as one transactional batch of the producer and stay pending until the
   * transaction's marker.
   */
  commitTransactional(
    req: OffsetCommitRequest,
    producer: { producerId: bigint; producerEpoch: number },
  ): Result<CommitCodes> {
    const cg = this.consumer?.groups.get(req.groupId);
    if (cg !== undefined) {
      const err = validateConsumerGroupCommit(cg, req.memberId, req.generationId, 9, true);
      // TxnOffsetCommit has no STALE_MEMBER_EPOCH: Kafka answers ILLEGAL_GENERATION.
      if (err === ErrorCode.STALE_MEMBER_EPOCH) return failAll(ErrorCode.ILLEGAL_GENERATION);
      if (err !== ErrorCode.NONE) return failAll(err);
      return { ...this.#write(req), transaction: producer };
    }
    const target = this.#commitTarget(req);
    if (target === undefined) return failAll(ErrorCode.ILLEGAL_GENERATION);
    // Kafka creates the group when the transactional commit arrives, not at its marker.
    const group = target ?? this.groups.getOrCreate(req.groupId);
    if (group.is('Dead')) return failAll(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    if (
      !(req.generationId < 0 && group.is('Empty')) &&
      (req.generationId >= 0 || req.memberId !== '' || req.groupInstanceId !== null)
    ) {
      const err = this.groups.validateGeneration(group, req.memberId, req.groupInstanceId, req.generationId);
      if (err !== ErrorCode.NONE) return failAll(err);
    }
    const res = this.commit({ ...req, generationId: -1, memberId: '', groupInstanceId: null }, true);
    return { ...res, transaction: producer };
  }

  /** Applies a marker: a commit makes the producer's pending offsets the committed ones. */
  completeTransaction(producerId: bigint, commit: boolean): void {
    const offsets = this.pending.take(producerId);
    if (!commit) return;
    for (const o of offsets) {
      this.store.replay(o.group, o.topic, o.partition, o.value);
      if (o.value !== null) this.groups.getOrCreate(o.group);
    }
  }

  /**
   * `topics` null = every committed offset of the group (OffsetFetch v2+). With
   * `requireStable` (v7+) a partition with a pending transactional offset answers
   * UNSTABLE_OFFSET_COMMIT, so the consumer retries instead of starting from a stale offset.
   */
  fetch(
    groupId: string,
    topics: ReadonlyArray<{ name: string; partitions: readonly number[] }> | null,
    requireStable = false,
    member?: { memberId: string | null; memberEpoch: number },
  ): OffsetFetchGroupResult {
    const cg = member === undefined ? undefined : this.consumer?.groups.get(groupId);
    if (cg !== undefined && member !== undefined) {
      const errorCode = validateConsumerGroupFetch(cg, member.memberId, member.memberEpoch);
      if (errorCode !== ErrorCode.NONE) return { groupId, errorCode, topics: [] };
    }
    const toPartition = (
      partition: number,
      v: OffsetValue | undefined,
      topic: string,
    ): OffsetFetchPartition =>
      requireStable && this.pending.has(groupId, topic, partition)
        ? {
            partition,
            offset: -1n,
            leaderEpoch: -1,
            metadata: '',
            errorCode: ErrorCode.UNSTABLE_OFFSET_COMMIT,
          }
        : v === undefined
          ? { partition, offset: -1n, leaderEpoch: -1, metadata: '', errorCode: ErrorCode.NONE }
          : {
              partition,
              offset: v.offset,
              leaderEpoch: v.leaderEpoch,
              metadata: v.metadata,
              errorCode: ErrorCode.NONE,
            };
    if (topics === null) {
      return {
        groupId,
        errorCode: ErrorCode.NONE,
        topics: [...this.store.topics(groupId)].map(([name, parts]) => ({
          name,
          partitions: [...parts].map(([p, v]) => toPartition(p, v, name)),
        })),
      };
    }
    return {
      groupId,
      errorCode: ErrorCode.NONE,
      topics: topics.map((t) => ({
        name: t.name,
        partitions: t.partitions.map((p) => toPartition(p, this.store.get(groupId, t.name, p), t.name)),
      })),
    };
  }

  deleteOffsets(
    groupId: string,
    topics: ReadonlyArray<{ name: string; partitions: readonly number[] }>,
  ): Result<{ errorCode: number; topics: TopicPartitionsResult[] }> {
    const cg = this.consumer?.groups.get(groupId);
    const group = this.groups.groups.get(groupId);
    if (cg === undefined && (group === undefined || group.is('Dead'))) {
      return { records: [], response: { errorCode: ErrorCode.GROUP_ID_NOT_FOUND, topics: [] } };
    }
    let subscribed: Set<string> | null = new Set();
    if (cg !== undefined) subscribed = cg.members.size > 0 ? this.consumer!.subscribedTopics(cg) : new Set();
    else if (group === undefined)
      return { records: [], response: { errorCode: ErrorCode.GROUP_ID_NOT_FOUND, topics: [] } };
    else if (!group.is('Empty')) {
      subscribed = group.subscribedTopics();
      // A non-empty group whose subscriptions we cannot read might use any topic.
      if (subscribed === null)
        return { records: [], response: { errorCode: ErrorCode.NON_EMPTY_GROUP, topics: [] } };
    }
    const records: GroupRecord[] = [];
    const result = topics.map((t) => ({
      name: t.name,
      partitions: t.partitions.map((partition) => {
        if (subscribed?.has(t.name)) return { partition, errorCode: ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC };
        if (this.store.get(groupId, t.name, partition) !== undefined) {
          records.push(offsetRecord(groupId, t.name, partition, null));
        }
        return { partition, errorCode: ErrorCode.NONE };
      }),
    }));
    return { records, response: { errorCode: ErrorCode.NONE, topics: result } };
  }

  /** Tombstones for every offset of a group, then for the group itself (DeleteGroups). */
  deleteGroupRecords(groupId: string): GroupRecord[] {
    const records: GroupRecord[] = [];
    for (const [topic, partition] of this.store.entries(groupId))
      records.push(offsetRecord(groupId, topic, partition, null));
    records.push(groupRecord(groupId, null));
    return records;
  }

  /**
   * Offsets past retention (KIP-211): of a group that uses group management, only once it is
   * empty, counted from when it became empty, or of topics a Stable consumer group no longer
   * subscribes to; of a group that only stores offsets, counted from the commit. An empty
   * group left without offsets is deleted.
   */
  expire(now: number): GroupRecord[] {
    const retention = this.groups.config.offsetsRetentionMs;
    const records: GroupRecord[] = [];
    const candidates = new Set([...this.store.groupIds(), ...this.groups.groups.keys()]);
    for (const groupId of candidates) {
      const group = this.groups.groups.get(groupId);
      let baseOf: ((v: OffsetValue, topic: string) => number | null) | null = null;
      const cg = this.consumer?.groups.get(groupId);
      if (cg !== undefined) {
        // A consumer group keeps the offsets of topics it subscribes to; the rest expire by
        // commit time (Kafka's ConsumerGroup.offsetExpirationCondition). Its records stay.
        const subscribed = cg.members.size > 0 ? this.consumer!.subscribedTopics(cg) : new Set<string>();
        baseOf = (v, topic) => (subscribed.has(topic) ? null : v.commitTimestamp);
      } else if (group === undefined || group.protocolType === null) baseOf = (v) => v.commitTimestamp;
      else if (group.is('Empty')) baseOf = () => group.currentStateTimestamp;
      else if (group.is('Stable')) {
        const subscribed = group.subscribedTopics();
        if (subscribed !== null) baseOf = (v, topic) => (subscribed.has(topic) ? null : v.commitTimestamp);
      }
      let remaining = 0;
      for (const [topic, partition, v] of this.store.entries(groupId)) {
        const base = baseOf === null ? null : baseOf(v, topic);
        const expired =
          base !== null && (v.expireTimestamp >= 0 ? now >= v.expireTimestamp : now - base >= retention);
        if (expired) records.push(offsetRecord(groupId, topic, partition, null));
        else remaining++;
      }
      if (group?.is('Empty') && remaining === 0) records.push(groupRecord(groupId, null));
    }
    return records;
  }
}
