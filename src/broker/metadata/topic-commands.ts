// The admin command façade (Kafka's AdminZkClient + the waits of its delayed admin operations):
// CreateTopics, DeleteTopics, CreatePartitions and config changes are validated here and written
// to the MetadataStore by whichever broker received them; the controller reacts to the store's
// watches, decides leaders and tells every broker. The command then waits until this broker's
// own metadata shows the change, so a client that got the answer can use the topic on this
// broker at once (and Metadata auto-creation can answer with a complete topic).

import { ErrorCode, KafkaError } from '../../protocol/errors.js';
import type { BrokerConfig } from '../config/broker-config.js';
import type { Logger } from '../logger.js';
import type { TopicView } from './cluster-image.js';
import { assignReplicas, type PlacementBroker } from './replica-placement.js';
import type { MetadataStore } from './store/metadata-store.js';
import { MetadataStoreError } from './store/metadata-store.js';
import type { BrokerInfo, TopicAssignment } from './store/records.js';
import { validateTopicOverrides } from './topic-config-validation.js';
import { collisionKey, topicNameError } from './topic-names.js';
import { INTERNAL_TOPICS, type TopicRecord } from './types.js';
import { randomUuid } from './uuid.js';

/** Guard against requests that would create absurd numbers of partition directories. */
export const MAX_PARTITIONS_PER_TOPIC = 10_000;

export interface CreateTopicSpec {
  readonly name: string;
  /** -1 = `num.partitions`. */
  readonly numPartitions: number;
  /** -1 = `default.replication.factor`. */
  readonly replicationFactor: number;
  readonly assignments: readonly { readonly partitionIndex: number; readonly brokerIds: readonly number[] }[];
  readonly configs: Readonly<Record<string, string | null>>;
}

/** What the commands read of this broker's metadata, and how they wait for it to catch up. */
export interface LocalMetadataView {
  topic(name: string): TopicView | undefined;
  brokerConfigs(entity: string): Readonly<Record<string, string>>;
  /** Resolves true once `done()` holds (checked after every metadata change), false on timeout. */
  waitFor(done: () => boolean, timeoutMs: number): Promise<boolean>;
}

export interface TopicCommandsDeps {
  readonly store: MetadataStore;
  readonly view: LocalMetadataView;
  readonly config: Pick<BrokerConfig, 'numPartitions' | 'defaultReplicationFactor' | 'deleteTopicEnable'>;
  readonly logger: Logger;
}

/** Default wait for this broker to see a change it wrote (the request's timeout when it has one). */
export const DEFAULT_PROPAGATION_TIMEOUT_MS = 30_000;

/** Dynamic broker config entity: the store's `<default>` is the image's '' (cluster-wide). */
const brokerEntity = (entity: string) => (entity === '' ? '<default>' : entity);

export class TopicCommands {
  constructor(private readonly deps: TopicCommandsDeps) {}

  /**
   * Validates a creation and returns what it would write. Throws KafkaError. `storeWaitMs`: how
   * long to wait for a lost store connection to return (see `#store`).
   */
  planTopic(spec: CreateTopicSpec, storeWaitMs = 0): Promise<TopicRecord> {
    return this.#plan(spec, Date.now() + storeWaitMs);
  }

  async #plan(spec: CreateTopicSpec, storeUntil: number): Promise<TopicRecord> {
    const nameErr = topicNameError(spec.name);
    if (nameErr) throw new KafkaError(ErrorCode.INVALID_TOPIC_EXCEPTION, nameErr);
    const names = await this.#store((s) => s.topicNames(), storeUntil);
    if (names.includes(spec.name))
      throw new KafkaError(ErrorCode.TOPIC_ALREADY_EXISTS, `Topic '${spec.name}' already exists.`);
    const key = collisionKey(spec.name);
    const collides = names.find((n) => collisionKey(n) === key);
    if (collides !== undefined)
      throw new KafkaError(
        ErrorCode.INVALID_TOPIC_EXCEPTION,
        `Topic '${spec.name}' collides with existing topic: ${collides}`,
      );
    const configs = validateTopicOverrides(spec.configs);
    const brokers = await this.#store((s) => s.liveBrokers(), storeUntil);
    let assignment: number[][];
    if (spec.assignments.length > 0) {
      if (spec.numPartitions !== -1 || spec.replicationFactor !== -1) {
        throw new KafkaError(
          ErrorCode.INVALID_REQUEST,
          'Both numPartitions or replicationFactor and replicasAssignments were set. Both cannot be used at the same time.',
        );
      }
      assignment = checkAssignments(spec.assignments, 0, brokers);
    } else {
      const n = spec.numPartitions === -1 ? this.deps.config.numPartitions : spec.numPartitions;
      const rf =
        spec.replicationFactor === -1 ? this.deps.config.defaultReplicationFactor : spec.replicationFactor;
      if (n <= 0)
        throw new KafkaError(
          ErrorCode.INVALID_PARTITIONS,
          'Number of partitions was set to an invalid non-positive value.',
        );
      if (n > MAX_PARTITIONS_PER_TOPIC)
        throw new KafkaError(
          ErrorCode.INVALID_PARTITIONS,
          `Number of partitions ${n} exceeds the limit of ${MAX_PARTITIONS_PER_TOPIC}.`,
        );
      if (rf <= 0)
        throw new KafkaError(
          ErrorCode.INVALID_REPLICATION_FACTOR,
          'Replication factor must be larger than 0, or -1 to use the default value.',
        );
      assignment = assignReplicas(placementBrokers(brokers), n, rf);
    }
    return {
      name: spec.name,
      topicId: randomUuid(),
      partitions: assignment.map((replicas, partition) => ({
        partition,
        leader: replicas[0]!,
        leaderEpoch: 0,
        replicas,
        isr: replicas,
      })),
      configs,
    };
  }

  /**
   * Creates a topic and waits until this broker serves it with a leader for every partition.
   * Returns the topic as this broker sees it (or as planned, when the wait timed out).
   * `storeWaitMs`: an admin request's timeout; auto-creation does not wait (the client's next
   * Metadata request asks again).
   */
  async createTopic(
    spec: CreateTopicSpec,
    timeoutMs = DEFAULT_PROPAGATION_TIMEOUT_MS,
    storeWaitMs = 0,
  ): Promise<TopicView> {
    const storeUntil = Date.now() + storeWaitMs;
    const plan = await this.#plan(spec, storeUntil);
    const assignment: TopicAssignment = {
      name: plan.name,
      topicId: plan.topicId,
      partitions: plan.partitions.map((p) => p.replicas),
    };
    // NODE_EXISTS: another broker created the name since the check (TOPIC_ALREADY_EXISTS).
    await this.#store((s) => s.createTopic(assignment, plan.configs), storeUntil);
    this.deps.logger.log('info', 'created topic', {
      topic: plan.name,
      topicId: plan.topicId,
      partitions: plan.partitions.length,
    });
    const { view } = this.deps;
    const ready = () => {
      const t = view.topic(plan.name);
      return t !== undefined && t.topicId === plan.topicId && t.partitions.every((p) => p.leader >= 0);
    };
    if (!(await view.waitFor(ready, timeoutMs)))
      throw new KafkaError(
        ErrorCode.REQUEST_TIMED_OUT,
        `Topic '${plan.name}' was created, but its leaders were not known within ${timeoutMs} ms.`,
      );
    return view.topic(plan.name) ?? { ...plan, internal: INTERNAL_TOPICS.has(plan.name) };
  }

  /**
   * Requests the deletion and waits until this broker no longer serves the topic. An admin
   * request: a lost store connection is waited for, within `timeoutMs`.
   */
  async deleteTopic(name: string, timeoutMs = DEFAULT_PROPAGATION_TIMEOUT_MS): Promise<{ topicId: string }> {
    if (!this.deps.config.deleteTopicEnable)
      throw new KafkaError(ErrorCode.TOPIC_DELETION_DISABLED, 'Topic deletion is disabled.');
    const storeUntil = Date.now() + timeoutMs;
    const [assignment] = await this.#store((s) => s.assignments([name]), storeUntil);
    if (assignment === undefined)
      throw new KafkaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `Topic ${name} does not exist.`);
    await this.#store((s) => s.requestTopicDeletion(name), storeUntil);
    this.deps.logger.log('info', 'topic deletion requested', { topic: name, topicId: assignment.topicId });
    const { view } = this.deps;
    const gone = () => view.topic(name)?.topicId !== assignment.topicId;
    if (!(await view.waitFor(gone, timeoutMs)))
      throw new KafkaError(ErrorCode.REQUEST_TIMED_OUT, `Deletion of topic ${name} is still in progress.`);
    return { topicId: assignment.topicId };
  }

  /**
   * CreatePartitions: grows `name` to `count` partitions. An admin request, like deleteTopic.
   * Throws KafkaError.
   */
  async createPartitions(
    name: string,
    count: number,
    assignments: readonly (readonly number[])[] | null,
    validateOnly: boolean,
    timeoutMs = DEFAULT_PROPAGATION_TIMEOUT_MS,
  ): Promise<void> {
    const storeUntil = Date.now() + timeoutMs;
    const [topic] = await this.#store((s) => s.assignments([name]), storeUntil);
    if (topic === undefined)
      throw new KafkaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `The topic '${name}' does not exist.`);
    const current = topic.partitions.length;
    if (count < current)
      throw new KafkaError(
        ErrorCode.INVALID_PARTITIONS,
        `The topic ${name} currently has ${current} partition(s); ${count} would not be an increase.`,
      );
    if (count === current)
      throw new KafkaError(ErrorCode.INVALID_PARTITIONS, `Topic already has ${current} partition(s).`);
    if (count > MAX_PARTITIONS_PER_TOPIC)
      throw new KafkaError(
        ErrorCode.INVALID_PARTITIONS,
        `Number of partitions ${count} exceeds the limit of ${MAX_PARTITIONS_PER_TOPIC}.`,
      );
    const brokers = await this.#store((s) => s.liveBrokers(), storeUntil);
    let added: number[][];
    if (assignments !== null) {
      if (assignments.length !== count - current) {
        throw new KafkaError(
          ErrorCode.INVALID_REPLICA_ASSIGNMENT,
          `Attempted to add ${count - current} additional partition(s), but only ${assignments.length} assignment(s) were specified.`,
        );
      }
      added = checkAssignments(
        assignments.map((b, i) => ({ partitionIndex: current + i, brokerIds: b })),
        current,
        brokers,
      );
    } else {
      // Kafka continues the topic's layout: start where partition 0's preferred leader sits.
      const ids = placementBrokers(brokers).map((b) => b.nodeId);
      const start = Math.max(
        0,
        ids.findIndex((id) => id >= topic.partitions[0]![0]!),
      );
      added = assignReplicas(placementBrokers(brokers), count - current, topic.partitions[0]!.length, {
        startIndex: start,
        firstPartition: current,
      });
    }
    if (validateOnly) return;
    await this.#store(
      (s) => s.setAssignment({ ...topic, partitions: [...topic.partitions, ...added] }),
      storeUntil,
    );
    const { view } = this.deps;
    const ready = () => {
      const t = view.topic(name);
      return t !== undefined && t.partitions.length >= count && t.partitions.every((p) => p.leader >= 0);
    };
    if (!(await view.waitFor(ready, timeoutMs)))
      throw new KafkaError(ErrorCode.REQUEST_TIMED_OUT, `New partitions of ${name} were not ready in time.`);
  }

  /**
   * Waits until this broker's metadata shows each partition led by the broker the controller
   * elected (Kafka's DelayedElectLeader); resolves the partitions still waiting at the timeout.
   */
  async awaitLeaders(
    expected: readonly { topic: string; partition: number; leader: number }[],
    timeoutMs: number,
  ): Promise<{ topic: string; partition: number }[]> {
    const { view } = this.deps;
    const waiting = () =>
      expected.filter((e) => view.topic(e.topic)?.partitions[e.partition]?.leader !== e.leader);
    await view.waitFor(() => waiting().length === 0, timeoutMs);
    return waiting().map(({ topic, partition }) => ({ topic, partition }));
  }

  /** Replaces a topic's overrides (AlterConfigs semantics; an admin request). Throws KafkaError. */
  async setTopicConfigs(
    name: string,
    overrides: Readonly<Record<string, string | null>>,
    validateOnly: boolean,
  ): Promise<void> {
    const storeUntil = Date.now() + DEFAULT_PROPAGATION_TIMEOUT_MS;
    const names = await this.#store((s) => s.topicNames(), storeUntil);
    if (!names.includes(name))
      throw new KafkaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `Topic ${name} does not exist.`);
    const configs = validateTopicOverrides(overrides);
    if (validateOnly) return;
    await this.#store((s) => s.setConfigs({ type: 'topics', name }, configs), storeUntil);
    const { view } = this.deps;
    await view.waitFor(() => sameConfigs(view.topic(name)?.configs, configs), DEFAULT_PROPAGATION_TIMEOUT_MS);
  }

  /** Replaces the dynamic configs of a broker entity ('' = cluster default). Already validated. */
  async setBrokerConfigs(entity: string, configs: Readonly<Record<string, string>>): Promise<void> {
    await this.#store(
      (s) => s.setConfigs({ type: 'brokers', name: brokerEntity(entity) }, configs),
      Date.now() + DEFAULT_PROPAGATION_TIMEOUT_MS,
    );
    const { view } = this.deps;
    await view.waitFor(
      () => sameConfigs(view.brokerConfigs(entity), configs),
      DEFAULT_PROPAGATION_TIMEOUT_MS,
    );
  }

  /**
   * Store failures as Kafka errors a client understands (and may retry). Before the call, a lost
   * connection is waited for until `until` (Kafka's broker blocks an admin write until ZooKeeper
   * is back, so a CreateTopics sent just after a ZooKeeper restart succeeds); past it (or
   * without `until`), the call fails at once.
   */
  async #store<T>(op: (s: MetadataStore) => Promise<T>, until = 0): Promise<T> {
    const waitMs = until - Date.now();
    if (waitMs > 0) await this.deps.store.whenConnected(waitMs);
    try {
      return await op(this.deps.store);
    } catch (e) {
      if (!(e instanceof MetadataStoreError)) throw e;
      if (e.code === 'NODE_EXISTS')
        throw new KafkaError(ErrorCode.TOPIC_ALREADY_EXISTS, `NODE_EXISTS: ${e.message}`);
      if (e.code === 'NO_NODE') throw new KafkaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, e.message);
      // The outcome of a write cut by a lost connection is unknown: the client retries and
      // finds out (TOPIC_ALREADY_EXISTS), as with Kafka.
      throw new KafkaError(ErrorCode.REQUEST_TIMED_OUT, `metadata store unavailable: ${e.message}`);
    }
  }
}

function placementBrokers(brokers: readonly BrokerInfo[]): PlacementBroker[] {
  return brokers.map((b) => ({ nodeId: b.nodeId, rack: b.rack }));
}

function sameConfigs(
  a: Readonly<Record<string, string>> | undefined,
  b: Readonly<Record<string, string>>,
): boolean {
  if (a === undefined) return false;
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => a[k] === b[k]);
}

function checkAssignments(
  assignments: readonly { readonly partitionIndex: number; readonly brokerIds: readonly number[] }[],
  firstPartition: number,
  live: readonly BrokerInfo[],
): number[][] {
  if (assignments.length > MAX_PARTITIONS_PER_TOPIC)
    throw new KafkaError(ErrorCode.INVALID_PARTITIONS, 'Too many partitions in the assignment.');
  const brokers = new Set(live.map((b) => b.nodeId));
  const sorted = [...assignments].sort((a, b) => a.partitionIndex - b.partitionIndex);
  const rf = sorted[0]?.brokerIds.length ?? 0;
  return sorted.map((a, i) => {
    if (a.partitionIndex !== firstPartition + i) {
      throw new KafkaError(
        ErrorCode.INVALID_REPLICA_ASSIGNMENT,
        `Partitions in the assignment must be consecutive and start at ${firstPartition}`,
      );
    }
    if (a.brokerIds.length === 0)
      throw new KafkaError(
        ErrorCode.INVALID_REPLICA_ASSIGNMENT,
        `Empty replica list for partition ${a.partitionIndex}.`,
      );
    if (a.brokerIds.length !== rf)
      throw new KafkaError(
        ErrorCode.INVALID_REPLICA_ASSIGNMENT,
        'All partitions should have the same number of replicas.',
      );
    if (new Set(a.brokerIds).size !== a.brokerIds.length)
      throw new KafkaError(
        ErrorCode.INVALID_REPLICA_ASSIGNMENT,
        `Duplicate brokers in the assignment of partition ${a.partitionIndex}.`,
      );
    const unknown = a.brokerIds.find((b) => !brokers.has(b));
    if (unknown !== undefined)
      throw new KafkaError(
        ErrorCode.INVALID_REPLICA_ASSIGNMENT,
        `Broker ${unknown} in the assignment of partition ${a.partitionIndex} is not registered.`,
      );
    return [...a.brokerIds];
  });
}
