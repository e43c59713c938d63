// The transaction coordinator inside a broker: owns __transaction_state (created on first use,
// as Kafka does on the first FindCoordinator for a transactional id: compacted,
// `transaction.state.log.num.partitions` partitions), loads the partitions this broker leads,
// and answers "who coordinates transactional id X".
import type { BrokerLinkOptions } from '../../../net/broker-link.js';
import type { BrokerConfig } from '../../config/broker-config.js';
import type { Logger } from '../../logger.js';
import type { MetadataView } from '../../metadata/cluster-image.js';
import type { ProducerIdManager } from '../../metadata/producer-ids.js';
import type { CreateTopicSpec, TopicCommands } from '../../metadata/topic-commands.js';
import type { MinIsrOf } from '../../replica/min-isr.js';
import type { ReplicaManager } from '../../replica/replica-manager.js';
import type { BrokerGroupCoordinator } from '../group/broker-group-coordinator.js';
import { type CoordinatorLocation, InternalTopic, logCoordinatorError } from '../runtime/internal-topic.js';
import { LogPartitionWriter } from '../runtime/log-partition-writer.js';
import { BrokerLinks } from './broker-links.js';
import { BrokerMarkerWriter, REMOTE_TIMEOUT_MS } from './broker-marker-writer.js';
import { addRemotely, verifyRemotely } from './remote-verifier.js';
import { type TxnConfig, txnConfigFromProps } from './txn-config.js';
import { TransactionCoordinator } from './txn-coordinator.js';

export const TRANSACTION_STATE_TOPIC = '__transaction_state';

export interface TxnCoordinatorDeps {
  readonly config: BrokerConfig;
  readonly image: MetadataView;
  readonly commands: TopicCommands;
  readonly replicas: ReplicaManager;
  readonly producerIds: ProducerIdManager;
  readonly groups: BrokerGroupCoordinator | undefined;
  /** TLS and SASL of connections to other brokers (the inter-broker listener's protocol). */
  readonly interBrokerSecurity?: Pick<BrokerLinkOptions, 'tls' | 'sasl'>;
  /** min.insync.replicas per topic, for the coordinator's acks=all writes; absent: 1. */
  readonly minIsrOf?: MinIsrOf;
  readonly logger: Logger;
}

/** `transaction.version` as ApiVersions reports it (Kafka's finalized feature). */
export interface FinalizedTransactionVersion {
  readonly level: number;
  /**
   * Kafka's FinalizedFeaturesEpoch: clients take the features of the highest epoch they have
   * seen. The level is a static config here, so the epoch is the time (ms) it took effect: the
   * broker's start. A restart with another level is then news to every client.
   */
  readonly epoch: bigint;
}

export class BrokerTxnCoordinator {
  readonly coordinator: TransactionCoordinator;
  readonly transactionVersion: FinalizedTransactionVersion;
  readonly markers: BrokerMarkerWriter;
  readonly #topic: InternalTopic;
  readonly #links: BrokerLinks;

  constructor(private readonly deps: TxnCoordinatorDeps) {
    const { replicas } = deps;
    const writer = new LogPartitionWriter(
      TRANSACTION_STATE_TOPIC,
      (p) => replicas.get(TRANSACTION_STATE_TOPIC, p),
      deps.minIsrOf,
    );
    const nodeId = deps.config.nodeId;
    this.#links = new BrokerLinks(
      deps.image,
      `samsa-txn-coordinator-${nodeId}`,
      REMOTE_TIMEOUT_MS,
      deps.interBrokerSecurity,
    );
    this.markers = new BrokerMarkerWriter({
      image: deps.image,
      replicas,
      groups: () => deps.groups?.coordinator,
      nodeId,
      links: this.#links,
      ...(deps.minIsrOf ? { minIsrOf: deps.minIsrOf } : {}),
    });
    const remote = { image: deps.image, links: this.#links, nodeId, topic: TRANSACTION_STATE_TOPIC };
    const config: TxnConfig = txnConfigFromProps(deps.config.props);
    this.transactionVersion = { level: config.transactionVersion, epoch: BigInt(Date.now()) };
    this.coordinator = new TransactionCoordinator({
      config,
      writer,
      loader: writer,
      markers: this.markers,
      producerIds: () => deps.producerIds.generate(),
      coordinatorEpochOf: (p) => Math.max(0, replicas.get(TRANSACTION_STATE_TOPIC, p)?.leaderEpoch ?? 0),
      verifyRemotely: (p, id, producerId, epoch, partitions) =>
        verifyRemotely(remote, p, id, producerId, epoch, partitions),
      addRemotely: (p, id, producerId, epoch, partitions) =>
        addRemotely(remote, p, id, producerId, epoch, partitions),
      onError: logCoordinatorError(deps.logger, 'transaction coordinator'),
    });
    this.#topic = new InternalTopic(TRANSACTION_STATE_TOPIC, deps, this.coordinator, () => this.#topicSpec());
  }

  /** The internal topic's wiring: the metadata publisher feeds it this broker's leadership changes. */
  get internalTopic(): InternalTopic {
    return this.#topic;
  }

  /** Creates __transaction_state on first use and waits for the shard of `transactionalId`. */
  ensureReady(transactionalId: string): Promise<void> {
    return this.#topic.ensureReady(transactionalId);
  }

  #topicSpec(): CreateTopicSpec {
    const { config, image } = this.deps;
    const props = config.props;
    const rf = Math.max(
      1,
      Math.min(Number(props.get('transaction.state.log.replication.factor') ?? 3), image.brokers.length),
    );
    const minIsr = Math.min(rf, Number(props.get('transaction.state.log.min.isr') ?? 2));
    return {
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
    };
  }

  /** FindCoordinator for a transactional id. */
  locate(transactionalId: string): Promise<CoordinatorLocation> {
    return this.#topic.locate(transactionalId);
  }

  close(): void {
    this.coordinator.close();
    this.#links.close();
  }
}
