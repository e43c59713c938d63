// The `zookeeper` MetadataStore: Kafka's znode layout (zookeeper/zk-data.ts) over one ZooKeeper
// session (zookeeper/zk-client.ts, renewed after an expiry), with the semantics of the in-memory
// store (memory-ensemble.ts) for every call:
//
// - the broker epoch is the czxid of `/brokers/ids/<id>` (Kafka's checked ephemeral create);
// - an election is Kafka's one multi: create `/controller` (ephemeral) + set `/controller_epoch`
//   at the version read; every controller write is a multi starting with `check /controller_epoch
//   <lease.epochVersion>`, so a deposed controller's writes fail (NOT_CONTROLLER);
// - partition-state writes are pipelined (zk-store-partitions.ts); watches are in zk-store-watches.ts.
//
// Calls fail at once with CONNECTION_LOSS while the connection is down (as the memory store's do),
// instead of queueing until it returns (a caller that would rather wait asks `whenConnected`
// first). A write that failed with CONNECTION_LOSS may have been
// applied: callers re-read (tryElectController and registerBroker answer a retry with what the
// session already holds).

import { type Logger, silentLogger } from '../../logger.js';
import { ZkClient } from '../zookeeper/zk-client.js';
import {
  brokerIdPath,
  decodeBrokerRegistration,
  decodeController,
  decodeControllerEpoch,
  encodeController,
  encodeControllerEpoch,
  INITIAL_CONTROLLER_EPOCH,
  PERSISTENT_ZK_PATHS,
  ZK_PATHS,
  ZkDataError,
} from '../zookeeper/zk-data.js';
import { createEphemeralChecked } from '../zookeeper/zk-ephemeral.js';
import { isZkError, ZkMultiError } from '../zookeeper/zk-errors.js';
import { type MetadataStore, MetadataStoreError, type MetadataStoreListener } from './metadata-store.js';
import type {
  AclEntryRecord,
  AclResourceRecord,
  BrokerInfo,
  ConfigEntity,
  ControllerLease,
  PartitionState,
  PartitionStateWrite,
  PartitionWriteResult,
  ProducerIdBlock,
  TopicAssignment,
  VersionedAcls,
} from './records.js';
import { ACL_PERSISTENT_PATHS, readAcls, readAllAcls, writeAcls } from './zk-store-acls.js';
import { brokerInfo, encodeBroker, toStoreError } from './zk-store-codec.js';
import {
  allocateProducerIdBlock,
  getOrCreateClusterId,
  readConfigEntities,
  readConfigs,
  updateConfigs,
  writeConfigs,
} from './zk-store-configs.js';
import {
  fencedMulti,
  pipelined,
  readPartitionStates,
  throwFailure,
  writePartitionStates,
} from './zk-store-partitions.js';
import {
  completeTopicDeletion,
  createTopic,
  readAssignments,
  requestTopicDeletion,
  setAssignment,
} from './zk-store-topics.js';
import { ZkStoreWatches } from './zk-store-watches.js';

export interface ZkMetadataStoreOptions {
  /** `zookeeper.connect`: `host:port[,host:port...][/chroot]`; the chroot is created if missing. */
  readonly connectString: string;
  /** `zookeeper.session.timeout.ms` (Kafka: 18000). */
  readonly sessionTimeoutMs: number;
  /** `zookeeper.connection.timeout.ms`: start() fails with TIMEOUT after it. */
  readonly connectionTimeoutMs: number;
  /** Told each ZooKeeper request's latency in ms (the broker's metrics). */
  readonly onRequestLatency?: (ms: number) => void;
  readonly logger?: Logger;
}

export class ZkMetadataStore implements MetadataStore {
  readonly kind = 'zookeeper' as const;
  readonly #options: ZkMetadataStoreOptions;
  readonly #logger: Logger;
  #client: ZkClient | null = null;
  #watches: ZkStoreWatches | null = null;
  /** Listeners added before start(). */
  readonly #early = new Set<MetadataStoreListener>();
  #closed = false;
  /** The wait for the connection that `whenConnected` callers share, while one is pending. */
  #reconnected: Promise<boolean> | null = null;

  constructor(options: ZkMetadataStoreOptions) {
    this.#options = options;
    this.#logger = options.logger ?? silentLogger;
  }

  /** The ZooKeeper client (tests and tools: raw reads, session expiry). Null before start(). */
  get zkClient(): ZkClient | null {
    return this.#client;
  }

  async start(): Promise<void> {
    if (this.#client !== null || this.#closed) throw new Error('ZkMetadataStore.start() called twice');
    const { connectString, sessionTimeoutMs, connectionTimeoutMs, onRequestLatency } = this.#options;
    let client: ZkClient;
    try {
      client = await ZkClient.connect(connectString, {
        sessionTimeoutMs,
        connectionTimeoutMs,
        createChroot: true,
        ...(onRequestLatency ? { onRequestLatency } : {}),
      });
    } catch (e) {
      throw toStoreError(e);
    }
    if (this.#closed) {
      await client.close();
      throw new MetadataStoreError('SESSION_EXPIRED', 'the store was closed while starting');
    }
    this.#client = client;
    this.#logger.log('info', 'connected to ZooKeeper', {
      hosts: client.hosts,
      chroot: client.chroot,
      session: client.sessionIdHex,
    });
    try {
      await Promise.all(
        [...PERSISTENT_ZK_PATHS, ...ACL_PERSISTENT_PATHS].map((p) => client.ensurePersistentPath(p)),
      );
      const watches = new ZkStoreWatches(client, this.#logger);
      this.#watches = watches;
      for (const l of this.#early) watches.add(l);
      this.#early.clear();
      await watches.start();
    } catch (e) {
      await this.close();
      throw toStoreError(e);
    }
  }

  watch(listener: MetadataStoreListener): () => void {
    if (this.#watches !== null) return this.#watches.add(listener);
    if (this.#closed) return () => {};
    this.#early.add(listener);
    return () => {
      this.#early.delete(listener);
      this.#watches?.add(listener)(); // added meanwhile by start(): remove it there
    };
  }

  whenConnected(timeoutMs: number): Promise<boolean> {
    const c = this.#client;
    if (c === null || this.#closed) return Promise.resolve(false);
    if (c.state === 'CONNECTED') return Promise.resolve(true);
    // One wait on the client, shared by every caller with its own timer: a burst of admin
    // requests during an outage adds no listeners per request. It also waits through a renewal
    // after an expiry (the client is CONNECTING meanwhile) and ends false on close.
    this.#reconnected ??= c
      .waitUntilConnected()
      .then(
        () => true,
        () => false,
      )
      .finally(() => {
        this.#reconnected = null;
      });
    const shared = this.#reconnected;
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      void shared.then((ok) => {
        clearTimeout(timer);
        resolve(ok);
      });
    });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#watches?.close();
    this.#early.clear();
    await this.#client?.close();
  }

  // -- Cluster id ----------------------------------------------------------------------------

  clusterId(): Promise<string> {
    return this.#op((c) => getOrCreateClusterId(c));
  }

  // -- Brokers ---------------------------------------------------------------------------------

  registerBroker(broker: Omit<BrokerInfo, 'epoch'>): Promise<bigint> {
    const path = brokerIdPath(broker.nodeId);
    const data = encodeBroker(broker);
    return this.#op(async (c) => {
      try {
        return (await createEphemeralChecked(c, path, data)).czxid;
      } catch (e) {
        if (isZkError(e, 'NODE_EXISTS'))
          throw new MetadataStoreError(
            'NODE_EXISTS',
            `broker ${broker.nodeId} is already registered by another live broker (${e.message})`,
          );
        throw e;
      }
    });
  }

  liveBrokers(): Promise<BrokerInfo[]> {
    return this.#op(async (c) => {
      const ids = (await c.getChildren(ZK_PATHS.brokerIds))
        .filter((n) => /^\d{1,10}$/.test(n))
        .map(Number)
        .sort((a, b) => a - b);
      const read = await pipelined(ids, async (id) => {
        try {
          const { data, stat } = await c.getData(brokerIdPath(id));
          return brokerInfo(decodeBrokerRegistration(id, data), stat.czxid);
        } catch (e) {
          if (isZkError(e, 'NO_NODE')) return null; // its session ended meanwhile
          if (!(e instanceof ZkDataError)) throw e;
          this.#logger.log('warn', 'ignoring an unreadable broker registration', { id, error: String(e) });
          return null;
        }
      });
      throwFailure(read);
      return read.flatMap((r) => (r.status === 'fulfilled' && r.value !== null ? [r.value] : []));
    });
  }

  // -- Controller ------------------------------------------------------------------------------

  tryElectController(nodeId: number): Promise<ControllerLease | null> {
    return this.#op(async (c) => {
      const { epoch, version } = await this.#readControllerEpoch(c, true);
      try {
        const res = await c.multi([
          { type: 'create', path: ZK_PATHS.controller, data: encodeController(nodeId), mode: 'EPHEMERAL' },
          {
            type: 'setData',
            path: ZK_PATHS.controllerEpoch,
            data: encodeControllerEpoch(epoch + 1),
            version,
          },
        ]);
        const set = res[1];
        return {
          nodeId,
          epoch: epoch + 1,
          epochVersion: set?.type === 'setData' ? set.stat.version : version + 1,
        };
      } catch (e) {
        if (!(e instanceof ZkMultiError) || (e.code !== 'NODE_EXISTS' && e.code !== 'BAD_VERSION')) throw e;
      }
      // Lost, or won earlier by this very session (a retry after CONNECTION_LOSS): Kafka's
      // checkControllerAndEpoch compares /controller's owner with this session.
      let owner: { brokerId: number; session: bigint };
      try {
        const { data, stat } = await c.getData(ZK_PATHS.controller);
        owner = { brokerId: decodeController(data).brokerId, session: stat.ephemeralOwner };
      } catch (e) {
        if (isZkError(e, 'NO_NODE')) return null; // gone already; the next election will tell
        throw e;
      }
      if (owner.session !== c.sessionId || owner.brokerId !== nodeId) return null;
      const current = await this.#readControllerEpoch(c, false);
      return { nodeId, epoch: current.epoch, epochVersion: current.version };
    });
  }

  /** `/controller_epoch` and its version; created with 0 at version 0 when missing (if `create`). */
  async #readControllerEpoch(c: ZkClient, create: boolean): Promise<{ epoch: number; version: number }> {
    for (;;) {
      try {
        const { data, stat } = await c.getData(ZK_PATHS.controllerEpoch);
        return { epoch: decodeControllerEpoch(data), version: stat.version };
      } catch (e) {
        if (!isZkError(e, 'NO_NODE') || !create) throw e;
      }
      try {
        await c.create(ZK_PATHS.controllerEpoch, encodeControllerEpoch(INITIAL_CONTROLLER_EPOCH));
      } catch (e) {
        if (!isZkError(e, 'NODE_EXISTS')) throw e;
      }
    }
  }

  controllerEpoch(): Promise<number> {
    return this.#op(async (c) => {
      try {
        return decodeControllerEpoch((await c.getData(ZK_PATHS.controllerEpoch)).data);
      } catch (e) {
        if (isZkError(e, 'NO_NODE')) return 0;
        throw e;
      }
    });
  }

  controllerId(): Promise<number> {
    return this.#op(async (c) => {
      try {
        return decodeController((await c.getData(ZK_PATHS.controller)).data).brokerId;
      } catch (e) {
        if (isZkError(e, 'NO_NODE')) return -1;
        throw e;
      }
    });
  }

  resignController(lease: ControllerLease): Promise<void> {
    return this.#op(async (c) => {
      let version: number;
      try {
        const { data, stat } = await c.getData(ZK_PATHS.controller);
        if (stat.ephemeralOwner !== c.sessionId || decodeController(data).brokerId !== lease.nodeId) return;
        version = stat.version;
      } catch (e) {
        if (isZkError(e, 'NO_NODE')) return;
        throw e;
      }
      try {
        await fencedMulti(c, lease, [{ type: 'delete', path: ZK_PATHS.controller, version }]);
      } catch (e) {
        if (e instanceof MetadataStoreError && e.code === 'NOT_CONTROLLER') return;
        if (isZkError(e, 'NO_NODE', 'BAD_VERSION')) return;
        throw e;
      }
    });
  }

  // -- Topics ----------------------------------------------------------------------------------

  topicNames(): Promise<string[]> {
    return this.#op(async (c) => (await c.getChildren(ZK_PATHS.topics)).sort());
  }

  assignments(names?: readonly string[]): Promise<TopicAssignment[]> {
    return this.#op((c) => readAssignments(c, names));
  }

  createTopic(assignment: TopicAssignment, configs: Readonly<Record<string, string>>): Promise<void> {
    return this.#op((c) => createTopic(c, assignment, configs));
  }

  setAssignment(assignment: TopicAssignment, lease?: ControllerLease): Promise<void> {
    return this.#op((c) => setAssignment(c, assignment, lease));
  }

  partitionStates(topic: string): Promise<Map<number, PartitionState>> {
    return this.#op((c) => readPartitionStates(c, topic));
  }

  writePartitionStates(
    lease: ControllerLease,
    writes: readonly PartitionStateWrite[],
  ): Promise<PartitionWriteResult[]> {
    return this.#op((c) => writePartitionStates(c, lease, writes));
  }

  // -- Topic deletion --------------------------------------------------------------------------

  requestTopicDeletion(name: string): Promise<void> {
    return this.#op((c) => requestTopicDeletion(c, name));
  }

  pendingTopicDeletions(): Promise<string[]> {
    return this.#op(async (c) => (await c.getChildren(ZK_PATHS.deleteTopics)).sort());
  }

  completeTopicDeletion(lease: ControllerLease, name: string): Promise<void> {
    return this.#op((c) => completeTopicDeletion(c, lease, name));
  }

  // -- Dynamic configs -------------------------------------------------------------------------

  configs(entity: ConfigEntity): Promise<Record<string, string>> {
    return this.#op((c) => readConfigs(c, entity));
  }

  setConfigs(entity: ConfigEntity, configs: Readonly<Record<string, string>>): Promise<void> {
    return this.#op((c) => writeConfigs(c, entity, configs));
  }

  updateConfigs(
    entity: ConfigEntity,
    update: (current: Record<string, string>) => Record<string, string> | null,
  ): Promise<Record<string, string> | null> {
    return this.#op((c) => updateConfigs(c, entity, update));
  }

  configEntities(type: ConfigEntity['type']): Promise<string[]> {
    return this.#op((c) => readConfigEntities(c, type));
  }

  // -- ACLs ----------------------------------------------------------------------------------

  allAcls(): Promise<VersionedAcls[]> {
    return this.#op((c) => readAllAcls(c));
  }

  acls(resource: AclResourceRecord): Promise<VersionedAcls> {
    return this.#op((c) => readAcls(c, resource));
  }

  writeAcls(
    resource: AclResourceRecord,
    acls: readonly AclEntryRecord[],
    expectedVersion: number,
  ): Promise<void> {
    return this.#op((c) => writeAcls(c, resource, acls, expectedVersion));
  }

  // -- Producer ids ----------------------------------------------------------------------------

  allocateProducerIdBlock(nodeId: number, size: number): Promise<ProducerIdBlock> {
    return this.#op((c) => allocateProducerIdBlock(c, nodeId, size));
  }

  // -- Plumbing --------------------------------------------------------------------------------

  async #op<T>(fn: (client: ZkClient) => Promise<T>): Promise<T> {
    if (this.#closed) throw new MetadataStoreError('SESSION_EXPIRED', 'the store is closed');
    const c = this.#client;
    if (c === null) throw new Error('ZkMetadataStore: start() first');
    if (c.state === 'DISCONNECTED')
      throw new MetadataStoreError('CONNECTION_LOSS', `disconnected from ZooKeeper at ${c.hosts}`);
    try {
      return await fn(c);
    } catch (e) {
      throw toStoreError(e);
    }
  }
}
