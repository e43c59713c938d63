// The in-memory view every API serves from: brokers, controller, topics by name and by id,
// dynamic broker configs. Only the controller changes it (single event loop, no locks), and
// always after the change is durable in the MetadataStore.

import { collisionKey } from './topic-names.js';
import type { BrokerRegistration, PartitionRecord, StoredMetadata, TopicRecord } from './types.js';
import { INTERNAL_TOPICS } from './types.js';

export interface TopicImage extends TopicRecord {
  readonly internal: boolean;
}

export type TopicChange =
  | { readonly kind: 'created'; readonly topic: TopicImage }
  | {
      readonly kind: 'partitions-added';
      readonly topic: TopicImage;
      readonly added: readonly PartitionRecord[];
    }
  | { readonly kind: 'configs-changed'; readonly topic: TopicImage }
  | { readonly kind: 'deleted'; readonly topic: TopicImage };

export class MetadataImage {
  readonly clusterId: string;
  private readonly byName = new Map<string, TopicImage>();
  private readonly byId = new Map<string, TopicImage>();
  private readonly byCollisionKey = new Map<string, string>();
  private readonly brokerMap = new Map<number, BrokerRegistration>();
  private dynamicConfigs: Record<string, Readonly<Record<string, string>>>;

  constructor(
    stored: StoredMetadata,
    readonly controllerId: number,
  ) {
    this.clusterId = stored.clusterId;
    for (const t of stored.topics) this.putTopic(t);
    this.dynamicConfigs = { ...stored.brokerConfigs };
  }

  get brokers(): readonly BrokerRegistration[] {
    return [...this.brokerMap.values()].sort((a, b) => a.nodeId - b.nodeId);
  }

  broker(nodeId: number): BrokerRegistration | undefined {
    return this.brokerMap.get(nodeId);
  }

  registerBroker(b: BrokerRegistration): void {
    this.brokerMap.set(b.nodeId, b);
  }

  get topics(): IterableIterator<TopicImage> {
    return this.byName.values();
  }

  get topicCount(): number {
    return this.byName.size;
  }

  topic(name: string): TopicImage | undefined {
    return this.byName.get(name);
  }

  topicById(id: string): TopicImage | undefined {
    return this.byId.get(id);
  }

  /** Name of an existing topic that collides with `name` ('.' vs '_'), if any. */
  collidingTopic(name: string): string | undefined {
    const other = this.byCollisionKey.get(collisionKey(name));
    return other !== undefined && other !== name ? other : undefined;
  }

  putTopic(record: TopicRecord): TopicImage {
    const old = this.byName.get(record.name);
    if (old && old.topicId !== record.topicId) this.byId.delete(old.topicId);
    const img: TopicImage = { ...record, internal: INTERNAL_TOPICS.has(record.name) };
    this.byName.set(record.name, img);
    this.byId.set(record.topicId, img);
    this.byCollisionKey.set(collisionKey(record.name), record.name);
    return img;
  }

  removeTopic(name: string): TopicImage | undefined {
    const t = this.byName.get(name);
    if (!t) return undefined;
    this.byName.delete(name);
    this.byId.delete(t.topicId);
    this.byCollisionKey.delete(collisionKey(name));
    return t;
  }

  brokerConfigs(entity: string): Readonly<Record<string, string>> {
    return this.dynamicConfigs[entity] ?? {};
  }

  setBrokerConfigs(entity: string, configs: Readonly<Record<string, string>>): void {
    this.dynamicConfigs[entity] = { ...configs };
  }
}
