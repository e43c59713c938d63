// The error for a partition this broker does not host, as Kafka's ReplicaManager gives it: a
// partition the cluster has (it lives on other brokers) is NOT_LEADER_OR_FOLLOWER, so clients
// refresh metadata and go to its leader; one the cluster does not have is UNKNOWN_TOPIC_OR_PARTITION.
import { ErrorCode } from '../../protocol/errors.js';
import type { BrokerServices } from './services.js';

export function notHostedError(
  broker: Pick<BrokerServices, 'image'>,
  topic: string,
  partition: number,
): number {
  const t = broker.image.topic(topic);
  return t !== undefined && partition >= 0 && partition < t.partitions.length
    ? ErrorCode.NOT_LEADER_OR_FOLLOWER
    : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
}
