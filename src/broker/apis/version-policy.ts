// The version policy (docs/design.md, "Version policy"): for every API it implements, Samsa
// advertises exactly the range a Kafka 3.9 broker advertises. 3.9 is the last Kafka with
// ZooKeeper mode (Samsa's cluster design) and with message formats v0/v1 (Kafka 4.0 removed
// Produce v0-2, Fetch v0-3 and other old versions, KIP-896), so old clients keep working.
// Kafka 4 clients additionally call DescribeTopicPartitions, which 3.9 serves in KRaft mode only:
// Samsa serves it too. `KAFKA_3_9_RANGES` is the stable range of every API a 3.9 broker serves
// to clients or brokers (schemas' validVersions at 3.9.0 for listeners zkBroker/broker, without
// the share-group APIs marked unstable); `DEVIATIONS` are the deliberate exceptions.
// `test/broker/api-version-policy.test.ts` checks every handler against this table.

export interface VersionRange {
  readonly min: number;
  readonly max: number;
}

const r = (min: number, max: number): VersionRange => ({ min, max });

/** API key → Kafka 3.9's advertised range. */
export const KAFKA_3_9_RANGES: ReadonlyMap<number, VersionRange> = new Map([
  [0, r(0, 11)], // Produce
  [1, r(0, 17)], // Fetch
  [2, r(0, 9)], // ListOffsets
  [3, r(0, 12)], // Metadata
  [4, r(0, 7)], // LeaderAndIsr
  [5, r(0, 4)], // StopReplica
  [6, r(0, 8)], // UpdateMetadata
  [7, r(0, 3)], // ControlledShutdown
  [8, r(0, 9)], // OffsetCommit
  [9, r(0, 9)], // OffsetFetch
  [10, r(0, 6)], // FindCoordinator
  [11, r(0, 9)], // JoinGroup
  [12, r(0, 4)], // Heartbeat
  [13, r(0, 5)], // LeaveGroup
  [14, r(0, 5)], // SyncGroup
  [15, r(0, 5)], // DescribeGroups
  [16, r(0, 5)], // ListGroups
  [17, r(0, 1)], // SaslHandshake
  [18, r(0, 4)], // ApiVersions
  [19, r(0, 7)], // CreateTopics
  [20, r(0, 6)], // DeleteTopics
  [21, r(0, 2)], // DeleteRecords
  [22, r(0, 5)], // InitProducerId
  [23, r(0, 4)], // OffsetForLeaderEpoch
  [24, r(0, 5)], // AddPartitionsToTxn
  [25, r(0, 4)], // AddOffsetsToTxn
  [26, r(0, 4)], // EndTxn
  [27, r(0, 1)], // WriteTxnMarkers
  [28, r(0, 4)], // TxnOffsetCommit
  [29, r(0, 3)], // DescribeAcls
  [30, r(0, 3)], // CreateAcls
  [31, r(0, 3)], // DeleteAcls
  [32, r(0, 4)], // DescribeConfigs
  [33, r(0, 2)], // AlterConfigs
  [34, r(0, 2)], // AlterReplicaLogDirs
  [35, r(0, 4)], // DescribeLogDirs
  [36, r(0, 2)], // SaslAuthenticate
  [37, r(0, 3)], // CreatePartitions
  [38, r(0, 3)], // CreateDelegationToken
  [39, r(0, 2)], // RenewDelegationToken
  [40, r(0, 2)], // ExpireDelegationToken
  [41, r(0, 3)], // DescribeDelegationToken
  [42, r(0, 2)], // DeleteGroups
  [43, r(0, 2)], // ElectLeaders
  [44, r(0, 1)], // IncrementalAlterConfigs
  [45, r(0, 0)], // AlterPartitionReassignments
  [46, r(0, 0)], // ListPartitionReassignments
  [47, r(0, 0)], // OffsetDelete
  [48, r(0, 1)], // DescribeClientQuotas
  [49, r(0, 1)], // AlterClientQuotas
  [50, r(0, 0)], // DescribeUserScramCredentials
  [51, r(0, 0)], // AlterUserScramCredentials
  [55, r(0, 2)], // DescribeQuorum
  [56, r(0, 3)], // AlterPartition
  [57, r(0, 1)], // UpdateFeatures
  [58, r(0, 0)], // Envelope
  [60, r(0, 1)], // DescribeCluster
  [61, r(0, 0)], // DescribeProducers
  [64, r(0, 0)], // UnregisterBroker
  [65, r(0, 0)], // DescribeTransactions
  [66, r(0, 1)], // ListTransactions
  [67, r(0, 0)], // AllocateProducerIds
  [68, r(0, 0)], // ConsumerGroupHeartbeat
  [69, r(0, 0)], // ConsumerGroupDescribe
  [71, r(0, 0)], // GetTelemetrySubscriptions
  [72, r(0, 0)], // PushTelemetry
  [74, r(0, 0)], // ListClientMetricsResources
  [75, r(0, 0)], // DescribeTopicPartitions (KRaft brokers only in 3.9)
  [80, r(0, 0)], // AddRaftVoter
  [81, r(0, 0)], // RemoveRaftVoter
]);

/** Deliberate differences from Kafka 3.9, with the reason. */
export const DEVIATIONS: ReadonlyMap<number, VersionRange & { readonly why: string }> = new Map([
  [
    68,
    {
      ...r(0, 1),
      why: 'ConsumerGroupHeartbeat v1 (Kafka 4.0): regex subscriptions and client-chosen member ids (KIP-848, KIP-1082)',
    },
  ],
  [
    0,
    {
      ...r(0, 12),
      why: 'Produce v12 (Kafka 4.0): transaction protocol v2, the broker adds the partitions to the transaction (KIP-890)',
    },
  ],
  [
    26,
    {
      ...r(0, 5),
      why: 'EndTxn v5 (Kafka 4.0): transaction protocol v2, an epoch bump per transaction (KIP-890)',
    },
  ],
  [
    28,
    {
      ...r(0, 5),
      why: 'TxnOffsetCommit v5 (Kafka 4.0): transaction protocol v2, the broker adds the offsets partition (KIP-890)',
    },
  ],
  [
    15,
    {
      ...r(0, 6),
      why: 'DescribeGroups v6 (Kafka 4.0): GROUP_ID_NOT_FOUND with a message for an unknown or non-classic group, instead of Dead (KIP-1043)',
    },
  ],
  [
    69,
    {
      ...r(0, 1),
      why: 'ConsumerGroupDescribe v1 (Kafka 4.0): MemberType tells classic members of a consumer group from the others (KIP-1099)',
    },
  ],
  [
    7,
    {
      ...r(2, 3),
      why: 'ControlledShutdown v0-1 carry no broker epoch: any client could drain any broker (only brokers < 2.2 send them)',
    },
  ],
]);

/** The range Samsa must advertise for an implemented API key (undefined: not in the policy). */
export function policyRange(key: number): VersionRange | undefined {
  const d = DEVIATIONS.get(key);
  return d ? r(d.min, d.max) : KAFKA_3_9_RANGES.get(key);
}
