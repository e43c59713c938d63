// The group coordinator inside a broker: owns __consumer_offsets (created on first use, as
// Kafka does on the first FindCoordinator: `offsets.topic.num.partitions` partitions,
// compacted), loads the partitions this broker leads, and answers "who coordinates group X".
import type { BrokerConfig } from '../../config/broker-config.js';
import type { Logger } from '../../logger.js';
import type { MetadataView } from '../../metadata/cluster-image.js';
import type { CreateTopicSpec, TopicCommands } from '../../metadata/topic-commands.js';
import type { MinIsrOf } from '../../replica/min-isr.js';
import type { ReplicaManager } from '../../replica/replica-manager.js';
import { type CoordinatorLocation, InternalTopic, logCoordinatorError } from '../runtime/internal-topic.js';
import { LogPartitionWriter } from '../runtime/log-partition-writer.js';
import { groupConfigFromProps } from './group-config.js';
import { GroupCoordinator } from './group-coordinator.js';
import { topicCatalog } from './topic-catalog.js';

export type { CoordinatorLocation } from '../runtime/internal-topic.js';

export const CONSUMER_OFFSETS_TOPIC = '__consumer_offsets';

export interface GroupCoordinatorDeps {
  readonly config: BrokerConfig;
  readonly image: MetadataView;
  readonly commands: TopicCommands;
  readonly replicas: ReplicaManager;
  /** min.insync.replicas of __consumer_offsets, for the coordinator's acks=all writes; absent: 1. */
  readonly minIsrOf?: MinIsrOf;
  readonly logger: Logger;
}

export class BrokerGroupCoordinator {
  readonly coordinator: GroupCoordinator;
  readonly #topic: InternalTopic;

  constructor(private readonly deps: GroupCoordinatorDeps) {
    const writer = new LogPartitionWriter(
      CONSUMER_OFFSETS_TOPIC,
      (p) => deps.replicas.get(CONSUMER_OFFSETS_TOPIC, p),
      deps.minIsrOf,
    );
    this.coordinator = new GroupCoordinator({
      config: groupConfigFromProps(deps.config.props),
      writer,
      loader: writer,
      onError: logCoordinatorError(deps.logger, 'group coordinator'),
      topics: topicCatalog(deps.image),
    });
    this.#topic = new InternalTopic(CONSUMER_OFFSETS_TOPIC, deps, this.coordinator, () => this.#topicSpec());
  }

  /** The internal topic's wiring: the metadata publisher feeds it this broker's leadership changes. */
  get internalTopic(): InternalTopic {
    return this.#topic;
  }

  /** Creates __consumer_offsets on first use; concurrent callers share one creation. */
  ensureTopic(): Promise<void> {
    return this.#topic.ensureTopic();
  }

  #topicSpec(): CreateTopicSpec {
    const { config, image } = this.deps;
    const props = config.props;
    const wantedRf = Number(props.get('offsets.topic.replication.factor') ?? 3);
    return {
      name: CONSUMER_OFFSETS_TOPIC,
      numPartitions: Number(props.get('offsets.topic.num.partitions') ?? 50),
      // Kafka refuses to create it below the configured factor; a single embedded broker
      // must still have consumer groups, so cap at the cluster size.
      replicationFactor: Math.max(1, Math.min(wantedRf, image.brokers.length)),
      assignments: [],
      configs: {
        'cleanup.policy': 'compact',
        'compression.type': 'producer',
        'segment.bytes': props.get('offsets.topic.segment.bytes') ?? '104857600',
      },
    };
  }

  /** FindCoordinator for a group id. */
  locate(groupId: string): Promise<CoordinatorLocation> {
    return this.#topic.locate(groupId);
  }

  close(): void {
    this.coordinator.close();
  }
}
