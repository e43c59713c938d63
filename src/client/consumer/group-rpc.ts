// The group coordinator's requests as the consumer sends them (classic protocol): JoinGroup,
// SyncGroup, Heartbeat, LeaveGroup, OffsetCommit, OffsetFetch. This file only builds requests
// and finds the coordinator; deciding what an error means is the membership's job. A connection
// failure or NOT_COORDINATOR/COORDINATOR_NOT_AVAILABLE drops the cached coordinator so the next
// request looks it up again.
import type { BrokerLink } from '../../net/broker-link.js';
import { ErrorCode } from '../../protocol/errors.js';
import { heartbeatApi } from '../../protocol/messages/generated/heartbeat.js';
import { type JoinGroupResponse, joinGroupApi } from '../../protocol/messages/generated/join-group.js';
import { leaveGroupApi } from '../../protocol/messages/generated/leave-group.js';
import { offsetCommitApi } from '../../protocol/messages/generated/offset-commit.js';
import { offsetFetchApi } from '../../protocol/messages/generated/offset-fetch.js';
import { type SyncGroupResponse, syncGroupApi } from '../../protocol/messages/generated/sync-group.js';
import { COORDINATOR_GROUP, COORDINATOR_MOVED, type Coordinators } from '../coordinator.js';
import { ConnectionError, KafkaResponseError, RequestTimeoutError } from '../errors.js';
import type { ResolvedConsumerOptions } from './consumer-config.js';
import { groupByTopic, type TopicPartition, type TopicPartitionOffset, tpKey } from './types.js';

export const PROTOCOL_TYPE = 'consumer';

export interface Generation {
  generationId: number;
  memberId: string;
}

export interface CommittedOffset {
  offset: bigint;
  metadata: string | null;
  leaderEpoch: number;
}

export class GroupRpc {
  readonly groupId: string;
  readonly #coordinators: Coordinators;
  readonly #opts: ResolvedConsumerOptions;

  constructor(groupId: string, coordinators: Coordinators, opts: ResolvedConsumerOptions) {
    this.groupId = groupId;
    this.#coordinators = coordinators;
    this.#opts = opts;
  }

  /**
   * The coordinator, over a connection of its own (as Java's consumer): on the fetch connection a
   * commit or heartbeat would wait for a Fetch long poll ahead of it (up to fetch.max.wait.ms).
   */
  coordinator(): Promise<BrokerLink> {
    return this.#coordinators.find(COORDINATOR_GROUP, this.groupId, this.#opts.requestTimeoutMs, true);
  }

  invalidate(): void {
    this.#coordinators.invalidate(COORDINATOR_GROUP, this.groupId);
  }

  /** Drops the coordinator after errors that mean it moved or is unreachable. */
  noteError(err: unknown): void {
    if (err instanceof ConnectionError || err instanceof RequestTimeoutError) this.invalidate();
    else if (err instanceof KafkaResponseError && COORDINATOR_MOVED.has(err.errorCode)) this.invalidate();
  }

  noteCode(code: number): void {
    if (COORDINATOR_MOVED.has(code)) this.invalidate();
  }

  async joinGroup(
    memberId: string,
    protocols: { name: string; metadata: Buffer }[],
    reason: string,
  ): Promise<JoinGroupResponse> {
    const o = this.#opts;
    const link = await this.coordinator();
    return link.request(
      joinGroupApi,
      {
        groupId: this.groupId,
        sessionTimeoutMs: o.sessionTimeoutMs,
        rebalanceTimeoutMs: o.maxPollIntervalMs,
        memberId,
        groupInstanceId: o.groupInstanceId,
        protocolType: PROTOCOL_TYPE,
        protocols,
        reason,
      },
      // The coordinator holds JoinGroup until every member rejoined (up to the rebalance timeout).
      {
        minVersion: o.groupInstanceId !== null ? 5 : 0,
        timeoutMs: Math.max(o.requestTimeoutMs, o.maxPollIntervalMs + 5000),
      },
    );
  }

  async syncGroup(
    gen: Generation,
    protocolName: string,
    assignments: { memberId: string; assignment: Buffer }[],
  ): Promise<SyncGroupResponse> {
    const link = await this.coordinator();
    return link.request(
      syncGroupApi,
      {
        groupId: this.groupId,
        generationId: gen.generationId,
        memberId: gen.memberId,
        groupInstanceId: this.#opts.groupInstanceId,
        protocolType: PROTOCOL_TYPE,
        protocolName,
        assignments,
      },
      { timeoutMs: Math.max(this.#opts.requestTimeoutMs, this.#opts.maxPollIntervalMs + 5000) },
    );
  }

  async heartbeat(gen: Generation): Promise<number> {
    const link = await this.coordinator();
    const res = await link.request(heartbeatApi, {
      groupId: this.groupId,
      generationId: gen.generationId,
      memberId: gen.memberId,
      groupInstanceId: this.#opts.groupInstanceId,
    });
    return res.errorCode;
  }

  async leaveGroup(memberId: string, reason: string): Promise<number> {
    const link = await this.coordinator();
    const res = await link.request(
      leaveGroupApi,
      {
        groupId: this.groupId,
        memberId,
        members: [{ memberId, groupInstanceId: this.#opts.groupInstanceId, reason }],
      },
      { timeoutMs: Math.min(this.#opts.requestTimeoutMs, 5000) },
    );
    if (res.errorCode !== 0) return res.errorCode;
    return res.members.find((m) => m.memberId === memberId)?.errorCode ?? 0;
  }

  /** Returns the error code per partition key (0 = committed). */
  async commitOffsets(
    gen: Generation,
    offsets: readonly TopicPartitionOffset[],
  ): Promise<Map<string, number>> {
    const link = await this.coordinator();
    const byTopic = new Map<string, TopicPartitionOffset[]>();
    for (const o of offsets) {
      let list = byTopic.get(o.topic);
      if (list === undefined) {
        list = [];
        byTopic.set(o.topic, list);
      }
      list.push(o);
    }
    const now = BigInt(Date.now());
    const res = await link.request(offsetCommitApi, {
      groupId: this.groupId,
      generationIdOrMemberEpoch: gen.generationId,
      memberId: gen.memberId,
      groupInstanceId: this.#opts.groupInstanceId,
      retentionTimeMs: -1n,
      topics: [...byTopic].map(([name, list]) => ({
        name,
        partitions: list.map((o) => ({
          partitionIndex: o.partition,
          committedOffset: o.offset,
          committedLeaderEpoch: o.leaderEpoch ?? -1,
          commitTimestamp: now,
          committedMetadata: o.metadata ?? '',
        })),
      })),
    });
    const out = new Map<string, number>();
    for (const t of res.topics)
      for (const p of t.partitions) out.set(tpKey(t.name, p.partitionIndex), p.errorCode);
    for (const o of offsets)
      if (!out.has(tpKey(o.topic, o.partition)))
        out.set(tpKey(o.topic, o.partition), ErrorCode.UNKNOWN_SERVER_ERROR);
    return out;
  }

  /**
   * Committed offsets (null = none). Throws KafkaResponseError for a group-level or partition
   * error, so callers can retry the retriable ones (COORDINATOR_LOAD_IN_PROGRESS, UNSTABLE_OFFSET_COMMIT).
   * `member` (a KIP-848 member: its id and epoch) goes into OffsetFetch v9+, whose coordinator
   * answers STALE_MEMBER_EPOCH / UNKNOWN_MEMBER_ID when it is not the current one.
   */
  async fetchOffsets(
    tps: readonly TopicPartition[],
    member: { memberId: string; memberEpoch: number } | null = null,
  ): Promise<Map<string, CommittedOffset | null>> {
    const link = await this.coordinator();
    const topics = [...groupByTopic(tps)].map(([name, partitionIndexes]) => ({ name, partitionIndexes }));
    const res = await link.request(
      offsetFetchApi,
      {
        groupId: this.groupId,
        topics,
        groups: [
          {
            groupId: this.groupId,
            memberId: member?.memberId ?? null,
            memberEpoch: member?.memberEpoch ?? -1,
            topics,
          },
        ],
        // Wait for pending transactional commits rather than returning an older offset (KIP-447).
        requireStable: true,
      },
      { minVersion: 1 },
    );
    const group = res.groups.length > 0 ? res.groups.find((g) => g.groupId === this.groupId) : undefined;
    const errorCode = group ? group.errorCode : res.errorCode;
    if (errorCode !== 0) throw new KafkaResponseError(errorCode, `OffsetFetch for group ${this.groupId}`);
    const out = new Map<string, CommittedOffset | null>();
    for (const t of group ? group.topics : res.topics) {
      for (const p of t.partitions) {
        if (p.errorCode !== 0)
          throw new KafkaResponseError(p.errorCode, `OffsetFetch ${t.name}-${p.partitionIndex}`);
        out.set(
          tpKey(t.name, p.partitionIndex),
          p.committedOffset < 0n
            ? null
            : { offset: p.committedOffset, metadata: p.metadata, leaderEpoch: p.committedLeaderEpoch },
        );
      }
    }
    return out;
  }
}
