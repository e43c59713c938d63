// Group coordinator settings, under Kafka's broker config names.

/**
 * group.consumer.migration.policy (Kafka's ConsumerGroupMigrationPolicy): whether a non-empty
 * classic group may become a consumer group (upgrade) and back (downgrade). Empty groups convert
 * either way whatever the policy.
 */
export type ConsumerMigrationPolicy = 'bidirectional' | 'upgrade' | 'downgrade' | 'disabled';

const MIGRATION_POLICIES: readonly ConsumerMigrationPolicy[] = [
  'bidirectional',
  'upgrade',
  'downgrade',
  'disabled',
];

/** Kafka's ConsumerGroupMigrationPolicy.parse: case-insensitive, anything else is `disabled`. */
export function parseMigrationPolicy(v: string | undefined): ConsumerMigrationPolicy {
  if (v === undefined) return 'bidirectional';
  const lower = v.trim().toLowerCase();
  return MIGRATION_POLICIES.find((p) => p === lower) ?? 'disabled';
}

export const upgradeEnabled = (p: ConsumerMigrationPolicy): boolean =>
  p === 'bidirectional' || p === 'upgrade';
export const downgradeEnabled = (p: ConsumerMigrationPolicy): boolean =>
  p === 'bidirectional' || p === 'downgrade';

export interface GroupConfig {
  /** group.initial.rebalance.delay.ms */
  initialRebalanceDelayMs: number;
  /** group.min.session.timeout.ms / group.max.session.timeout.ms */
  minSessionTimeoutMs: number;
  maxSessionTimeoutMs: number;
  /** group.max.size */
  maxSize: number;
  /** How long a member that joined a new group may wait for the first rebalance to complete. */
  newMemberJoinTimeoutMs: number;
  /** offsets.retention.minutes, in ms */
  offsetsRetentionMs: number;
  /** offsets.retention.check.interval.ms */
  offsetsRetentionCheckIntervalMs: number;
  /** offset.metadata.max.bytes */
  offsetMetadataMaxBytes: number;
  /** offsets.topic.num.partitions */
  numPartitions: number;
  /** group.coordinator.rebalance.protocols: `consumer` enables KIP-848 (ConsumerGroupHeartbeat/Describe). */
  rebalanceProtocols: string[];
  /** group.consumer.session.timeout.ms / group.consumer.heartbeat.interval.ms (KIP-848 groups). */
  consumerSessionTimeoutMs: number;
  consumerHeartbeatIntervalMs: number;
  /** group.consumer.max.size */
  consumerMaxSize: number;
  /** group.consumer.assignors: server assignors by name, the first is the default. */
  consumerAssignors: string[];
  /** group.consumer.migration.policy */
  consumerMigrationPolicy: ConsumerMigrationPolicy;
}

export const DEFAULT_GROUP_CONFIG: GroupConfig = {
  initialRebalanceDelayMs: 3000,
  minSessionTimeoutMs: 6000,
  maxSessionTimeoutMs: 1_800_000,
  maxSize: 2_147_483_647,
  newMemberJoinTimeoutMs: 300_000,
  offsetsRetentionMs: 10080 * 60_000,
  offsetsRetentionCheckIntervalMs: 600_000,
  offsetMetadataMaxBytes: 4096,
  numPartitions: 50,
  rebalanceProtocols: ['classic', 'consumer'],
  consumerSessionTimeoutMs: 45_000,
  consumerHeartbeatIntervalMs: 5_000,
  consumerMaxSize: 2_147_483_647,
  consumerAssignors: ['uniform', 'range'],
  consumerMigrationPolicy: 'bidirectional',
};

/** Reads the group settings from broker properties (Kafka names), defaults for the rest. */
export function groupConfigFromProps(props: ReadonlyMap<string, string>): GroupConfig {
  const num = (key: string, fallback: number): number => {
    const v = props.get(key);
    if (v === undefined) return fallback;
    const n = Number(v);
    return Number.isFinite(n) ? n : fallback;
  };
  const list = (key: string, fallback: string[]): string[] => {
    const v = props.get(key);
    if (v === undefined) return fallback;
    return v
      .split(',')
      .map((x) => x.trim().toLowerCase())
      .filter((x) => x !== '');
  };
  const d = DEFAULT_GROUP_CONFIG;
  return {
    initialRebalanceDelayMs: num('group.initial.rebalance.delay.ms', d.initialRebalanceDelayMs),
    minSessionTimeoutMs: num('group.min.session.timeout.ms', d.minSessionTimeoutMs),
    maxSessionTimeoutMs: num('group.max.session.timeout.ms', d.maxSessionTimeoutMs),
    maxSize: num('group.max.size', d.maxSize),
    newMemberJoinTimeoutMs: d.newMemberJoinTimeoutMs,
    offsetsRetentionMs: num('offsets.retention.minutes', d.offsetsRetentionMs / 60_000) * 60_000,
    offsetsRetentionCheckIntervalMs: num(
      'offsets.retention.check.interval.ms',
      d.offsetsRetentionCheckIntervalMs,
    ),
    offsetMetadataMaxBytes: num('offset.metadata.max.bytes', d.offsetMetadataMaxBytes),
    numPartitions: num('offsets.topic.num.partitions', d.numPartitions),
    rebalanceProtocols: list('group.coordinator.rebalance.protocols', d.rebalanceProtocols),
    consumerSessionTimeoutMs: num('group.consumer.session.timeout.ms', d.consumerSessionTimeoutMs),
    consumerHeartbeatIntervalMs: num('group.consumer.heartbeat.interval.ms', d.consumerHeartbeatIntervalMs),
    consumerMaxSize: num('group.consumer.max.size', d.consumerMaxSize),
    // Kafka also accepts class names; the two built-in assignors are known by their short names.
    consumerAssignors: list('group.consumer.assignors', d.consumerAssignors).map((a) =>
      a.endsWith('UniformAssignor') ? 'uniform' : a.endsWith('RangeAssignor') ? 'range' : a,
    ),
    consumerMigrationPolicy: parseMigrationPolicy(props.get('group.consumer.migration.policy')),
  };
}
