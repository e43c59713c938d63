// One broker's view of a cluster, as Kafka's ZkMetadataCache: what the controller last told this
// broker in UpdateMetadata (live brokers with their endpoints, the controller, every partition's
// leader/ISR/replicas/offline replicas), plus topic and broker dynamic configs read from the
// store. It has the read API of `MetadataImage` (`MetadataView`), so API handlers serve from
// either unchanged. Only the `MetadataPublisher` mutates it; topic images are replaced, never
// changed in place, so a handler holding one sees a consistent snapshot.

import type { BrokerEndpoint } from './store/records.js';
import { collisionKey } from './topic-names.js';
import type { BrokerRegistration, PartitionRecord, TopicRecord } from './types.js';
import { INTERNAL_TOPICS } from './types.js';
import { ZERO_UUID } from './uuid.js';

/** What API handlers read; `MetadataImage` (embedded) and `ClusterImage` both provide it. */
export interface MetadataView {
  readonly clusterId: string;
  /** -1 when no controller is known. */
  readonly controllerId: number;
  readonly brokers: readonly BrokerRegistration[];
  broker(nodeId: number): BrokerRegistration | undefined;
  readonly topics: IterableIterator<TopicView>;
  readonly topicCount: number;
  topic(name: string): TopicView | undefined;
  topicById(id: string): TopicView | undefined;
  collidingTopic(name: string): string | undefined;
  /** '' = the cluster-wide default entity (the store's `<default>`), else a node id. */
  brokerConfigs(entity: string): Readonly<Record<string, string>>;
}

/** A topic as handlers read it (same shape as `metadata-image.ts`'s `TopicImage`). */
export interface TopicView extends TopicRecord {
  readonly internal: boolean;
}

export interface ClusterPartitionImage extends PartitionRecord {
  /** Replicas on brokers that are down or whose log dir is offline (Metadata `offlineReplicas`). */
  readonly offlineReplicas: readonly number[];
  /** The partition-state version (ZooKeeper zkVersion; LeaderAndIsr `partitionEpoch`). */
  readonly partitionEpoch: number;
  /** Epoch of the controller that wrote this state. */
  readonly controllerEpoch: number;
}

export interface ClusterTopicImage extends TopicView {
  /** Sorted by index; dense (0..n-1) in every state the controller sends. */
  readonly partitions: readonly ClusterPartitionImage[];
}

export interface ClusterBroker extends BrokerRegistration {
  /** Every listener of the broker (UpdateMetadata v1+); `host`/`port` are the one clients use. */
  readonly endpoints: readonly BrokerEndpoint[];
}

export class ClusterImage implements MetadataView {
  readonly #byName = new Map<string, ClusterTopicImage>();
  readonly #byId = new Map<string, ClusterTopicImage>();
  readonly #byCollisionKey = new Map<string, string>();
  #brokerMap = new Map<number, ClusterBroker>();
  #brokerList: readonly ClusterBroker[] = [];
  #controllerId = -1;
  #controllerEpoch = -1;
  readonly #dynamicConfigs = new Map<string, Readonly<Record<string, string>>>();

  constructor(readonly clusterId: string) {}

  get controllerId(): number {
    return this.#controllerId;
  }

  /** Epoch of the controller that sent the last applied UpdateMetadata (-1 before the first). */
  get controllerEpoch(): number {
    return this.#controllerEpoch;
  }

  /** Live brokers, sorted by id. */
  get brokers(): readonly ClusterBroker[] {
    return this.#brokerList;
  }

  broker(nodeId: number): ClusterBroker | undefined {
    return this.#brokerMap.get(nodeId);
  }

  get topics(): IterableIterator<ClusterTopicImage> {
    return this.#byName.values();
  }

  get topicCount(): number {
    return this.#byName.size;
  }

  topic(name: string): ClusterTopicImage | undefined {
    return this.#byName.get(name);
  }

  topicById(id: string): ClusterTopicImage | undefined {
    return this.#byId.get(id);
  }

  /** Name of an existing topic that collides with `name` ('.' vs '_'), if any. */
  collidingTopic(name: string): string | undefined {
    const other = this.#byCollisionKey.get(collisionKey(name));
    return other !== undefined && other !== name ? other : undefined;
  }

  brokerConfigs(entity: string): Readonly<Record<string, string>> {
    return this.#dynamicConfigs.get(entity) ?? {};
  }

  /** Entities with dynamic broker configs ('' = cluster default). */
  brokerConfigEntities(): string[] {
    return [...this.#dynamicConfigs.keys()];
  }

  // -- Mutations (the publisher only) ------------------------------------------------------

  setController(controllerId: number, controllerEpoch: number): void {
    this.#controllerId = controllerId < 0 ? -1 : controllerId;
    this.#controllerEpoch = controllerEpoch;
  }

  /** Replaces the live brokers (UpdateMetadata always carries all of them). */
  setBrokers(brokers: readonly ClusterBroker[]): void {
    const map = new Map<number, ClusterBroker>();
    for (const b of brokers) map.set(b.nodeId, b);
    this.#brokerMap = map;
    this.#brokerList = [...map.values()].sort((a, b) => a.nodeId - b.nodeId);
  }

  putTopic(topic: ClusterTopicImage): void {
    const old = this.#byName.get(topic.name);
    if (old !== undefined && old.topicId !== topic.topicId) this.#byId.delete(old.topicId);
    this.#byName.set(topic.name, topic);
    if (topic.topicId !== ZERO_UUID) this.#byId.set(topic.topicId, topic);
    this.#byCollisionKey.set(collisionKey(topic.name), topic.name);
  }

  removeTopic(name: string): ClusterTopicImage | undefined {
    const t = this.#byName.get(name);
    if (t === undefined) return undefined;
    this.#byName.delete(name);
    if (this.#byId.get(t.topicId) === t) this.#byId.delete(t.topicId);
    if (this.#byCollisionKey.get(collisionKey(name)) === name)
      this.#byCollisionKey.delete(collisionKey(name));
    return t;
  }

  setBrokerConfigs(entity: string, configs: Readonly<Record<string, string>>): void {
    if (Object.keys(configs).length === 0) this.#dynamicConfigs.delete(entity);
    else this.#dynamicConfigs.set(entity, { ...configs });
  }
}

/** A topic image from its parts (sorted partitions, `internal` from the name). */
export function clusterTopic(
  name: string,
  topicId: string,
  partitions: Iterable<ClusterPartitionImage>,
  configs: Readonly<Record<string, string>>,
): ClusterTopicImage {
  return {
    name,
    topicId,
    partitions: [...partitions].sort((a, b) => a.partition - b.partition),
    configs,
    internal: INTERNAL_TOPICS.has(name),
  };
}
