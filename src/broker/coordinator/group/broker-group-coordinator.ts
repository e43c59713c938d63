// The group coordinator inside a broker: owns __consumer_offsets (created on first use, as
// Kafka does on the first FindCoordinator: `offsets.topic.num.partitions` partitions,
// compacted), loads the partitions this broker leads, and answers "who coordinates group X".
import { ErrorCode, KafkaError } from '../../../protocol/errors.js';
import type { BrokerConfig } from '../../config/broker-config.js';
import type { Logger } from '../../logger.js';
import type { Controller } from '../../metadata/controller.js';
import type { MetadataImage, TopicChange } from '../../metadata/metadata-image.js';
import type { ReplicaManager } from '../../replica/replica-manager.js';
import { LogPartitionWriter } from '../runtime/log-partition-writer.js';
import { groupConfigFromProps } from './group-config.js';
import { GroupCoordinator } from './group-coordinator.js';

export const CONSUMER_OFFSETS_TOPIC = '__consumer_offsets';

export interface GroupCoordinatorDeps {
  readonly config: BrokerConfig;
  readonly image: MetadataImage;
  readonly controller: Controller;
  readonly replicas: ReplicaManager;
  readonly logger: Logger;
}

export interface CoordinatorLocation {
  errorCode: number;
  nodeId: number;
  host: string;
  port: number;
}

export class BrokerGroupCoordinator {
  readonly coordinator: GroupCoordinator;
  #creating: Promise<void> | null = null;
  /** Loads in progress, so that FindCoordinator right after creating the topic can wait. */
  readonly #loads = new Map<number, Promise<void>>();

  constructor(private readonly deps: GroupCoordinatorDeps) {
    const writer = new LogPartitionWriter(CONSUMER_OFFSETS_TOPIC, (p) =>
      deps.replicas.get(CONSUMER_OFFSETS_TOPIC, p),
    );
    this.coordinator = new GroupCoordinator({
      config: groupConfigFromProps(deps.config.props),
      writer,
      loader: writer,
      onError: (partition, err) =>
        deps.logger.log('warn', 'group coordinator error', {
          partition,
          error: err instanceof Error ? err.message : String(err),
        }),
    });
    deps.controller.onChange((change) => this.#onTopicChange(change));
  }

  /** Loads the partitions of an existing __consumer_offsets that this broker leads. */
  startup(): void {
    this.#loadLedPartitions();
  }

  #onTopicChange(change: TopicChange): void {
    if (change.topic.name !== CONSUMER_OFFSETS_TOPIC) return;
    if (change.kind === 'deleted') {
      for (const p of this.coordinator.runtime.partitions()) this.coordinator.onResignation(p);
      return;
    }
    this.#loadLedPartitions();
  }

  #loadLedPartitions(): void {
    const topic = this.deps.image.topic(CONSUMER_OFFSETS_TOPIC);
    if (topic === undefined) return;
    for (const p of topic.partitions) {
      const led = p.leader === this.deps.config.nodeId;
      const status = this.coordinator.runtime.status(p.partition);
      if (led && status === undefined) {
        const load = this.coordinator
          .onElection(p.partition)
          .catch((err: unknown) =>
            this.deps.logger.log('error', 'loading __consumer_offsets partition failed', {
              partition: p.partition,
              error: err instanceof Error ? err.message : String(err),
            }),
          )
          .finally(() => this.#loads.delete(p.partition));
        this.#loads.set(p.partition, load);
      } else if (!led && status !== undefined) {
        this.coordinator.onResignation(p.partition);
      }
    }
  }

  /** Creates __consumer_offsets on first use; concurrent callers share one creation. */
  ensureTopic(): Promise<void> {
    if (this.deps.image.topic(CONSUMER_OFFSETS_TOPIC) !== undefined) return Promise.resolve();
    this.#creating ??= this.#createTopic().finally(() => {
      this.#creating = null;
    });
    return this.#creating;
  }

  async #createTopic(): Promise<void> {
    const { config, image, controller } = this.deps;
    const props = config.props;
    const partitions = Number(props.get('offsets.topic.num.partitions') ?? 50);
    const wantedRf = Number(props.get('offsets.topic.replication.factor') ?? 3);
    try {
      await controller.createTopic({
        name: CONSUMER_OFFSETS_TOPIC,
        numPartitions: partitions,
        // Kafka refuses to create it below the configured factor; a single embedded broker
        // must still have consumer groups, so cap at the cluster size.
        replicationFactor: Math.max(1, Math.min(wantedRf, image.brokers.length)),
        assignments: [],
        configs: {
          'cleanup.policy': 'compact',
          'compression.type': 'producer',
          'segment.bytes': props.get('offsets.topic.segment.bytes') ?? '104857600',
        },
      });
    } catch (e) {
      if (!(e instanceof KafkaError && e.code === ErrorCode.TOPIC_ALREADY_EXISTS)) throw e;
    }
  }

  /** FindCoordinator for a group id. */
  async locate(groupId: string): Promise<CoordinatorLocation> {
    const none = (errorCode: number): CoordinatorLocation => ({ errorCode, nodeId: -1, host: '', port: -1 });
    try {
      if (this.deps.image.topic(CONSUMER_OFFSETS_TOPIC) === undefined) {
        await this.ensureTopic();
        // A fresh topic loads in no time: answer once the group's shard is ready rather than
        // sending the client into COORDINATOR_LOAD_IN_PROGRESS retries.
        await this.#loads.get(this.coordinator.partitionFor(groupId));
      }
    } catch (e) {
      this.deps.logger.log('warn', 'cannot create __consumer_offsets', {
        error: e instanceof Error ? e.message : String(e),
      });
      return none(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    }
    const topic = this.deps.image.topic(CONSUMER_OFFSETS_TOPIC);
    const p = topic?.partitions[this.coordinator.partitionFor(groupId)];
    if (p === undefined || p.leader < 0) return none(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    const broker = this.deps.image.broker(p.leader);
    if (broker === undefined) return none(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    return { errorCode: ErrorCode.NONE, nodeId: broker.nodeId, host: broker.host, port: broker.port };
  }

  close(): void {
    this.coordinator.close();
  }
}
