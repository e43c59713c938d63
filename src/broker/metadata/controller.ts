// The controller: the only writer of cluster metadata. Every operation runs in one queue
// (Kafka's controller event loop), validates, persists through the MetadataStore, updates the
// image, then lets listeners (the replica manager) act on the change before it returns, so a
// client that created a topic can produce to it as soon as it has the answer.

import { ErrorCode, KafkaError } from '../../protocol/errors.js';
import type { BrokerConfig } from '../config/broker-config.js';
import type { Logger } from '../logger.js';
import type { MetadataImage, TopicChange, TopicImage } from './metadata-image.js';
import type { MetadataStore } from './metadata-store.js';
import { validateTopicOverrides } from './topic-config-validation.js';
import { topicNameError } from './topic-names.js';
import type { PartitionRecord, TopicRecord } from './types.js';
import { randomUuid } from './uuid.js';

/** Guard against requests that would create absurd numbers of partition directories. */
export const MAX_PARTITIONS_PER_TOPIC = 10_000;

export interface CreateTopicSpec {
  readonly name: string;
  /** -1 = `num.partitions`. */
  readonly numPartitions: number;
  /** -1 = `default.replication.factor`. */
  readonly replicationFactor: number;
  readonly assignments: readonly { readonly partitionIndex: number; readonly brokerIds: readonly number[] }[];
  readonly configs: Readonly<Record<string, string | null>>;
}

export type ChangeListener = (change: TopicChange) => Promise<void> | void;

export class Controller {
  private queue: Promise<unknown> = Promise.resolve();
  private readonly listeners: ChangeListener[] = [];

  constructor(
    private readonly store: MetadataStore,
    readonly image: MetadataImage,
    private readonly config: BrokerConfig,
    private readonly logger: Logger,
  ) {}

  onChange(listener: ChangeListener): void {
    this.listeners.push(listener);
  }

  /** Runs `fn` after every earlier controller operation has finished. */
  private run<T>(fn: () => Promise<T>): Promise<T> {
    const p = this.queue.then(fn);
    this.queue = p.catch(() => {});
    return p;
  }

  private async notify(change: TopicChange): Promise<void> {
    for (const l of this.listeners) await l(change);
  }

  /** Validates a creation and returns the record it would write. Throws KafkaError. */
  planTopic(spec: CreateTopicSpec): TopicRecord {
    const nameErr = topicNameError(spec.name);
    if (nameErr) throw new KafkaError(ErrorCode.INVALID_TOPIC_EXCEPTION, nameErr);
    if (this.image.topic(spec.name)) {
      throw new KafkaError(ErrorCode.TOPIC_ALREADY_EXISTS, `Topic '${spec.name}' already exists.`);
    }
    const collides = this.image.collidingTopic(spec.name);
    if (collides)
      throw new KafkaError(
        ErrorCode.INVALID_TOPIC_EXCEPTION,
        `Topic '${spec.name}' collides with existing topic: ${collides}`,
      );
    const configs = validateTopicOverrides(spec.configs);
    const brokers = this.image.brokers.map((b) => b.nodeId);
    let assignment: number[][];
    if (spec.assignments.length > 0) {
      if (spec.numPartitions !== -1 || spec.replicationFactor !== -1) {
        throw new KafkaError(
          ErrorCode.INVALID_REQUEST,
          'Both numPartitions or replicationFactor and replicasAssignments were set. Both cannot be used at the same time.',
        );
      }
      assignment = checkAssignments(spec.assignments, 0, brokers);
    } else {
      const n = spec.numPartitions === -1 ? this.config.numPartitions : spec.numPartitions;
      const rf =
        spec.replicationFactor === -1 ? this.config.defaultReplicationFactor : spec.replicationFactor;
      if (n <= 0)
        throw new KafkaError(
          ErrorCode.INVALID_PARTITIONS,
          'Number of partitions was set to an invalid non-positive value.',
        );
      if (n > MAX_PARTITIONS_PER_TOPIC)
        throw new KafkaError(
          ErrorCode.INVALID_PARTITIONS,
          `Number of partitions ${n} exceeds the limit of ${MAX_PARTITIONS_PER_TOPIC}.`,
        );
      if (rf <= 0)
        throw new KafkaError(
          ErrorCode.INVALID_REPLICATION_FACTOR,
          'Replication factor must be larger than 0, or -1 to use the default value.',
        );
      if (rf > brokers.length) {
        throw new KafkaError(
          ErrorCode.INVALID_REPLICATION_FACTOR,
          `Unable to replicate the partition ${rf} time(s): The target replication factor of ${rf} cannot be reached because only ${brokers.length} broker(s) are registered.`,
        );
      }
      assignment = roundRobin(n, rf, brokers, 0);
    }
    return {
      name: spec.name,
      topicId: randomUuid(),
      partitions: assignment.map((r, i) => newPartition(i, r)),
      configs,
    };
  }

  createTopic(spec: CreateTopicSpec): Promise<TopicImage> {
    return this.run(async () => {
      const record = this.planTopic(spec);
      await this.store.putTopic(record);
      const topic = this.image.putTopic(record);
      this.logger.log('info', 'created topic', {
        topic: record.name,
        topicId: record.topicId,
        partitions: record.partitions.length,
      });
      await this.notify({ kind: 'created', topic });
      return topic;
    });
  }

  deleteTopic(name: string): Promise<TopicImage> {
    return this.run(async () => {
      if (!this.config.deleteTopicEnable)
        throw new KafkaError(ErrorCode.TOPIC_DELETION_DISABLED, 'Topic deletion is disabled.');
      const topic = this.image.topic(name);
      if (!topic) throw new KafkaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `Topic ${name} does not exist.`);
      await this.store.removeTopic(name);
      this.image.removeTopic(name);
      this.logger.log('info', 'deleted topic', { topic: name, topicId: topic.topicId });
      await this.notify({ kind: 'deleted', topic });
      return topic;
    });
  }

  /** CreatePartitions: grows `name` to `count` partitions. Throws KafkaError. */
  createPartitions(
    name: string,
    count: number,
    assignments: readonly (readonly number[])[] | null,
    validateOnly: boolean,
  ): Promise<void> {
    return this.run(async () => {
      const topic = this.image.topic(name);
      if (!topic)
        throw new KafkaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `The topic '${name}' does not exist.`);
      const current = topic.partitions.length;
      if (count < current)
        throw new KafkaError(
          ErrorCode.INVALID_PARTITIONS,
          `The topic ${name} currently has ${current} partition(s); ${count} would not be an increase.`,
        );
      if (count === current)
        throw new KafkaError(ErrorCode.INVALID_PARTITIONS, `Topic already has ${current} partition(s).`);
      if (count > MAX_PARTITIONS_PER_TOPIC)
        throw new KafkaError(
          ErrorCode.INVALID_PARTITIONS,
          `Number of partitions ${count} exceeds the limit of ${MAX_PARTITIONS_PER_TOPIC}.`,
        );
      const brokers = this.image.brokers.map((b) => b.nodeId);
      let added: number[][];
      if (assignments !== null) {
        if (assignments.length !== count - current) {
          throw new KafkaError(
            ErrorCode.INVALID_REPLICA_ASSIGNMENT,
            `Attempted to add ${count - current} additional partition(s), but only ${assignments.length} assignment(s) were specified.`,
          );
        }
        added = checkAssignments(
          assignments.map((b, i) => ({ partitionIndex: current + i, brokerIds: b })),
          current,
          brokers,
        );
      } else {
        added = roundRobin(count - current, topic.partitions[0]!.replicas.length, brokers, current);
      }
      if (validateOnly) return;
      const newParts = added.map((r, i) => newPartition(current + i, r));
      const record: TopicRecord = {
        name: topic.name,
        topicId: topic.topicId,
        configs: topic.configs,
        partitions: [...topic.partitions, ...newParts],
      };
      await this.store.putTopic(record);
      const img = this.image.putTopic(record);
      await this.notify({ kind: 'partitions-added', topic: img, added: newParts });
    });
  }

  /** Replaces a topic's overrides (AlterConfigs semantics). Throws KafkaError. */
  setTopicConfigs(
    name: string,
    overrides: Readonly<Record<string, string | null>>,
    validateOnly: boolean,
  ): Promise<void> {
    return this.run(async () => {
      const topic = this.image.topic(name);
      if (!topic) throw new KafkaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `Topic ${name} does not exist.`);
      const configs = validateTopicOverrides(overrides);
      if (validateOnly) return;
      const record: TopicRecord = {
        name: topic.name,
        topicId: topic.topicId,
        partitions: topic.partitions,
        configs,
      };
      await this.store.putTopic(record);
      const img = this.image.putTopic(record);
      await this.notify({ kind: 'configs-changed', topic: img });
    });
  }

  /** Replaces the dynamic configs of a broker entity ('' = cluster default). Already validated. */
  setBrokerConfigs(entity: string, configs: Readonly<Record<string, string>>): Promise<void> {
    return this.run(async () => {
      await this.store.putBrokerConfigs(entity, configs);
      this.image.setBrokerConfigs(entity, configs);
      // Log defaults may have changed for every topic.
      for (const topic of this.image.topics) await this.notify({ kind: 'configs-changed', topic });
    });
  }
}

function newPartition(partition: number, replicas: readonly number[]): PartitionRecord {
  return { partition, leader: replicas[0]!, leaderEpoch: 0, replicas, isr: replicas };
}

/** Kafka-style placement: replicas of partition p start at broker (p mod n) and wrap. */
function roundRobin(
  count: number,
  rf: number,
  brokers: readonly number[],
  firstPartition: number,
): number[][] {
  const out: number[][] = [];
  for (let p = firstPartition; p < firstPartition + count; p++) {
    const replicas: number[] = [];
    for (let r = 0; r < rf; r++) replicas.push(brokers[(p + r) % brokers.length]!);
    out.push(replicas);
  }
  return out;
}

function checkAssignments(
  assignments: readonly { readonly partitionIndex: number; readonly brokerIds: readonly number[] }[],
  firstPartition: number,
  brokers: readonly number[],
): number[][] {
  if (assignments.length > MAX_PARTITIONS_PER_TOPIC)
    throw new KafkaError(ErrorCode.INVALID_PARTITIONS, `Too many partitions in the assignment.`);
  const sorted = [...assignments].sort((a, b) => a.partitionIndex - b.partitionIndex);
  const rf = sorted[0]?.brokerIds.length ?? 0;
  return sorted.map((a, i) => {
    if (a.partitionIndex !== firstPartition + i) {
      throw new KafkaError(
        ErrorCode.INVALID_REPLICA_ASSIGNMENT,
        `Partitions in the assignment must be consecutive and start at ${firstPartition}`,
      );
    }
    if (a.brokerIds.length === 0)
      throw new KafkaError(
        ErrorCode.INVALID_REPLICA_ASSIGNMENT,
        `Empty replica list for partition ${a.partitionIndex}.`,
      );
    if (a.brokerIds.length !== rf)
      throw new KafkaError(
        ErrorCode.INVALID_REPLICA_ASSIGNMENT,
        'All partitions should have the same number of replicas.',
      );
    if (new Set(a.brokerIds).size !== a.brokerIds.length)
      throw new KafkaError(
        ErrorCode.INVALID_REPLICA_ASSIGNMENT,
        `Duplicate brokers in the assignment of partition ${a.partitionIndex}.`,
      );
    const unknown = a.brokerIds.find((b) => !brokers.includes(b));
    if (unknown !== undefined)
      throw new KafkaError(
        ErrorCode.INVALID_REPLICA_ASSIGNMENT,
        `Broker ${unknown} in the assignment of partition ${a.partitionIndex} is not registered.`,
      );
    return [...a.brokerIds];
  });
}
