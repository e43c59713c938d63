// The broker state handlers may use. `broker.ts` builds it; handlers never import broker.ts,
// which keeps every `apis/NN-name.ts` testable with a hand-made services object.

import type { LogManager } from '../../storage/index.js';
import type { BrokerConfig } from '../config/broker-config.js';
import type { ConfigResolver } from '../config/config-resolver.js';
import type { BrokerGroupCoordinator } from '../coordinator/group/broker-group-coordinator.js';
import type { BrokerTxnCoordinator } from '../coordinator/txn/broker-txn-coordinator.js';
import type { Logger } from '../logger.js';
import type { MetadataView } from '../metadata/cluster-image.js';
import type { ActiveController, LeadershipController } from '../metadata/controller/active-controller.js';
import type { ControllerRequestReceiver } from '../metadata/controller/controller-channel.js';
import type { ProducerIdManager } from '../metadata/producer-ids.js';
import type { ScramCredentials } from '../metadata/scram-credentials.js';
import type { TopicCommands } from '../metadata/topic-commands.js';
import type { BrokerMetrics } from '../metrics/broker-metrics.js';
import type { BufferPool } from '../network/buffer-pool.js';
import type { BrokerQuotas } from '../quota/broker-quotas.js';
import type { FetchSessionCache } from '../replica/fetch-session-cache.js';
import type { ReplicaManager } from '../replica/replica-manager.js';
import type { AclAuthorizer } from '../security/authorizer.js';
import type { ApiRegistry } from './registry.js';

export interface BrokerServices {
  readonly nodeId: number;
  readonly config: BrokerConfig;
  readonly configs: ConfigResolver;
  /** This broker's view of the cluster (what the controller last told it, configs from the store). */
  readonly image: MetadataView;
  /** Admin commands (topics, partitions, configs): written to the metadata store, awaited here. */
  readonly commands: TopicCommands;
  readonly replicas: ReplicaManager;
  readonly logs: LogManager;
  readonly producerIds: ProducerIdManager;
  readonly registry: ApiRegistry;
  readonly logger: Logger;
  /** SASL/SCRAM credentials in the metadata store; absent in hand-made test services. */
  readonly scram?: ScramCredentials;
  /** The group coordinator (consumer groups, committed offsets); absent in hand-made test services. */
  readonly groups?: BrokerGroupCoordinator;
  /** The transaction coordinator (__transaction_state, markers); absent in hand-made test services. */
  readonly txns?: BrokerTxnCoordinator;
  /** Reusable large buffers (request frames, fetch reads); absent = plain allocations. */
  readonly buffers?: BufferPool;
  /**
   * This broker's side of the controller's LeaderAndIsr / StopReplica / UpdateMetadata (cluster
   * mode); absent: this broker takes no controller requests (STALE_CONTROLLER_EPOCH).
   */
  readonly controllerRequests?: ControllerRequestReceiver;
  /** The controller on this broker (cluster mode), for ControlledShutdown and AlterPartition. */
  readonly activeController?: ActiveController;
  /** The same controller for ElectLeaders and partition reassignments (cluster mode). */
  readonly leadership?: LeadershipController;
  /** Incremental fetch sessions (KIP-227); absent in hand-made test services (a default cache). */
  readonly fetchSessions?: FetchSessionCache;
  /** Client quotas (quota/broker-quotas.ts); absent in hand-made test services (no quotas). */
  readonly quotas?: BrokerQuotas;
  /** ACLs (`authorizer.class.name`); absent = everything is allowed (handlers skip every check). */
  readonly authorizer?: AclAuthorizer;
  /** Counters read by /metrics; absent when `http.listener` is unset (nothing is counted). */
  readonly metrics?: BrokerMetrics;
}
