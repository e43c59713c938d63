// Topic auto-creation (`auto.create.topics.enable`), used by Metadata for unknown topics: the
// topic gets `num.partitions` partitions and `default.replication.factor` replicas.
//
// Concurrent auto-creations of one name on this broker share one creation: each Metadata request
// gets the topic complete. (Two clients' first Metadata requests for a new topic often arrive
// together; the second creation used to fail TOPIC_ALREADY_EXISTS before this broker's image had
// the topic, and that error went to the client — librdkafka then failed the records it had
// queued for the topic.) A creation that loses to another broker's answers LEADER_NOT_AVAILABLE
// until this broker sees the topic, as Kafka does: retriable, the client asks again.

import { ErrorCode, KafkaError } from '../../protocol/errors.js';
import type { TopicView } from '../metadata/cluster-image.js';
import type { BrokerServices } from './services.js';

const inFlight = new WeakMap<BrokerServices, Map<string, Promise<TopicView>>>();

export function autoCreateTopic(broker: BrokerServices, name: string): Promise<TopicView> {
  let pending = inFlight.get(broker);
  if (pending === undefined) {
    pending = new Map();
    inFlight.set(broker, pending);
  }
  const running = pending.get(name);
  if (running !== undefined) return running;
  const created = create(broker, name).finally(() => pending.delete(name));
  pending.set(name, created);
  return created;
}

async function create(broker: BrokerServices, name: string): Promise<TopicView> {
  try {
    return await broker.commands.createTopic({
      name,
      numPartitions: -1,
      replicationFactor: -1,
      assignments: [],
      configs: {},
    });
  } catch (e) {
    if (!(e instanceof KafkaError) || e.code !== ErrorCode.TOPIC_ALREADY_EXISTS) throw e;
    const existing = broker.image.topic(name);
    if (existing) return existing;
    throw new KafkaError(ErrorCode.LEADER_NOT_AVAILABLE, `topic ${name} is being created`, { cause: e });
  }
}
