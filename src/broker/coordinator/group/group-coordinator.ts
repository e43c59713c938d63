// The group coordinator as the API handlers see it: routes a group id to its partition of
// __consumer_offsets (Kafka's abs(hashCode) % partitions), runs the operation on that shard
// through the coordinator runtime, and turns runtime failures (NOT_COORDINATOR,
// COORDINATOR_LOAD_IN_PROGRESS, failed writes) into the response's error code.
import { coordinatorPartition } from '../../../protocol/coordinator-partition.js';
import { ErrorCode, KafkaError } from '../../../protocol/errors.js';
import { type Clock, systemClock } from '../runtime/clock.js';
import { errorCodeOf } from '../runtime/coordinator-error.js';
import { CoordinatorRuntime } from '../runtime/coordinator-runtime.js';
import type { RecordSerde } from '../runtime/coordinator-shard.js';
import type { PartitionLoader, PartitionWriter } from '../runtime/partition-writer.js';
import type { OperationDone } from '../runtime/shard-holder.js';
import { describeConsumerGroup } from './consumer-group-describe.js';
import {
  type ConsumerHeartbeatRequest,
  type ConsumerHeartbeatResult,
  type DescribedConsumerGroup,
  EMPTY_CATALOG,
  type TopicCatalog,
} from './consumer-group-types.js';
import { DEFAULT_GROUP_CONFIG, type GroupConfig } from './group-config.js';
import { GroupCoordinatorShard } from './group-coordinator-shard.js';
import type { GroupRecord } from './group-records.js';
import { groupRecordSerde } from './group-serde.js';
import {
  type DescribedGroup,
  describeGroupError,
  EMPTY_BUFFER,
  type HeartbeatRequest,
  type JoinGroupRequest,
  type JoinGroupResult,
  type LeaveGroupResult,
  type LeaveMember,
  type ListedGroup,
  type OffsetCommitRequest,
  type OffsetFetchGroupResult,
  type RequestOrigin,
  type SyncGroupRequest,
  type SyncGroupResult,
  type TopicPartitionsResult,
} from './group-types.js';
import { type CommitCodes, commitResults } from './offset-manager.js';
import { joinError } from './rebalance.js';

export interface GroupCoordinatorOptions {
  config?: Partial<GroupConfig>;
  writer: PartitionWriter;
  loader: PartitionLoader;
  clock?: Clock;
  serde?: RecordSerde<GroupRecord>;
  onError?(partition: number, err: unknown): void;
  /** The cluster's topics, for KIP-848 server-side assignment (absent: no topics). */
  topics?: TopicCatalog;
}

export type TopicPartitions = ReadonlyArray<{ name: string; partitions: readonly number[] }>;

export class GroupCoordinator {
  readonly config: GroupConfig;
  readonly runtime: CoordinatorRuntime<GroupCoordinatorShard, GroupRecord>;

  constructor(opts: GroupCoordinatorOptions) {
    const config = { ...DEFAULT_GROUP_CONFIG, ...opts.config };
    this.config = config;
    this.runtime = new CoordinatorRuntime<GroupCoordinatorShard, GroupRecord>({
      writer: opts.writer,
      loader: opts.loader,
      serde: opts.serde ?? groupRecordSerde,
      clock: opts.clock ?? systemClock,
      newShard: (ctx) => {
        const shard = new GroupCoordinatorShard(ctx, config);
        shard.consumer.catalog = opts.topics ?? EMPTY_CATALOG;
        return shard;
      },
      onError: opts.onError,
    });
  }

  partitionFor(groupId: string): number {
    return coordinatorPartition(groupId, this.config.numPartitions);
  }

  /** This broker became leader of a __consumer_offsets partition: load it. */
  onElection(partition: number): Promise<void> {
    return this.runtime.load(partition);
  }

  onResignation(partition: number): void {
    this.runtime.unload(partition);
  }

  /** The error a request for `groupId` gets before reaching a shard, or NONE. */
  availability(groupId: string): number {
    const s = this.runtime.status(this.partitionFor(groupId));
    if (s === 'active') return ErrorCode.NONE;
    return s === 'loading' ? ErrorCode.COORDINATOR_LOAD_IN_PROGRESS : ErrorCode.NOT_COORDINATOR;
  }

  joinGroup(origin: RequestOrigin, req: JoinGroupRequest): Promise<JoinGroupResult> {
    return new Promise((resolve) => {
      this.runtime
        .write(this.partitionFor(req.groupId), (s) => s.join(origin, req, resolve))
        .then((r) => r !== undefined && resolve(r))
        .catch((err: unknown) => resolve(joinError(errorCodeOf(err), req.memberId)));
    });
  }

  syncGroup(req: SyncGroupRequest): Promise<SyncGroupResult> {
    return new Promise((resolve) => {
      this.runtime
        .write(this.partitionFor(req.groupId), (s) => s.sync(req, resolve))
        .then((r) => r !== undefined && resolve(r))
        .catch((err: unknown) =>
          resolve({
            errorCode: errorCodeOf(err),
            protocolType: null,
            protocolName: null,
            assignment: EMPTY_BUFFER,
          }),
        );
    });
  }

  heartbeat(req: HeartbeatRequest): Promise<number> {
    return this.runtime.write(this.partitionFor(req.groupId), (s) => s.heartbeat(req)).catch(errorCodeOf);
  }

  leaveGroup(groupId: string, members: readonly LeaveMember[]): Promise<LeaveGroupResult> {
    return this.runtime
      .write(this.partitionFor(groupId), (s) => s.leave(groupId, members))
      .catch((err: unknown) => ({ errorCode: errorCodeOf(err), members: [] }));
  }

  /** True when `group.coordinator.rebalance.protocols` includes `consumer` (KIP-848 APIs on). */
  get consumerProtocolEnabled(): boolean {
    return this.config.rebalanceProtocols.includes('consumer');
  }

  consumerGroupHeartbeat(
    origin: RequestOrigin,
    req: ConsumerHeartbeatRequest,
  ): Promise<ConsumerHeartbeatResult> {
    return this.runtime
      .write(this.partitionFor(req.groupId), (s) => s.consumer.heartbeat(req, origin, origin.apiVersion))
      .catch((err: unknown) => ({
        errorCode: errorCodeOf(err),
        errorMessage: null,
        memberId: null,
        memberEpoch: 0,
        heartbeatIntervalMs: 0,
        assignment: null,
      }));
  }

  consumerGroupDescribe(groupIds: readonly string[]): Promise<DescribedConsumerGroup[]> {
    return Promise.all(
      groupIds.map((groupId) =>
        this.runtime
          .read(this.partitionFor(groupId), (s) => describeConsumerGroup(s, groupId))
          .catch(
            (err: unknown): DescribedConsumerGroup => ({
              errorCode: errorCodeOf(err),
              errorMessage: null,
              groupId,
              groupState: '',
              groupEpoch: -1,
              assignmentEpoch: -1,
              assignorName: '',
              members: [],
            }),
          ),
      ),
    );
  }

  commitOffsets(req: OffsetCommitRequest): Promise<TopicPartitionsResult[]> {
    return new Promise((resolve) => this.commit(req, (codes) => resolve(commitResults(req, codes))));
  }

  /**
   * OffsetCommit's own path (`commitOffsets` without a promise or a result object per
   * partition): `done` gets the code of each partition, in request order, once the offsets are
   * committed or the write failed.
   */
  commit(req: OffsetCommitRequest, done: (codes: CommitCodes) => void): void {
    this.runtime.submit(this.partitionFor(req.groupId), (s) => s.offsets.commit(req), commitDone(done));
  }

  /** TxnOffsetCommit: offsets written in the producer's transaction, visible once it commits. */
  commitTransactionalOffsets(
    req: OffsetCommitRequest,
    producer: { producerId: bigint; producerEpoch: number },
  ): Promise<TopicPartitionsResult[]> {
    return this.runtime
      .write(this.partitionFor(req.groupId), (s) => s.offsets.commitTransactional(req, producer))
      .then(
        (codes) => commitResults(req, codes),
        (err: unknown) => commitResults(req, commitFailedCode(err)),
      );
  }

  /**
   * `requireStable` (v7+) asks for UNSTABLE_OFFSET_COMMIT on partitions with pending
   * transactional offsets; without transactions no offset is ever pending.
   */
  fetchOffsets(
    groupId: string,
    topics: TopicPartitions | null,
    requireStable = false,
    member?: { memberId: string | null; memberEpoch: number },
  ): Promise<OffsetFetchGroupResult> {
    return this.runtime
      .read(this.partitionFor(groupId), (s) => s.offsets.fetch(groupId, topics, requireStable, member))
      .catch((err: unknown) => ({ groupId, errorCode: errorCodeOf(err), topics: [] }));
  }

  deleteOffsets(
    groupId: string,
    topics: TopicPartitions,
  ): Promise<{ errorCode: number; topics: TopicPartitionsResult[] }> {
    return this.runtime
      .write(this.partitionFor(groupId), (s) => s.offsets.deleteOffsets(groupId, topics))
      .catch((err: unknown) => ({ errorCode: errorCodeOf(err), topics: [] }));
  }

  async deleteGroups(groupIds: readonly string[]): Promise<Array<{ groupId: string; errorCode: number }>> {
    const byPartition = new Map<number, string[]>();
    for (const id of groupIds) {
      const p = this.partitionFor(id);
      byPartition.set(p, [...(byPartition.get(p) ?? []), id]);
    }
    const results = new Map<string, number>();
    await Promise.all(
      [...byPartition].map(async ([p, ids]) => {
        try {
          for (const r of await this.runtime.write(p, (s) => s.deleteGroups(ids)))
            results.set(r.groupId, r.errorCode);
        } catch (err) {
          for (const id of ids) results.set(id, errorCodeOf(err));
        }
      }),
    );
    return groupIds.map((groupId) => ({
      groupId,
      errorCode: results.get(groupId) ?? ErrorCode.UNKNOWN_SERVER_ERROR,
    }));
  }

  describeGroups(groupIds: readonly string[]): Promise<DescribedGroup[]> {
    return Promise.all(
      groupIds.map((groupId) =>
        this.runtime
          .read(this.partitionFor(groupId), (s) => s.describe(groupId))
          .catch((err: unknown) => describeGroupError(groupId, errorCodeOf(err))),
      ),
    );
  }

  /** Groups of every loaded shard; COORDINATOR_LOAD_IN_PROGRESS while any shard loads. */
  async listGroups(
    states: readonly string[],
    types: readonly string[],
  ): Promise<{ errorCode: number; groups: ListedGroup[] }> {
    const { results, loading } = await this.runtime.readAll((s) => s.list(states, types));
    return {
      errorCode: loading.length > 0 ? ErrorCode.COORDINATOR_LOAD_IN_PROGRESS : ErrorCode.NONE,
      groups: results.flat(),
    };
  }

  close(): void {
    this.runtime.close();
  }
}

/**
 * `done` as the runtime's callback, made outside `commit`: a closure made there would share its
 * context with the operation's, and so keep the request alive until the append is committed.
 */
function commitDone(done: (codes: CommitCodes) => void): OperationDone<CommitCodes> {
  return (err, codes) => done(err === null ? (codes as CommitCodes) : commitFailedCode(err));
}

/**
 * The code every partition of a failed commit is answered with; records too large for the
 * internal topic are INVALID_COMMIT_OFFSET_SIZE, as Kafka answers a commit the log refused for
 * its size.
 */
function commitFailedCode(err: unknown): number {
  return err instanceof KafkaError && err.code === ErrorCode.RECORD_LIST_TOO_LARGE
    ? ErrorCode.INVALID_COMMIT_OFFSET_SIZE
    : errorCodeOf(err);
}
