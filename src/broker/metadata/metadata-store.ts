// Where the controller persists cluster metadata. Two backends are planned: `local` (a file in
// the first log dir; the embedded single broker) and `zookeeper` (clusters). The controller
// code is the same over both, so everything it needs goes through this interface.

import type { ProducerIdBlock, StoredMetadata, TopicRecord } from './types.js';

export interface MetadataStore {
  /** Reads the persisted state, creating an empty one (with a new cluster id) the first time. */
  load(): Promise<StoredMetadata>;
  /** Creates or replaces a topic (assignment, partition states, config overrides). */
  putTopic(topic: TopicRecord): Promise<void>;
  removeTopic(name: string): Promise<void>;
  /** Replaces the dynamic configs of one entity ('' = cluster default, or a node id). */
  putBrokerConfigs(entity: string, configs: Readonly<Record<string, string>>): Promise<void>;
  /**
   * Reserves the next block of producer ids. The reservation is durable before it returns, so
   * ids are never handed out twice, even across crashes.
   */
  allocateProducerIdBlock(size: number): Promise<ProducerIdBlock>;
  close(): Promise<void>;
}
