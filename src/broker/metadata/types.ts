// The shapes API handlers read (through `MetadataView`): a topic with its id, config overrides
// and partitions, each with leader, epoch, replicas and ISR; a broker's advertised address. What
// the stores persist is in `store/records.ts`.

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

export const INTERNAL_TOPICS: ReadonlySet<string> = new Set(['__consumer_offsets', '__transaction_state']);
