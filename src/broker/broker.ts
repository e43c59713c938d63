// Assembles one broker, the same way alone or in a cluster: config → log-dir locks → metadata
// store (local file, or ZooKeeper when `zookeeper.connect` is set) → publisher (this broker's
// view) → log manager → replica manager → controller-request receiver, controller channel and
// controller (every broker runs one; the elected one acts) → admin commands → coordinators →
// API registry → listeners (a socket server each) → broker registration → the controller's first word.
// `startBroker` is the entry point of `samsa start`, the testkit and applications; `close()`
// answers in-flight requests, gives up the controller role, then flushes logs and checkpoints.

import { LogManager, lockLogDirs } from '../storage/index.js';
import { Dispatcher } from './apis/dispatcher.js';
import { ALL_HANDLERS } from './apis/index.js';
import { ApiRegistry } from './apis/registry.js';
import type { BrokerServices } from './apis/services.js';
import { type BrokerConfig, type BrokerConfigInput, loadBrokerConfig } from './config/broker-config.js';
import { ConfigResolver } from './config/config-resolver.js';
import { logConfigFor } from './config/log-config-for.js';
import { brokerMessageFormatWarning } from './config/message-format-version.js';
import { BrokerGroupCoordinator } from './coordinator/group/broker-group-coordinator.js';
import { BrokerTxnCoordinator } from './coordinator/txn/broker-txn-coordinator.js';
import { type HttpHandler, HttpListener } from './http/http-listener.js';
import { type Logger, silentLogger } from './logger.js';
import { requestControlledShutdown } from './metadata/controlled-shutdown-request.js';
import { BrokerChannel } from './metadata/controller/broker-channel.js';
import { Controller } from './metadata/controller/controller.js';
import { BrokerControllerRequestReceiver } from './metadata/controller-request-receiver.js';
import { ProducerIdManager } from './metadata/producer-ids.js';
import { MetadataPublisher } from './metadata/publisher.js';
import { followPublisher } from './metadata/publisher-wiring.js';
import { ScramCredentials } from './metadata/scram-credentials.js';
import { guardStoreSession } from './metadata/session-guard.js';
import type { MetadataStore } from './metadata/store/metadata-store.js';
import { openMetadataStore } from './metadata/store/open-store.js';
import { TopicCommands } from './metadata/topic-commands.js';
import { BrokerMetrics } from './metrics/broker-metrics.js';
import { IdleRatios } from './metrics/idle-ratios.js';
import { brokerMetricsRegistry } from './metrics/metrics-registry.js';
import {
  BrokerListeners,
  type PreparedListener,
  prepareListeners,
  type RegisteredEndpoint,
} from './network/broker-listeners.js';
import { BufferPool } from './network/buffer-pool.js';
import { interBrokerLinkSecurity, type LinkSecurity } from './network/inter-broker-link.js';
import { pipelineTable } from './network/threads/network-threads.js';
import { startQuotas } from './quota/quota-wiring.js';
import { FetchSessionCache } from './replica/fetch-session-cache.js';
import { minIsrOf } from './replica/min-isr.js';
import { ReplicaManager } from './replica/replica-manager.js';
import { startReplication } from './replica/replication.js';
import { AclAuthorizer } from './security/authorizer.js';
import { type AuthorizerSettings, authorizerSettings } from './security/authorizer-config.js';

export interface StartBrokerOptions extends BrokerConfigInput {
  /** A ready config; when given, the other config fields are ignored. */
  config?: BrokerConfig;
  logger?: Logger;
  /**
   * In-process clusters (tests): this broker's session of a shared store (e.g. a
   * `MemoryMetadataService`'s), used instead of the one the config names; closed with the broker.
   */
  metadataStore?: MetadataStore;
}

export interface BrokerHandle {
  /** Host clients should connect to (the advertised one). */
  readonly host: string;
  readonly port: number;
  readonly nodeId: number;
  readonly clusterId: string;
  /** `host:port`, handy as a bootstrap string. */
  readonly bootstrap: string;
  /** The address the first listener is bound to (may differ from the advertised host/port). */
  readonly listener: { readonly host: string; readonly port: number };
  /** Every listener's bound address, in `listeners` order. */
  readonly listeners: readonly { readonly name: string; readonly host: string; readonly port: number }[];
  /** What this broker registered: each advertised listener (the first is `host`/`port`). */
  readonly endpoints: readonly RegisteredEndpoint[];
  readonly services: BrokerServices;
  /** The bound address of `http.listener` (/metrics, /health); null when unset. */
  readonly http: { readonly host: string; readonly port: number } | null;
  /** Serves a path prefix of `http.listener` with `handler` (the console); null without one. */
  readonly mountHttp: ((prefix: string, handler: HttpHandler) => void) | null;
  /** Graceful stop: answers what was received, flushes, checkpoints. Idempotent. */
  close(): Promise<void>;
}

export async function startBroker(options: StartBrokerOptions = {}): Promise<BrokerHandle> {
  const config = options.config ?? loadBrokerConfig(options);
  const logger = options.logger ?? silentLogger;
  // Every listener's TLS material is loaded and checked before anything starts.
  const prepared = prepareListeners(config);
  // An authorizer we cannot provide must stop the broker before it takes anything.
  const acls = authorizerSettings(config.props);
  const interBroker = config.listeners.advertised.find(
    (l) => l.name === config.listeners.interBrokerListener,
  )!;
  const linkSecurity = interBrokerLinkSecurity(interBroker, config.props);
  // Lock every log dir before anything reads or writes it (the local metadata file lives in the first).
  const locks = await lockLogDirs(config.logDirs);
  const cleanups: (() => Promise<void> | void)[] = [
    () => Promise.all(locks.map((l) => l.release())).then(() => {}),
  ];
  const unwind = async () => {
    for (const c of cleanups.reverse()) await c();
  };
  try {
    return await assemble(config, logger, cleanups, options.metadataStore, prepared, linkSecurity, acls);
  } catch (e) {
    await unwind().catch(() => {});
    throw e;
  }
}

async function assemble(
  config: BrokerConfig,
  logger: Logger,
  cleanups: (() => Promise<void> | void)[],
  givenStore: MetadataStore | undefined,
  prepared: readonly PreparedListener[],
  /** TLS and SASL of connections to other brokers (the inter-broker listener's protocol). */
  link: LinkSecurity,
  aclSettings: AuthorizerSettings | null,
): Promise<BrokerHandle> {
  const interBrokerListener = config.listeners.interBrokerListener;
  const nodeId = config.nodeId;
  // First, so that /health/live answers (and /health/ready says 503) while the logs load.
  const http = config.httpListener ? await HttpListener.open({ ...config.httpListener, logger }) : null;
  if (http) cleanups.push(() => http.close());
  const metrics = http ? new BrokerMetrics() : undefined;
  const store =
    givenStore ??
    (await openMetadataStore(
      config,
      logger,
      metrics ? (ms) => metrics.zookeeper.requestLatency.record(ms) : undefined,
    ));
  cleanups.push(() => store.close());
  if (metrics && store.kind === 'zookeeper') metrics.zookeeper.follow(store);
  const clusterId = await store.clusterId();
  const authorizer = aclSettings ? new AclAuthorizer({ ...aclSettings, store, logger }) : undefined;
  if (authorizer) {
    cleanups.push(() => authorizer.close());
    await authorizer.start();
  }
  // A broker's `host`/`port` in the image are its inter-broker endpoint (fetchers, controller
  // requests); Metadata answers pick each client's listener from the endpoints.
  const publisher = new MetadataPublisher({ clusterId, store, logger, listenerName: interBrokerListener });
  cleanups.push(() => publisher.close());
  await publisher.start();
  const image = publisher.image;
  const configs = new ConfigResolver(config.props, () => ({
    cluster: image.brokerConfigs(''),
    broker: image.brokerConfigs(String(nodeId)),
  }));
  const formatWarning = brokerMessageFormatWarning(
    config.props.get('log.message.format.version') ?? null,
    configs.brokerValue('inter.broker.protocol.version'),
  );
  if (formatWarning !== null) logger.log('warn', formatWarning);
  const assignments = await store.assignments();
  const topicConfigs = new Map(
    await Promise.all(
      assignments.map(
        async (a) =>
          [a.name, logConfigFor(configs, await store.configs({ type: 'topics', name: a.name }))] as const,
      ),
    ),
  );
  const logs = await LogManager.open({
    dirsLocked: true,
    logDirs: [...config.logDirs],
    defaults: logConfigFor(configs, {}),
    topicConfigs,
    brokerId: nodeId,
    clusterId,
    checkpointIntervalMs: config.logFlushOffsetCheckpointIntervalMs,
    retentionCheckIntervalMs: config.logRetentionCheckIntervalMs,
    onError: (error, context) =>
      logger.log('error', 'storage background task failed', { context, error: error.message }),
  });
  cleanups.push(() => logs.close());
  const replicas = new ReplicaManager(logs, configs, nodeId, logger);
  await replicas.removeStaleLogs(
    assignments.map((a) => ({ name: a.name, topicId: a.topicId, partitions: a.partitions.length })),
  );

  let brokerEpoch = -1n;
  const receiver = new BrokerControllerRequestReceiver({
    nodeId,
    replicas,
    publisher,
    brokerEpoch: () => brokerEpoch,
    // A newer epoch must be the elected controller's own (else anyone could fence the real one).
    verifyController: async (id, epoch) =>
      (await store.controllerId()) === id && (await store.controllerEpoch()) === epoch,
    logger,
  });
  const channel = new BrokerChannel({
    localNodeId: nodeId,
    localReceiver: receiver,
    clientId: `samsa-controller-${nodeId}`,
    listenerName: interBrokerListener,
    link,
    logger,
  });
  cleanups.push(() => channel.close());
  const controller = new Controller({
    nodeId,
    store,
    channel,
    logger,
    deleteTopicEnable: config.deleteTopicEnable,
    interBrokerListener,
    leaderRebalance: config.leaderRebalance,
    topicConfig: async (topic) => {
      const overrides = await store.configs({ type: 'topics', name: topic });
      const value = configs.topicValue('unclean.leader.election.enable', overrides);
      return { uncleanLeaderElectionEnable: value === 'true' };
    },
  });
  cleanups.push(() => controller.close());
  const replication = startReplication({
    nodeId,
    configs,
    replicas,
    image,
    localController: controller,
    brokerEpoch: () => brokerEpoch,
    ...link,
    ...(metrics ? { replicationBytesIn: (bytes: number) => metrics.topics.replicatedIn(bytes) } : {}),
    logger,
  });
  cleanups.push(() => replication.close());
  const commands = new TopicCommands({ store, view: publisher, config, logger });
  const minIsr = minIsrOf(image, configs);
  const groups = new BrokerGroupCoordinator({ config, image, commands, replicas, minIsrOf: minIsr, logger });
  cleanups.push(() => groups.close());
  const producerIds = new ProducerIdManager(store, nodeId);
  const scram = new ScramCredentials(store);
  const txns = new BrokerTxnCoordinator({
    config,
    image,
    commands,
    replicas,
    producerIds,
    groups,
    interBrokerSecurity: link,
    minIsrOf: minIsr,
    logger,
  });
  cleanups.push(() => txns.close());
  followPublisher(publisher, { replicas, internalTopics: [groups.internalTopic, txns.internalTopic] });
  // With network threads, fetch reads are shared with the thread that writes them (no copy).
  const buffers = new BufferPool({ shared: config.numNetworkThreads > 1 });
  cleanups.push(() => buffers.close());
  const quotas = await startQuotas({
    configs,
    store,
    publisher,
    listenerNames: prepared.map((p) => p.identity.name),
    interBrokerListener,
    logger,
  });
  cleanups.push(() => quotas.close());
  const services: BrokerServices = {
    nodeId,
    config,
    configs,
    image,
    commands,
    replicas,
    logs,
    producerIds,
    scram,
    quotas: quotas.clientQuotas,
    // ConsumerGroupHeartbeat/Describe exist only with group.coordinator.rebalance.protocols ∋ consumer.
    registry: new ApiRegistry(
      groups.coordinator.consumerProtocolEnabled
        ? ALL_HANDLERS
        : ALL_HANDLERS.filter((h) => h.api.key !== 68 && h.api.key !== 69),
    ),
    logger,
    groups,
    txns,
    buffers,
    controllerRequests: receiver,
    activeController: controller,
    leadership: controller,
    fetchSessions: new FetchSessionCache({
      maxEntries: Number(configs.brokerValue('max.incremental.fetch.session.cache.slots') ?? 1000),
    }),
    metrics,
    ...(authorizer ? { authorizer } : {}),
  };
  const server = await BrokerListeners.open(prepared, {
    maxRequestBytes: config.socketRequestMaxBytes,
    queuedMaxRequestBytes: config.queuedMaxRequestBytes,
    idleMs: config.connectionsMaxIdleMs,
    maxConnections: config.maxConnections,
    handler: new Dispatcher(services),
    logger,
    buffers,
    scramCredentials: (user, mechanism) => scram.lookup(user, mechanism),
    connectionQuotas: quotas.connectionQuotas,
    networkThreads: {
      threads: config.numNetworkThreads,
      pipelinable: pipelineTable((key) => services.registry.get(key)),
      quotasEnabled: () => services.quotas?.enabled === true,
    },
  });
  cleanups.push(() => server.close());
  const idle = metrics ? new IdleRatios(server.networkWorkers) : undefined;
  if (idle) cleanups.push(() => idle.close());
  const endpoints = server.endpoints(config);
  // Clients are told the first listener; other brokers reach this one over the inter-broker one.
  const { host, port } = endpoints[0]!;
  const interBrokerEndpoint = endpoints.find((e) => e.listener === interBrokerListener)!;

  // Registration comes after the listeners are up (others may connect at once), as Kafka's.
  const registration = {
    nodeId,
    host: interBrokerEndpoint.host,
    port: interBrokerEndpoint.port,
    rack: config.rack,
    endpoints,
  };
  brokerEpoch = await store.registerBroker(registration);
  // Leaderships stop taking writes while the session cannot be proven; re-registration on expiry.
  const sessionGuard = guardStoreSession({
    store,
    replicas,
    registration,
    sessionTimeoutMs: config.zookeeperSessionTimeoutMs,
    detectStalls: config.zookeeperConnect !== null,
    brokerEpoch: () => brokerEpoch,
    registered: (epoch) => {
      brokerEpoch = epoch;
    },
    setReady: (ready) => http?.setReady(ready),
    logger,
  });
  cleanups.push(() => sessionGuard.stop());
  await controller.start();
  // Serve once the controller has told this broker about itself and about the topics it knew at
  // start (the embedded broker's own controller does so before this wait ends).
  const known = assignments.map((a) => a.name);
  const ready = await publisher.waitFor(
    (img) =>
      img.broker(nodeId) !== undefined &&
      known.every((name) => {
        const t = img.topic(name);
        return t === undefined || t.partitions.every((p) => p.leader >= 0 || !p.replicas.includes(nodeId));
      }),
    config.zookeeperConnect === null ? 60_000 : config.zookeeperSessionTimeoutMs,
  );
  if (!ready) logger.log('warn', 'serving before the controller sent this broker its metadata', { nodeId });
  logs.startBackgroundTasks();
  if (http && metrics) {
    http.serveMetrics(
      brokerMetricsRegistry({
        metrics,
        replicas,
        image,
        isActiveController: () => controller.isActive,
        minIsrOf: minIsr,
        fetchSessions: services.fetchSessions,
        groups: groups.coordinator,
        zookeeper: store.kind === 'zookeeper',
        quotas: quotas.clientQuotas,
        ...(idle ? { idle } : {}),
      }),
    );
    http.setReady(true);
  }
  logger.log('info', 'broker started', { nodeId, host, port, clusterId, brokerEpoch: String(brokerEpoch) });

  let closing: Promise<void> | null = null;
  return {
    host,
    port,
    nodeId,
    clusterId,
    bootstrap: `${host.includes(':') ? `[${host}]` : host}:${port}`,
    listener: { host: server.servers[0]!.host, port: server.servers[0]!.port },
    listeners: server.servers.map((s) => ({ name: s.listener.name, host: s.host, port: s.port })),
    endpoints,
    services,
    http: http?.address ?? null,
    mountHttp: http ? (prefix, handler) => http.mount(prefix, handler) : null,
    close() {
      closing ??= (async () => {
        http?.setReady(false);
        // In a cluster, hand the leaderships over first (still serving while they move).
        if (config.zookeeperConnect !== null && config.controlledShutdownEnable) {
          await requestControlledShutdown({
            nodeId,
            brokerEpoch,
            image,
            localController: controller,
            maxRetries: config.controlledShutdownMaxRetries,
            retryBackoffMs: config.controlledShutdownRetryBackoffMs,
            ...link,
            logger,
          });
        }
        replicas.beginShutdown();
        await replication.close();
        await server.close();
        idle?.close();
        txns.close();
        groups.close();
        await controller.close();
        channel.close();
        publisher.close();
        await logs.close();
        sessionGuard.stop();
        await store.close();
        buffers.close();
        await http?.close();
        await cleanups[0]!();
        logger.log('info', 'broker stopped', { nodeId });
      })();
      return closing;
    },
  };
}
