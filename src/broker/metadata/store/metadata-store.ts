// Where cluster metadata lives. Two backends implement this one interface: `local` (the embedded
// single broker: a JSON file in the first log dir, this broker always registered and always the
// controller) and `zookeeper` (a cluster: Kafka's znode layout, so zkCli/CMAK/Burrow read it).
// The controller, the admin command façade and every broker's metadata publisher are written
// against this interface only.
//
// Watches follow ZooKeeper's model: a listener is told *that* something changed and re-reads
// what it needs; events may be coalesced or repeated, never lost while the session lives. After
// a session loss (`sessionExpired`) every watch must be assumed missed: re-read everything.

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

/** Thrown by store calls; `code` names the condition so callers can map it to a Kafka error. */
export class MetadataStoreError extends Error {
  constructor(
    readonly code:
      | 'NODE_EXISTS' // e.g. a topic or broker id that already exists
      | 'NO_NODE'
      | 'BAD_VERSION' // a conditional write lost
      | 'NOT_CONTROLLER' // the lease is stale: another controller was elected
      | 'CONNECTION_LOSS' // retriable: the outcome is unknown (re-read before retrying)
      | 'SESSION_EXPIRED'
      | 'TIMEOUT'
      | 'CORRUPT', // a record that does not parse
    message: string,
  ) {
    super(message);
    this.name = 'MetadataStoreError';
  }
}

export interface MetadataStoreListener {
  /** `/brokers/ids` children changed (a broker registered, or its session ended). */
  brokersChanged?(): void;
  /** `/controller` changed or was deleted: run an election / learn the new controller. */
  controllerChanged?(): void;
  /** `/brokers/topics` children changed (topics created or removed, possibly by other tools). */
  topicsChanged?(): void;
  /** `/brokers/topics/<t>` data changed (partitions added, reassignment). */
  assignmentChanged?(topic: string): void;
  /** `/admin/delete_topics` children changed. */
  topicDeletionRequested?(): void;
  /** `/admin/reassign_partitions` or `/admin/preferred_replica_election` changed. */
  adminRequest?(kind: 'reassign' | 'preferred-election'): void;
  /** A `/config/changes` notification: the dynamic configs of an entity changed. */
  configChanged?(entity: ConfigEntity): void;
  /** An ACL change notification (`/kafka-acl-changes`, `/kafka-acl-extended-changes`): re-read it. */
  aclsChanged?(resource: AclResourceRecord): void;
  /** The connection to the store is down (not yet expired): writes will fail until it returns. */
  disconnected?(): void;
  /** Reconnected within the session: ephemerals and watches are intact. */
  reconnected?(): void;
  /**
   * The session is gone (ephemerals deleted, watches lost). The store has already opened a new
   * session; the owner re-registers its broker and re-reads everything.
   */
  sessionExpired?(): void;
}

export interface MetadataStore {
  readonly kind: 'local' | 'zookeeper';

  /** Connects (or loads the file); fails with TIMEOUT after `zookeeper.connection.timeout.ms`. */
  start(): Promise<void>;
  /** Gets the cluster id, creating it the first time (`/cluster/id`). */
  clusterId(): Promise<string>;
  /** Adds a listener; returns a function that removes it. */
  watch(listener: MetadataStoreListener): () => void;
  /**
   * Resolves true once calls can reach the store (at once when they can now), false when
   * `timeoutMs` passes first or the store is closed. Calls never wait by themselves: admin
   * commands wait here first, as Kafka's broker waits for ZooKeeper to come back before an admin
   * write, while the controller and the replicas fail fast and handle the loss their own way.
   */
  whenConnected(timeoutMs: number): Promise<boolean>;

  // -- Brokers ------------------------------------------------------------------------------
  /**
   * Registers this broker (ephemeral `/brokers/ids/<id>`), returning its broker epoch.
   * NODE_EXISTS when another live broker has the id. Idempotent for this session.
   */
  registerBroker(broker: Omit<BrokerInfo, 'epoch'>): Promise<bigint>;
  /** Live brokers with their epochs, sorted by id. */
  liveBrokers(): Promise<BrokerInfo[]>;

  // -- Controller election ------------------------------------------------------------------
  /**
   * Tries to become the controller: atomically creates `/controller` (ephemeral, this node) and
   * bumps `/controller_epoch`. Resolves the lease, or null when another node is controller.
   */
  tryElectController(nodeId: number): Promise<ControllerLease | null>;
  /** The current controller's node id, or -1 when there is none. */
  controllerId(): Promise<number>;
  /** The latest controller epoch (`/controller_epoch`; 0 before any election). */
  controllerEpoch(): Promise<number>;
  /** Gives up the controller role if `lease` still holds it (deletes `/controller`). */
  resignController(lease: ControllerLease): Promise<void>;

  // -- Topics and partition states ----------------------------------------------------------
  topicNames(): Promise<string[]>;
  /** Assignments of the named topics (all when omitted); missing topics are left out. */
  assignments(names?: readonly string[]): Promise<TopicAssignment[]>;
  /**
   * Creates a topic: its assignment and its config overrides, atomically. NODE_EXISTS when the
   * name is taken. Partition states are not written here: the controller writes them.
   */
  createTopic(assignment: TopicAssignment, configs: Readonly<Record<string, string>>): Promise<void>;
  /** Replaces a topic's assignment (partitions added, reassignment progress). */
  setAssignment(assignment: TopicAssignment, lease?: ControllerLease): Promise<void>;
  /** Partition states of a topic by partition index (missing = not written yet). */
  partitionStates(topic: string): Promise<Map<number, PartitionState>>;
  /**
   * Conditional writes of partition states, each on its expected version, all fenced by the
   * lease (NOT_CONTROLLER thrown when it is stale). Independent per partition: the results say
   * which won. Writes are batched (pipelined) by the store.
   */
  writePartitionStates(
    lease: ControllerLease,
    writes: readonly PartitionStateWrite[],
  ): Promise<PartitionWriteResult[]>;

  // -- Topic deletion (`/admin/delete_topics`) ------------------------------------------------
  requestTopicDeletion(name: string): Promise<void>;
  pendingTopicDeletions(): Promise<string[]>;
  /** Removes everything of the topic (assignment, states, configs) and its deletion request. */
  completeTopicDeletion(lease: ControllerLease, name: string): Promise<void>;

  // -- Dynamic configs (`/config/<type>/<name>` + a `/config/changes` notification) --------------
  configs(entity: ConfigEntity): Promise<Record<string, string>>;
  /** Replaces the entity's overrides and notifies every broker (`configChanged`). */
  setConfigs(entity: ConfigEntity, configs: Readonly<Record<string, string>>): Promise<void>;
  /**
   * Read-modify-write of one entity's overrides that no concurrent write (from this broker or
   * another) can undo: `update` gets a copy of the current map and returns the new one, or null
   * to write nothing; it may run again if the entity changed meanwhile (ZooKeeper: a versioned
   * setData, retried on BAD_VERSION), so it must not have side effects. Whatever `update`
   * throws is thrown, nothing written. Resolves with what was written (null: nothing).
   */
  updateConfigs(
    entity: ConfigEntity,
    update: (current: Record<string, string>) => Record<string, string> | null,
  ): Promise<Record<string, string> | null>;
  /** Every entity of a type with overrides (brokers: node ids and '<default>'). */
  configEntities(type: ConfigEntity['type']): Promise<string[]>;

  // -- ACLs (`/kafka-acl/<type>/<name>`, `/kafka-acl-extended/prefixed/<type>/<name>`) -----------
  /** Every resource that has ACLs. */
  allAcls(): Promise<VersionedAcls[]>;
  /** One resource's ACLs (none: an empty list at version -1). */
  acls(resource: AclResourceRecord): Promise<VersionedAcls>;
  /**
   * Replaces a resource's ACLs if its version is still `expectedVersion` (-1: it must have none),
   * else BAD_VERSION; an empty list removes it. Notifies every broker (`aclsChanged`).
   */
  writeAcls(
    resource: AclResourceRecord,
    acls: readonly AclEntryRecord[],
    expectedVersion: number,
  ): Promise<void>;

  // -- Producer ids (`/latest_producer_id_block`) ----------------------------------------------
  /** Reserves the next block with a versioned conditional write (retried on BAD_VERSION). Durable. */
  allocateProducerIdBlock(nodeId: number, size: number): Promise<ProducerIdBlock>;

  /** Closes the session (ephemerals go at once) / flushes the file. */
  close(): Promise<void>;
}
