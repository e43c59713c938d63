// The records of cluster metadata as the controller and the stores see them — Kafka's ZooKeeper
// model: a broker registration (ephemeral, its epoch is the registration's creation zxid), a
// topic's replica assignment (written once by the admin command, changed by partition additions
// and reassignments) kept apart from each partition's leader/ISR state (written only by the
// controller, each write conditional on the state's version and fenced by the controller epoch).

/** One listener of a broker registration (`listeners`/`advertised.listeners` entry). */
export interface BrokerEndpoint {
  /** Listener name, e.g. `PLAINTEXT`. */
  readonly listener: string;
  /** Kafka's security protocol name for the listener (`PLAINTEXT`, `SSL`, `SASL_PLAINTEXT`, ...). */
  readonly securityProtocol: string;
  readonly host: string;
  readonly port: number;
}

/** `/brokers/ids/<id>`: a live broker. */
export interface BrokerInfo {
  readonly nodeId: number;
  /** The advertised endpoint clients use (the first endpoint). */
  readonly host: string;
  readonly port: number;
  readonly rack: string | null;
  readonly endpoints: readonly BrokerEndpoint[];
  /**
   * KIP-380 broker epoch: the ZooKeeper creation zxid of the registration (local store: a counter
   * persisted across restarts). Grows with every (re-)registration of the same id.
   */
  readonly epoch: bigint;
}

/** `/brokers/topics/<t>`: the replica assignment of a topic. */
export interface TopicAssignment {
  readonly name: string;
  /** Kafka's uuid text form (22 chars, URL-safe base64). */
  readonly topicId: string;
  /** `partitions[p]` = the replicas of partition p, preferred leader first. */
  readonly partitions: readonly (readonly number[])[];
  /** Reassignment in progress (KIP-455): replicas being added / removed, per partition. */
  readonly addingReplicas?: Readonly<Record<number, readonly number[]>>;
  readonly removingReplicas?: Readonly<Record<number, readonly number[]>>;
}

/** `/brokers/topics/<t>/partitions/<p>/state`: what the controller decided for one partition. */
export interface LeaderAndIsr {
  /** -1 = no leader (offline). */
  readonly leader: number;
  readonly leaderEpoch: number;
  readonly isr: readonly number[];
  /** Epoch of the controller that wrote this state. */
  readonly controllerEpoch: number;
  /** KIP-704: 1 after an unclean election until the new leader recovered. */
  readonly leaderRecoveryState: 0 | 1;
}

/** A partition state with the store version it was read or written at (ZooKeeper's zkVersion). */
export interface PartitionState extends LeaderAndIsr {
  /** Version for conditional writes; sent as LeaderAndIsr `partitionEpoch` / UpdateMetadata `zkVersion`. */
  readonly version: number;
}

export interface TopicPartition {
  readonly topic: string;
  readonly partition: number;
}

/** One conditional partition-state write. */
export interface PartitionStateWrite extends TopicPartition {
  readonly state: LeaderAndIsr;
  /** The version the writer read; -1 = the state must not exist yet (a new partition). */
  readonly expectedVersion: number;
}

export type PartitionWriteResult =
  | (TopicPartition & { readonly ok: true; readonly version: number })
  /** `BAD_VERSION`: someone wrote a newer state (re-read it); `NO_NODE`: the topic is gone. */
  | (TopicPartition & { readonly ok: false; readonly reason: 'BAD_VERSION' | 'NO_NODE' | 'NODE_EXISTS' });

/**
 * Proof of being the active controller. Every controller write carries it, and the store makes
 * the write conditional on it (ZooKeeper: a multi with `check /controller_epoch <epochVersion>`),
 * so a deposed controller that has not noticed yet can never overwrite its successor.
 */
export interface ControllerLease {
  readonly nodeId: number;
  /** Controller epoch, strictly increasing across elections (`/controller_epoch`). */
  readonly epoch: number;
  /** Store version of the epoch record (zkVersion of `/controller_epoch`). */
  readonly epochVersion: number;
}

/** A block of producer ids handed to one broker (Kafka's ProducerIdsBlock). */
export interface ProducerIdBlock {
  readonly firstProducerId: bigint;
  readonly size: number;
}

/**
 * Dynamic config entities: `topics/<name>`, `brokers/<id>` or `brokers/<default>` (cluster-wide),
 * and the client-quota entities. User and client-id names are raw (the ZooKeeper backend
 * sanitizes them as Kafka does); `<default>` names the default entity, as in Kafka's znodes.
 */
export type ConfigEntity =
  | { readonly type: 'topics'; readonly name: string }
  | { readonly type: 'brokers'; readonly name: string /* node id or '<default>' */ }
  /**
   * A user's SCRAM credentials (`SCRAM-SHA-256` → Kafka's credential string) and quotas
   * (`producer_byte_rate` …) in one config map, as Kafka stores them; '<default>' = every user.
   */
  | { readonly type: 'users'; readonly name: string }
  /** A client id's quotas (`/config/clients/<id>`); '<default>' = every client id. */
  | { readonly type: 'clients'; readonly name: string }
  /**
   * A user's quotas for one client id (`/config/users/<u>/clients/<c>`). `name` is Kafka's path
   * below /config/users, made by `userClientEntityName` (zk-user-names.ts).
   */
  | { readonly type: 'user-clients'; readonly name: string }
  /** An IP's connection quotas (`/config/ips/<ip>`); '<default>' = every IP. */
  | { readonly type: 'ips'; readonly name: string };

/** The resource pattern of stored ACLs: Kafka's type names (`Topic`, `Group`, `Cluster`, ...). */
export interface AclResourceRecord {
  readonly resourceType: string;
  readonly patternType: 'LITERAL' | 'PREFIXED';
  readonly name: string;
}

/** One ACL as ZooKeeper's JSON holds it (`"permissionType":"Allow","operation":"Read"`). */
export interface AclEntryRecord {
  readonly principal: string;
  readonly permissionType: string;
  readonly operation: string;
  readonly host: string;
}

/** A resource's ACLs and the version a conditional write must name (-1: it has none). */
export interface VersionedAcls {
  readonly resource: AclResourceRecord;
  readonly acls: readonly AclEntryRecord[];
  readonly version: number;
}
