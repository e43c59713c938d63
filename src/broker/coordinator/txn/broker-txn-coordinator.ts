// The transaction coordinator inside a broker: owns __transaction_state (created on first use,
// as Kafka does on the first FindCoordinator for a transactional id: compacted,
// `transaction.state.log.num.partitions` partitions), loads the partitions this broker leads,
// and answers "who coordinates transactional id X".
import { ErrorCode, KafkaError } from '../../../protocol/errors.js';
import type { BrokerConfig } from '../../config/broker-config.js';
import type { Logger } from '../../logger.js';
import type { Controller } from '../../metadata/controller.js';
import type { MetadataImage, TopicChange } from '../../metadata/metadata-image.js';
import type { ProducerIdManager } from '../../metadata/producer-ids.js';
import type { ReplicaManager } from '../../replica/replica-manager.js';
import type { BrokerGroupCoordinator, CoordinatorLocation } from '../group/broker-group-coordinator.js';
import { LogPartitionWriter } from '../runtime/log-partition-writer.js';
import { BrokerMarkerWriter } from './broker-marker-writer.js';
import { txnConfigFromProps } from './txn-config.js';
import { TransactionCoordinator } from './txn-coordinator.js';

export const TRANSACTION_STATE_TOPIC = '__transaction_state';

export interface TxnCoordinatorDeps {
  readonly config: BrokerConfig;
  readonly image: MetadataImage;
  readonly controller: Controller;
  readonly replicas: ReplicaManager;
  readonly producerIds: ProducerIdManager;
  readonly groups: BrokerGroupCoordinator | undefined;
  readonly logger: Logger;
}

export class BrokerTxnCoordinator {
  readonly coordinator: TransactionCoordinator;
  readonly markers: BrokerMarkerWriter;
  #creating: Promise<void> | null = null;
  readonly #loads = new Map<number, Promise<void>>();

  constructor(private readonly deps: TxnCoordinatorDeps) {
    const { replicas, logger } = deps;
    const writer = new LogPartitionWriter(TRANSACTION_STATE_TOPIC, (p) =>
      replicas.get(TRANSACTION_STATE_TOPIC, p),
    );
    this.markers = new BrokerMarkerWriter({
      image: deps.image,
      replicas,
      groups: () => deps.groups?.coordinator,
    });
    this.coordinator = new TransactionCoordinator({
      config: txnConfigFromProps(deps.config.props),
      writer,
      loader: writer,
      markers: this.markers,
      producerIds: () => deps.producerIds.generate(),
      coordinatorEpochOf: (p) => Math.max(0, replicas.get(TRANSACTION_STATE_TOPIC, p)?.leaderEpoch ?? 0),
      onError: (partition, err) =>
        logger.log('warn', 'transaction coordinator error', {
          partition,
          error: err instanceof Error ? err.message : String(err),
        }),
    });
    deps.controller.onChange((change) => this.#onTopicChange(change));
  }

  startup(): void {
    this.#loadLedPartitions();
  }

  #onTopicChange(change: TopicChange): void {
    if (change.topic.name !== TRANSACTION_STATE_TOPIC) return;
    if (change.kind === 'deleted') {
      for (const p of this.coordinator.runtime.partitions()) this.coordinator.onResignation(p);
      return;
    }
    this.#loadLedPartitions();
  }

  #loadLedPartitions(): void {
    const topic = this.deps.image.topic(TRANSACTION_STATE_TOPIC);
    if (topic === undefined) return;
    for (const p of topic.partitions) {
      const led = p.leader === this.deps.config.nodeId;
      const status = this.coordinator.runtime.status(p.partition);
      if (led && status === undefined && !this.#loads.has(p.partition)) {
        const load = this.coordinator
          .onElection(p.partition)
          .catch((err: unknown) =>
            this.deps.logger.log('error', 'loading __transaction_state partition failed', {
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

  /** Creates __transaction_state on first use and waits for the shard of `transactionalId`. */
  async ensureReady(transactionalId: string): Promise<void> {
    if (this.deps.image.topic(TRANSACTION_STATE_TOPIC) !== undefined) return;
    this.#creating ??= this.#createTopic().finally(() => {
      this.#creating = null;
    });
    await this.#creating;
    await this.#loads.get(this.coordinator.partitionFor(transactionalId));
  }

  async #createTopic(): Promise<void> {
    const { config, image, controller } = this.deps;
    const props = config.props;
    const rf = Math.max(
      1,
      Math.min(Number(props.get('transaction.state.log.replication.factor') ?? 3), image.brokers.length),
    );
    const minIsr = Math.min(rf, Number(props.get('transaction.state.log.min.isr') ?? 2));
    try {
      await controller.createTopic({
        name: TRANSACTION_STATE_TOPIC,
        numPartitions: this.coordinator.config.numPartitions,
        replicationFactor: rf,
        assignments: [],
        configs: {
          'cleanup.policy': 'compact',
          'compression.type': 'uncompressed',
          'min.insync.replicas': String(minIsr),
          'segment.bytes': props.get('transaction.state.log.segment.bytes') ?? '104857600',
        },
      });
    } catch (e) {
      if (!(e instanceof KafkaError && e.code === ErrorCode.TOPIC_ALREADY_EXISTS)) throw e;
    }
  }

  /** FindCoordinator for a transactional id. */
  async locate(transactionalId: string): Promise<CoordinatorLocation> {
    const none = (errorCode: number): CoordinatorLocation => ({ errorCode, nodeId: -1, host: '', port: -1 });
    try {
      await this.ensureReady(transactionalId);
    } catch (e) {
      this.deps.logger.log('warn', 'cannot create __transaction_state', {
        error: e instanceof Error ? e.message : String(e),
      });
      return none(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    }
    const topic = this.deps.image.topic(TRANSACTION_STATE_TOPIC);
    const p = topic?.partitions[this.coordinator.partitionFor(transactionalId)];
    if (p === undefined || p.leader < 0) return none(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    const broker = this.deps.image.broker(p.leader);
    if (broker === undefined) return none(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    return { errorCode: ErrorCode.NONE, nodeId: broker.nodeId, host: broker.host, port: broker.port };
  }

  close(): void {
    this.coordinator.close();
  }
}
