// Drives KIP-848 ConsumerGroupHeartbeat on a GroupCoordinator over an in-memory
// __consumer_offsets, with a mock clock and a hand-made topic catalog.
import type {
  ConsumerHeartbeatRequest,
  ConsumerHeartbeatResult,
  TopicCatalog,
  TopicPartitionIds,
} from '../../../src/broker/coordinator/group/consumer-group-types.js';
import {
  type GroupConfig,
  GroupCoordinator,
  type OffsetCommitRequest,
} from '../../../src/broker/coordinator/group/index.js';
import { InMemoryPartitionWriter, MockClock } from '../../../src/broker/coordinator/runtime/index.js';

/** A 22-character Kafka-style uuid text for a topic name (stable, unique enough for tests). */
export function fakeTopicId(name: string): string {
  const b = Buffer.alloc(16);
  Buffer.from(name).copy(b, 0, 0, 16);
  b[15] = name.length;
  return b.toString('base64url');
}

export class FakeCatalog implements TopicCatalog {
  readonly topics = new Map<string, number>();
  add(name: string, partitions: number): this {
    this.topics.set(name, partitions);
    return this;
  }
  byName(name: string) {
    const n = this.topics.get(name);
    return n === undefined ? undefined : { topicId: fakeTopicId(name), numPartitions: n };
  }
  nameOf(topicId: string) {
    return [...this.topics.keys()].find((n) => fakeTopicId(n) === topicId);
  }
  names() {
    return this.topics.keys();
  }
}

const settle = async (): Promise<void> => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
};

export async function consumerHarness(catalog: FakeCatalog, config: Partial<GroupConfig> = {}) {
  const clock = new MockClock();
  const writer = new InMemoryPartitionWriter();
  const make = () =>
    new GroupCoordinator({
      config: { initialRebalanceDelayMs: 0, numPartitions: 2, ...config },
      writer,
      loader: writer,
      clock,
      topics: catalog,
    });
  let gc = make();
  const loadAll = async () => {
    for (let p = 0; p < gc.config.numPartitions; p++) await gc.onElection(p);
  };
  await loadAll();
  const origin = { clientId: 'c', clientHost: '/127.0.0.1', apiVersion: 1 };
  const hb = (
    req: Partial<ConsumerHeartbeatRequest> & { groupId: string; memberId: string },
    apiVersion = 1,
  ) =>
    gc.consumerGroupHeartbeat(
      { ...origin, apiVersion },
      {
        memberEpoch: 0,
        instanceId: null,
        rackId: null,
        rebalanceTimeoutMs: -1,
        subscribedTopicNames: null,
        subscribedTopicRegex: null,
        serverAssignor: null,
        topicPartitions: null,
        ...req,
      },
    );
  /** A first heartbeat of a member subscribing to `topics`. */
  const join = (
    groupId: string,
    memberId: string,
    topics: string[],
    extra: Partial<ConsumerHeartbeatRequest> = {},
  ) =>
    hb({
      groupId,
      memberId,
      memberEpoch: 0,
      rebalanceTimeoutMs: 30_000,
      subscribedTopicNames: topics,
      topicPartitions: [],
      ...extra,
    });
  return {
    clock,
    writer,
    get gc() {
      return gc;
    },
    hb,
    join,
    advance: async (ms: number) => {
      await settle();
      clock.advance(ms);
      await settle();
    },
    restart: async () => {
      gc.close();
      gc = make();
      await loadAll();
    },
    shard(groupId: string) {
      const p = gc.partitionFor(groupId);
      let shard:
        | import('../../../src/broker/coordinator/group/group-coordinator-shard.js').GroupCoordinatorShard
        | undefined;
      return gc.runtime.read(p, (s) => (shard = s)).then(() => shard!);
    },
  };
}

/** An OffsetCommit of a group member: `offsets` as [partition, offset] of `topic`, no metadata. */
export function memberCommit(
  groupId: string,
  member: { memberId: string; generationId: number; apiVersion: number },
  topic: string,
  offsets: ReadonlyArray<readonly [number, bigint]>,
): OffsetCommitRequest {
  return {
    groupId,
    ...member,
    groupInstanceId: null,
    retentionTimeMs: -1,
    topics: [
      {
        name: topic,
        partitions: offsets.map(([partition, offset]) => ({
          partition,
          offset,
          leaderEpoch: -1,
          metadata: null,
        })),
      },
    ],
  };
}

/** A simulated KIP-848 client: remembers its epoch and what it owns, acknowledges at once. */
export class SimMember {
  epoch = 0;
  owned: TopicPartitionIds[] = [];
  left = false;
  constructor(
    readonly h: Awaited<ReturnType<typeof consumerHarness>>,
    readonly groupId: string,
    readonly memberId: string,
    public topics: string[],
  ) {}

  async heartbeat(): Promise<ConsumerHeartbeatResult> {
    const r = await this.h.hb({
      groupId: this.groupId,
      memberId: this.memberId,
      memberEpoch: this.epoch,
      rebalanceTimeoutMs: 30_000,
      subscribedTopicNames: this.topics,
      topicPartitions: this.owned,
    });
    if (r.errorCode !== 0) {
      // Fenced or unknown: drop everything and rejoin.
      this.epoch = 0;
      this.owned = [];
      return r;
    }
    this.epoch = r.memberEpoch;
    if (r.assignment !== null) this.owned = r.assignment;
    return r;
  }

  async leave(): Promise<ConsumerHeartbeatResult> {
    this.left = true;
    this.owned = [];
    return this.h.hb({ groupId: this.groupId, memberId: this.memberId, memberEpoch: -1 });
  }
}
