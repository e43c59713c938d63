// The admin client: one object over the modules in this folder. Every method retries
// retriable failures (connection loss, controller/coordinator/leader moves) within
// request.timeout.ms and throws a typed KafkaClientError otherwise.
import { BrokerPool } from '../broker-pool.js';
import { type ClientOptions, resolveClientOptions } from '../config.js';
import { Coordinators } from '../coordinator.js';
import { Metadata } from '../metadata.js';
import { type AclBinding, type AclBindingFilter, createAcls, deleteAcls, describeAcls } from './acls.js';
import { type ClusterDescription, describeCluster } from './cluster.js';
import {
  type ConfigAlteration,
  type ConfigDescription,
  type ConfigResource,
  describeConfigs,
  incrementalAlterConfigs,
} from './configs.js';
import { AdminContext, type TopicPartition } from './context.js';
import {
  alterConsumerGroupOffsets,
  type CommittedOffset,
  deleteConsumerGroupOffsets,
  deleteGroups,
  describeGroups,
  type GroupDescription,
  type GroupListFilter,
  type GroupListing,
  type ListConsumerGroupOffsetsOptions,
  listConsumerGroupOffsets,
  listGroups,
  type OffsetToCommit,
  resetConsumerGroupOffsets,
} from './groups.js';
import {
  alterPartitionReassignments,
  type ElectionResult,
  electLeaders,
  listPartitionReassignments,
  type OngoingReassignment,
  type PartitionReassignment,
} from './leadership.js';
import { describeLogDirs, type LogDirDescription } from './log-dirs.js';
import {
  type DeleteRecordsTarget,
  deleteRecords,
  type ListedOffset,
  listOffsets,
  type OffsetQuery,
  type OffsetSpec,
  type ReplicaLogEnd,
  type ReplicaQuery,
  replicaLogEndOffsets,
} from './partition-ops.js';
import {
  alterClientQuotas,
  type ClientQuotaAlteration,
  type ClientQuotaEntry,
  type ClientQuotaFilterComponent,
  describeClientQuotas,
} from './quotas.js';
import {
  alterUserScramCredentials,
  describeUserScramCredentials,
  type ScramCredentialAlteration,
  type UserScramCredentials,
} from './scram.js';
import {
  type CreatedTopic,
  createPartitions,
  createTopics,
  deleteTopics,
  describeTopics,
  listTopics,
  type NewPartitions,
  type NewTopic,
  type TimeoutOptions,
  type TopicDescription,
} from './topics.js';
import {
  type AbortTransactionSpec,
  abortTransaction,
  describeProducers,
  describeTransactions,
  type ListTransactionsFilter,
  listTransactions,
  type PartitionProducers,
  type TransactionDescription,
  type TransactionListing,
} from './transactions.js';

export class Admin {
  readonly #pool: BrokerPool;
  readonly #metadata: Metadata;
  readonly #ctx: AdminContext;

  constructor(options: ClientOptions) {
    const o = resolveClientOptions(options);
    this.#pool = new BrokerPool(o);
    this.#metadata = new Metadata(this.#pool, { allowAutoTopicCreation: false });
    this.#ctx = new AdminContext(this.#pool, this.#metadata, new Coordinators(this.#pool));
  }

  /** Connects and loads metadata (optional: every method connects on demand). */
  async connect(): Promise<void> {
    await this.#metadata.refresh();
  }

  async close(): Promise<void> {
    this.#metadata.close();
    this.#pool.close();
  }

  // topics
  createTopics(
    topics: readonly NewTopic[],
    o?: TimeoutOptions & { validateOnly?: boolean },
  ): Promise<CreatedTopic[]> {
    return createTopics(this.#ctx, topics, o);
  }
  deleteTopics(names: readonly string[], o?: TimeoutOptions): Promise<void> {
    return deleteTopics(this.#ctx, names, o);
  }
  listTopics(o?: { includeInternal?: boolean }): Promise<string[]> {
    return listTopics(this.#ctx, o);
  }
  describeTopics(names?: readonly string[]): Promise<TopicDescription[]> {
    return describeTopics(this.#ctx, names);
  }
  createPartitions(
    list: readonly NewPartitions[],
    o?: TimeoutOptions & { validateOnly?: boolean },
  ): Promise<void> {
    return createPartitions(this.#ctx, list, o);
  }

  // leadership
  /** Preferred or unclean leader election (null = every partition); one result per partition. */
  electLeaders(
    type: 'preferred' | 'unclean',
    partitions: readonly TopicPartition[] | null,
    o?: TimeoutOptions,
  ): Promise<ElectionResult[]> {
    return electLeaders(this.#ctx, type, partitions, o);
  }
  /** Starts moving partitions to new replicas (null replicas: cancel); resolves once started. */
  alterPartitionReassignments(list: readonly PartitionReassignment[], o?: TimeoutOptions): Promise<void> {
    return alterPartitionReassignments(this.#ctx, list, o);
  }
  listPartitionReassignments(
    partitions?: readonly TopicPartition[] | null,
    o?: TimeoutOptions,
  ): Promise<OngoingReassignment[]> {
    return listPartitionReassignments(this.#ctx, partitions ?? null, o);
  }

  // configs
  describeConfigs(
    resources: readonly ConfigResource[],
    o?: { includeSynonyms?: boolean },
  ): Promise<ConfigDescription[]> {
    return describeConfigs(this.#ctx, resources, o);
  }
  incrementalAlterConfigs(
    alterations: readonly ConfigAlteration[],
    o?: { validateOnly?: boolean },
  ): Promise<void> {
    return incrementalAlterConfigs(this.#ctx, alterations, o);
  }

  // SCRAM credentials
  /** Mechanisms and iterations of each user (every user with a credential when `users` is absent). */
  describeUserScramCredentials(users?: readonly string[]): Promise<UserScramCredentials[]> {
    return describeUserScramCredentials(this.#ctx, users);
  }
  /** Upserts (the password is salted here) and deletes SCRAM credentials. */
  alterUserScramCredentials(alterations: readonly ScramCredentialAlteration[]): Promise<void> {
    return alterUserScramCredentials(this.#ctx, alterations);
  }

  // client quotas
  describeClientQuotas(filter: {
    components: ClientQuotaFilterComponent[];
    strict?: boolean;
  }): Promise<ClientQuotaEntry[]> {
    return describeClientQuotas(this.#ctx, filter);
  }
  alterClientQuotas(alterations: ClientQuotaAlteration[], o?: { validateOnly?: boolean }): Promise<void> {
    return alterClientQuotas(this.#ctx, alterations, o);
  }

  // consumer groups
  /** Groups of every broker, optionally only some states or types ("classic", "consumer"). */
  listGroups(filter?: GroupListFilter): Promise<GroupListing[]> {
    return listGroups(this.#ctx, filter);
  }
  /**
   * Consumer groups of both protocols: a KIP-848 group with its epochs and each member's target
   * assignment, a classic one with its members' assignments; an unknown id is state Dead.
   */
  describeGroups(groupIds: readonly string[]): Promise<GroupDescription[]> {
    return describeGroups(this.#ctx, groupIds);
  }
  deleteGroups(groupIds: readonly string[]): Promise<void> {
    return deleteGroups(this.#ctx, groupIds);
  }
  /** Committed offsets of a group; `requireStable` as Kafka's (default false). */
  listConsumerGroupOffsets(
    groupId: string,
    partitions?: readonly TopicPartition[],
    options?: ListConsumerGroupOffsetsOptions,
  ): Promise<CommittedOffset[]> {
    return listConsumerGroupOffsets(this.#ctx, groupId, partitions, options);
  }
  alterConsumerGroupOffsets(groupId: string, offsets: readonly OffsetToCommit[]): Promise<void> {
    return alterConsumerGroupOffsets(this.#ctx, groupId, offsets);
  }
  resetConsumerGroupOffsets(
    groupId: string,
    partitions: readonly TopicPartition[],
    to: OffsetSpec | { offset: bigint },
  ): Promise<OffsetToCommit[]> {
    return resetConsumerGroupOffsets(this.#ctx, groupId, partitions, to);
  }
  deleteConsumerGroupOffsets(groupId: string, partitions: readonly TopicPartition[]): Promise<void> {
    return deleteConsumerGroupOffsets(this.#ctx, groupId, partitions);
  }

  // cluster, records, offsets
  /** Every log dir of the given brokers (default: all) with the size and offsetLag of each replica. */
  describeLogDirs(brokers?: readonly number[]): Promise<LogDirDescription[]> {
    return describeLogDirs(this.#ctx, brokers);
  }
  describeCluster(): Promise<ClusterDescription> {
    return describeCluster(this.#ctx);
  }
  deleteRecords(
    targets: readonly DeleteRecordsTarget[],
    o?: { timeoutMs?: number },
  ): Promise<(TopicPartition & { lowWatermark: bigint })[]> {
    return deleteRecords(this.#ctx, targets, o);
  }
  listOffsets(
    queries: readonly OffsetQuery[],
    o?: { isolationLevel?: 'read_uncommitted' | 'read_committed' },
  ): Promise<ListedOffset[]> {
    return listOffsets(this.#ctx, queries, o);
  }
  /** Each replica's own log end offset (ListOffsets with replica id -2 to each replica's broker). */
  replicaLogEndOffsets(queries: readonly ReplicaQuery[]): Promise<ReplicaLogEnd[]> {
    return replicaLogEndOffsets(this.#ctx, queries);
  }

  // transactions
  /** The transactions every broker coordinates, optionally filtered by state and producer id. */
  listTransactions(filter?: ListTransactionsFilter): Promise<TransactionListing[]> {
    return listTransactions(this.#ctx, filter);
  }
  describeTransactions(transactionalIds: readonly string[]): Promise<TransactionDescription[]> {
    return describeTransactions(this.#ctx, transactionalIds);
  }
  describeProducers(partitions: readonly TopicPartition[]): Promise<PartitionProducers[]> {
    return describeProducers(this.#ctx, partitions);
  }
  /** Writes an ABORT marker for the producer's open transaction on one partition (its leader). */
  abortTransaction(spec: AbortTransactionSpec): Promise<void> {
    return abortTransaction(this.#ctx, spec);
  }

  // ACLs
  createAcls(bindings: readonly AclBinding[]): Promise<void> {
    return createAcls(this.#ctx, bindings);
  }
  describeAcls(filter: AclBindingFilter): Promise<AclBinding[]> {
    return describeAcls(this.#ctx, filter);
  }
  /** Deletes what each filter matches; the deleted bindings, one list per filter. */
  deleteAcls(filters: readonly AclBindingFilter[]): Promise<AclBinding[][]> {
    return deleteAcls(this.#ctx, filters);
  }
}
