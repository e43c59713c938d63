// Kafka's znode paths in ZooKeeper mode (kafka.zk.ZkData in Kafka 3.x), relative to the chroot of
// `zookeeper.connect`.

/** Top-level and fixed znodes. */
export const ZK_PATHS = {
  cluster: '/cluster',
  clusterId: '/cluster/id',
  brokers: '/brokers',
  brokerIds: '/brokers/ids',
  /** Its data version is the source of generated broker ids (reserved.broker.max.id + version). */
  brokerSequenceId: '/brokers/seqid',
  topics: '/brokers/topics',
  /** Ephemeral: the active controller. */
  controller: '/controller',
  /** Plain-text integer; its data version fences every controller write (multi check). */
  controllerEpoch: '/controller_epoch',
  config: '/config',
  configChanges: '/config/changes',
  admin: '/admin',
  deleteTopics: '/admin/delete_topics',
  /** Deprecated since Kafka 2.4 (the AlterPartitionReassignments API replaces it), still read. */
  reassignPartitions: '/admin/reassign_partitions',
  preferredReplicaElection: '/admin/preferred_replica_election',
  isrChangeNotification: '/isr_change_notification',
  logDirEventNotification: '/log_dir_event_notification',
  latestProducerIdBlock: '/latest_producer_id_block',
  feature: '/feature',
  /** The pre-0.9 consumers' tree; Kafka still creates it at startup. */
  consumers: '/consumers',
} as const;

/** Sequential-znode prefixes (ZooKeeper appends a 10-digit counter). */
export const CONFIG_CHANGE_PREFIX = 'config_change_';
export const ISR_CHANGE_PREFIX = 'isr_change_';
/** Paths to create with mode PERSISTENT_SEQUENTIAL. */
export const CONFIG_CHANGE_CREATE_PATH = `${ZK_PATHS.configChanges}/${CONFIG_CHANGE_PREFIX}`;
export const ISR_CHANGE_CREATE_PATH = `${ZK_PATHS.isrChangeNotification}/${ISR_CHANGE_PREFIX}`;

/** Entity types under /config (Kafka's ConfigType in ZooKeeper mode). */
export const CONFIG_ENTITY_TYPES = ['topics', 'clients', 'users', 'brokers', 'ips'] as const;
export type ConfigEntityType = (typeof CONFIG_ENTITY_TYPES)[number];
/** The entity name of cluster-wide defaults: /config/brokers/<default>, /config/clients/<default>… */
export const DEFAULT_CONFIG_ENTITY = '<default>';

/** What a broker creates at startup when missing (Kafka's ZkData.PersistentZkPaths). */
export const PERSISTENT_ZK_PATHS: readonly string[] = [
  ZK_PATHS.consumers,
  ZK_PATHS.brokerIds,
  ZK_PATHS.topics,
  ZK_PATHS.configChanges,
  ZK_PATHS.deleteTopics,
  ZK_PATHS.brokerSequenceId,
  ZK_PATHS.isrChangeNotification,
  ZK_PATHS.latestProducerIdBlock,
  ZK_PATHS.logDirEventNotification,
  ...CONFIG_ENTITY_TYPES.map((t) => `${ZK_PATHS.config}/${t}`),
];

/**
 * One path segment made of a name (topic, entity…). ZooKeeper refuses these characters and
 * segments (PathUtils.validatePath); a '/' would silently address another znode.
 */
export function znodeSegment(name: string, what: string): string {
  if (name === '' || name === '.' || name === '..' || name.includes('/'))
    throw new Error(`invalid ${what} for a znode path: ${JSON.stringify(name)}`);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: exactly ZooKeeper's refused ranges
  if (/[\u0000-\u001f\u007f-\u009f\ud800-\uf8ff\ufff0-\uffff]/.test(name))
    throw new Error(
      `invalid ${what} for a znode path (ZooKeeper refuses its characters): ${JSON.stringify(name)}`,
    );
  return name;
}

function partitionSegment(partition: number): string {
  if (!Number.isInteger(partition) || partition < 0 || partition > 0x7fffffff)
    throw new Error(`invalid partition ${partition}`);
  return String(partition);
}

/** /brokers/ids/<id> (ephemeral). */
export function brokerIdPath(brokerId: number): string {
  if (!Number.isInteger(brokerId) || brokerId < 0 || brokerId > 0x7fffffff)
    throw new Error(`invalid broker id ${brokerId}`);
  return `${ZK_PATHS.brokerIds}/${brokerId}`;
}

/** /brokers/topics/<topic>: the replica assignment and topic id. */
export function topicPath(topic: string): string {
  return `${ZK_PATHS.topics}/${znodeSegment(topic, 'topic name')}`;
}

export function topicPartitionsPath(topic: string): string {
  return `${topicPath(topic)}/partitions`;
}

export function topicPartitionPath(topic: string, partition: number): string {
  return `${topicPartitionsPath(topic)}/${partitionSegment(partition)}`;
}

/** /brokers/topics/<topic>/partitions/<p>/state: leader, ISR, epochs. */
export function partitionStatePath(topic: string, partition: number): string {
  return `${topicPartitionPath(topic, partition)}/state`;
}

export function configEntityTypePath(type: ConfigEntityType): string {
  return `${ZK_PATHS.config}/${type}`;
}

/** /config/<type>/<name>, e.g. /config/topics/t, /config/brokers/1, /config/brokers/<default>. */
export function configEntityPath(type: ConfigEntityType, name: string): string {
  return `${configEntityTypePath(type)}/${znodeSegment(name, `${type} entity name`)}`;
}

/** /admin/delete_topics/<topic>: a deletion request (no data). */
export function deleteTopicPath(topic: string): string {
  return `${ZK_PATHS.deleteTopics}/${znodeSegment(topic, 'topic name')}`;
}

/** The counter of a sequential notification's name or path (`isr_change_0000000003` → `0000000003`). */
export function sequenceNumber(nameOrPath: string, prefix: string): string {
  const i = nameOrPath.lastIndexOf(prefix);
  if (i < 0) throw new Error(`${JSON.stringify(nameOrPath)} is not a ${prefix} znode`);
  return nameOrPath.slice(i + prefix.length);
}
