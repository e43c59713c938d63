// Group coordinator settings, under Kafka's broker config names.

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
};

/** Reads the group settings from broker properties (Kafka names), defaults for the rest. */
export function groupConfigFromProps(props: ReadonlyMap<string, string>): GroupConfig {
  const num = (key: string, fallback: number): number => {
    const v = props.get(key);
    if (v === undefined) return fallback;
    const n = Number(v);
    return Number.isFinite(n) ? n : fallback;
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
  };
}
