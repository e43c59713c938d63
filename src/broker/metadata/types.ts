// The cluster metadata the broker serves from: topics with ids, partitions with leader/ISR,
// topic config overrides, dynamic broker configs and the producer-id watermark. These records
// are what a MetadataStore persists; the same shapes map onto ZooKeeper's znodes later
// (`/brokers/topics/<t>`, `.../partitions/<p>/state`, `/config/topics/<t>`, `/latest_producer_id_block`).

export interface PartitionRecord {
  readonly partition: number;
  readonly leader: number;
  readonly leaderEpoch: number;
  readonly replicas: readonly number[];
  readonly isr: readonly number[];
}

export interface TopicRecord {
  readonly name: string;
  /** Kafka's uuid text form (22 chars, URL-safe base64). */
  readonly topicId: string;
  readonly partitions: readonly PartitionRecord[];
  /** Topic-level overrides only (Kafka names), never the defaults. */
  readonly configs: Readonly<Record<string, string>>;
}

export interface BrokerRegistration {
  readonly nodeId: number;
  readonly host: string;
  readonly port: number;
  readonly rack: string | null;
}

export interface StoredMetadata {
  readonly clusterId: string;
  readonly topics: readonly TopicRecord[];
  /** Dynamic broker configs: key '' is the cluster-wide default, otherwise a node id. */
  readonly brokerConfigs: Readonly<Record<string, Readonly<Record<string, string>>>>;
}

/** A block of producer ids handed to one broker (Kafka's ProducerIdsBlock). */
export interface ProducerIdBlock {
  readonly firstProducerId: bigint;
  readonly size: number;
}

export const INTERNAL_TOPICS: ReadonlySet<string> = new Set(['__consumer_offsets', '__transaction_state']);
