// Topic auto-creation (`auto.create.topics.enable`), used by Metadata for unknown topics: the
// topic gets `num.partitions` partitions and `default.replication.factor` replicas. A concurrent
// creation of the same name counts as success.

import { ErrorCode, KafkaError } from '../../protocol/errors.js';
import type { TopicView } from '../metadata/cluster-image.js';
import type { BrokerServices } from './services.js';

export async function autoCreateTopic(broker: BrokerServices, name: string): Promise<TopicView> {
  try {
    return await broker.commands.createTopic({
      name,
      numPartitions: -1,
      replicationFactor: -1,
      assignments: [],
      configs: {},
    });
  } catch (e) {
    const existing = broker.image.topic(name);
    if (e instanceof KafkaError && e.code === ErrorCode.TOPIC_ALREADY_EXISTS && existing) return existing;
    throw e;
  }
}
