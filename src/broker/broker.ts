// Assembles one broker: config → metadata store and image → log manager → replica manager →
// controller → API registry → socket server. `startBroker` is the embedded entry point used by
// `samsa start`, the testkit and applications; `close()` answers in-flight requests, then
// flushes logs and writes checkpoints.

import { hostname } from 'node:os';
import { LogManager, lockLogDirs } from '../storage/index.js';
import { Dispatcher } from './apis/dispatcher.js';
import { ALL_HANDLERS } from './apis/index.js';
import { ApiRegistry } from './apis/registry.js';
import type { BrokerServices } from './apis/services.js';
import { type BrokerConfig, type BrokerConfigInput, loadBrokerConfig } from './config/broker-config.js';
import { ConfigResolver } from './config/config-resolver.js';
import { logConfigFor } from './config/log-config-for.js';
import { BrokerGroupCoordinator } from './coordinator/group/broker-group-coordinator.js';
import { BrokerTxnCoordinator } from './coordinator/txn/broker-txn-coordinator.js';
import { type Logger, silentLogger } from './logger.js';
import { Controller } from './metadata/controller.js';
import { LocalMetadataStore } from './metadata/local-store.js';
import { MetadataImage } from './metadata/metadata-image.js';
import { ProducerIdManager } from './metadata/producer-ids.js';
import { BufferPool } from './network/buffer-pool.js';
import { SocketServer } from './network/socket-server.js';
import { ReplicaManager } from './replica/replica-manager.js';

export interface StartBrokerOptions extends BrokerConfigInput {
  /** A ready config; when given, the other config fields are ignored. */
  config?: BrokerConfig;
  logger?: Logger;
}

export interface BrokerHandle {
  /** Host clients should connect to (the advertised one). */
  readonly host: string;
  readonly port: number;
  readonly nodeId: number;
  readonly clusterId: string;
  /** `host:port`, handy as a bootstrap string. */
  readonly bootstrap: string;
  /** The address the listener is bound to (may differ from the advertised host/port). */
  readonly listener: { readonly host: string; readonly port: number };
  readonly services: BrokerServices;
  /** Graceful stop: answers what was received, flushes, checkpoints. Idempotent. */
  close(): Promise<void>;
}

export async function startBroker(options: StartBrokerOptions = {}): Promise<BrokerHandle> {
  const config = options.config ?? loadBrokerConfig(options);
  const logger = options.logger ?? silentLogger;
  // Lock every log dir before anything reads or writes it (the metadata file lives in the first).
  const locks = await lockLogDirs(config.logDirs);
  const releaseLocks = () => Promise.all(locks.map((l) => l.release()));
  let store: LocalMetadataStore;
  let stored: Awaited<ReturnType<LocalMetadataStore['load']>>;
  try {
    store = new LocalMetadataStore(config.logDirs[0]!);
    stored = await store.load();
  } catch (e) {
    await releaseLocks();
    throw e;
  }
  const image = new MetadataImage(stored, config.nodeId);
  const configs = new ConfigResolver(config.props, () => ({
    cluster: image.brokerConfigs(''),
    broker: image.brokerConfigs(String(config.nodeId)),
  }));
  const topicConfigs = new Map([...image.topics].map((t) => [t.name, logConfigFor(configs, t.configs)]));
  const logs = await LogManager.open({
    dirsLocked: true,
    logDirs: [...config.logDirs],
    defaults: logConfigFor(configs, {}),
    topicConfigs,
    brokerId: config.nodeId,
    clusterId: image.clusterId,
    checkpointIntervalMs: config.logFlushOffsetCheckpointIntervalMs,
    retentionCheckIntervalMs: config.logRetentionCheckIntervalMs,
    onError: (error, context) =>
      logger.log('error', 'storage background task failed', { context, error: error.message }),
  }).catch(async (e: unknown) => {
    await store.close();
    await releaseLocks();
    throw e;
  });
  const replicas = new ReplicaManager(logs, image, configs, config.nodeId, logger);
  const controller = new Controller(store, image, config, logger);
  controller.onChange((change) => replicas.apply(change));
  const groups = new BrokerGroupCoordinator({ config, image, controller, replicas, logger });
  const producerIds = new ProducerIdManager(store);
  const txns = new BrokerTxnCoordinator({ config, image, controller, replicas, producerIds, groups, logger });
  const buffers = new BufferPool();
  const services: BrokerServices = {
    nodeId: config.nodeId,
    config,
    configs,
    image,
    controller,
    replicas,
    logs,
    producerIds,
    registry: new ApiRegistry(ALL_HANDLERS),
    logger,
    groups,
    txns,
    buffers,
  };
  let server: SocketServer | null = null;
  try {
    await replicas.startup();
    groups.startup();
    txns.startup();
    server = new SocketServer({
      host: config.host,
      port: config.port,
      maxRequestBytes: config.socketRequestMaxBytes,
      queuedMaxRequestBytes: config.queuedMaxRequestBytes,
      idleMs: config.connectionsMaxIdleMs,
      maxConnections: config.maxConnections,
      handler: new Dispatcher(services),
      logger,
      buffers,
    });
    await server.listen();
  } catch (e) {
    await logs.close();
    await store.close();
    buffers.close();
    await releaseLocks();
    throw e;
  }
  const host = config.advertisedHost ?? advertisableHost(server.host);
  const port = config.advertisedPort && config.advertisedPort > 0 ? config.advertisedPort : server.port;
  image.registerBroker({ nodeId: config.nodeId, host, port, rack: config.rack });
  logs.startBackgroundTasks();
  logger.log('info', 'broker started', { nodeId: config.nodeId, host, port, clusterId: image.clusterId });

  let closing: Promise<void> | null = null;
  const srv = server;
  return {
    host,
    port,
    nodeId: config.nodeId,
    clusterId: image.clusterId,
    bootstrap: `${host.includes(':') ? `[${host}]` : host}:${port}`,
    listener: { host: server.host, port: server.port },
    services,
    close() {
      closing ??= (async () => {
        replicas.beginShutdown();
        await srv.close();
        txns.close();
        groups.close();
        await logs.close();
        await store.close();
        buffers.close();
        await releaseLocks();
        logger.log('info', 'broker stopped', { nodeId: config.nodeId });
      })();
      return closing;
    },
  };
}

/** A wildcard bind address cannot be given to clients; use the machine's name instead. */
function advertisableHost(bound: string): string {
  return bound === '0.0.0.0' || bound === '::' ? hostname() : bound;
}
