// Wires the replication data plane into a broker: the replica fetchers (follower side) as the
// replica manager's fetcher hooks, the AlterPartition sender through which leaders change their
// ISR, and Kafka's isr-expiration task (every `replica.lag.time.max.ms` / 2 each leader drops the
// followers that lag). Configs are Kafka's `num.replica.fetchers`, `replica.fetch.*`,
// `replica.socket.timeout.ms` and `replica.lag.time.max.ms`, read once at start.

import type { TlsConnectOptions } from '../../net/connection.js';
import type { SaslOptions } from '../../net/sasl/sasl-options.js';
import type { ConfigResolver } from '../config/config-resolver.js';
import type { Logger } from '../logger.js';
import type { MetadataView } from '../metadata/cluster-image.js';
import type { ActiveController } from '../metadata/controller/active-controller.js';
import { AlterPartitionSender } from './alter-partition-sender.js';
import { ReplicaFetcherManager } from './replica-fetcher-manager.js';
import type { ReplicaManager } from './replica-manager.js';

export interface ReplicationOptions {
  readonly nodeId: number;
  readonly configs: Pick<ConfigResolver, 'brokerValue'>;
  readonly replicas: ReplicaManager;
  /** This broker's view: live brokers (ISR eligibility, leader addresses) and the controller. */
  readonly image: Pick<MetadataView, 'controllerId' | 'broker'>;
  /** The controller on this broker, called directly when it is the active one. */
  readonly localController?: ActiveController & { readonly isActive: boolean };
  /** This broker's registration epoch (-1 before it registered). */
  readonly brokerEpoch: () => bigint;
  /** TLS of connections to other brokers (an SSL inter-broker listener). */
  readonly tls?: TlsConnectOptions;
  /** SASL of the inter-broker listener (SASL_PLAINTEXT / SASL_SSL); absent: none. */
  readonly sasl?: SaslOptions;
  /** Told the record bytes each follower append wrote (the broker's replication metrics). */
  readonly replicationBytesIn?: (bytes: number) => void;
  readonly logger: Logger;
}

export interface Replication {
  readonly fetchers: ReplicaFetcherManager;
  readonly alterPartition: AlterPartitionSender;
  /** Stops the fetchers (before the logs close) and the ISR task. */
  close(): Promise<void>;
}

export function startReplication(o: ReplicationOptions): Replication {
  const num = (key: string): number => Number(o.configs.brokerValue(key));
  const fetchers = new ReplicaFetcherManager({
    nodeId: o.nodeId,
    brokerEpoch: o.brokerEpoch,
    numFetchers: Math.max(1, num('num.replica.fetchers')),
    fetchMaxBytes: num('replica.fetch.max.bytes'),
    responseMaxBytes: num('replica.fetch.response.max.bytes'),
    waitMaxMs: num('replica.fetch.wait.max.ms'),
    minBytes: num('replica.fetch.min.bytes'),
    backoffMs: num('replica.fetch.backoff.ms'),
    socketTimeoutMs: num('replica.socket.timeout.ms'),
    brokerAddress: (id) => o.image.broker(id),
    ...(o.tls ? { tls: o.tls } : {}),
    ...(o.sasl ? { sasl: o.sasl } : {}),
    ...(o.replicationBytesIn ? { replicationBytesIn: o.replicationBytesIn } : {}),
    logger: o.logger,
  });
  const alterPartition = new AlterPartitionSender({
    nodeId: o.nodeId,
    brokerEpoch: o.brokerEpoch,
    image: o.image,
    localController: o.localController,
    ...(o.tls ? { tls: o.tls } : {}),
    ...(o.sasl ? { sasl: o.sasl } : {}),
    logger: o.logger,
  });
  o.replicas.setReplicaFetcherHooks(fetchers);
  o.replicas.setLeaderReplication({
    isReplicaIsrEligible: (id) => o.image.broker(id) !== undefined,
    brokerEpoch: o.brokerEpoch,
    submitIsrChange: (proposal) => alterPartition.submit(proposal),
  });
  const lagMs = num('replica.lag.time.max.ms');
  const shrink = setInterval(() => o.replicas.maybeShrinkIsrs(), Math.max(1, Math.floor(lagMs / 2)));
  shrink.unref();
  let closing: Promise<void> | null = null;
  return {
    fetchers,
    alterPartition,
    close() {
      closing ??= (async () => {
        clearInterval(shrink);
        alterPartition.close();
        await fetchers.close();
      })();
      return closing;
    },
  };
}
