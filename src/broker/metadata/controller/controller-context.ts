// The active controller's cached view of the cluster (Kafka's ControllerContext): live brokers
// with their epochs, brokers in controlled shutdown, every topic's assignment and every partition's
// last known state, and the deletion bookkeeping. Rebuilt from the store at each election; the
// store stays the source of truth (a conditional write that loses makes the controller re-read).

import type { BrokerInfo, PartitionState, TopicAssignment, TopicPartition } from '../store/records.js';

export type ReplicaDeletionState = 'started' | 'done' | 'failed';

export class DeletionState {
  /** Topics with a pending deletion request. */
  readonly queued = new Set<string>();
  /** Queued topics that must wait (a replica is offline or failed to delete). */
  readonly ineligible = new Set<string>();
  /** Queued topics whose partitions were already announced as deleted (leader -2). */
  readonly announced = new Set<string>();
  /** Per topic: `${partition}:${broker}` → replica deletion progress. */
  readonly replicas = new Map<string, Map<string, ReplicaDeletionState>>();

  forget(topic: string): void {
    this.queued.delete(topic);
    this.ineligible.delete(topic);
    this.announced.delete(topic);
    this.replicas.delete(topic);
  }
}

export function tpKey(topic: string, partition: number): string {
  return `${topic}\u0000${partition}`;
}

export class ControllerContext {
  readonly liveBrokers = new Map<number, BrokerInfo>();
  readonly shuttingDown = new Set<number>();
  readonly topics = new Map<string, TopicAssignment>();
  readonly states = new Map<string, Map<number, PartitionState>>();
  readonly deletion = new DeletionState();
  #byId = new Map<string, string>();

  /** Registered, shutting-down brokers included. */
  readonly isLive = (id: number): boolean => this.liveBrokers.has(id);
  /** Registered and not shutting down: may lead and join ISRs (Kafka's isReplicaOnline). */
  readonly isOnline = (id: number): boolean => this.liveBrokers.has(id) && !this.shuttingDown.has(id);

  liveBrokerIds(): number[] {
    return [...this.liveBrokers.keys()].sort((a, b) => a - b);
  }

  state(topic: string, partition: number): PartitionState | undefined {
    return this.states.get(topic)?.get(partition);
  }

  setState(topic: string, partition: number, state: PartitionState): void {
    let m = this.states.get(topic);
    if (m === undefined) {
      m = new Map();
      this.states.set(topic, m);
    }
    m.set(partition, state);
  }

  replicas(topic: string, partition: number): readonly number[] {
    return this.topics.get(topic)?.partitions[partition] ?? [];
  }

  hasPartition(topic: string, partition: number): boolean {
    const a = this.topics.get(topic);
    return (
      a !== undefined && Number.isInteger(partition) && partition >= 0 && partition < a.partitions.length
    );
  }

  topicIdOf(topic: string): string | undefined {
    return this.topics.get(topic)?.topicId;
  }

  /** By topic id; the index is rebuilt when it misses or is out of date (ids are unique). */
  topicNameById(topicId: string): string | undefined {
    let name = this.#byId.get(topicId);
    if (name === undefined || this.topics.get(name)?.topicId !== topicId) {
      this.#byId = new Map([...this.topics.values()].map((a) => [a.topicId, a.name]));
      name = this.#byId.get(topicId);
    }
    return name;
  }

  removeTopic(topic: string): void {
    this.topics.delete(topic);
    this.states.delete(topic);
    this.deletion.forget(topic);
  }

  isQueuedForDeletion(topic: string): boolean {
    return this.deletion.queued.has(topic);
  }

  /** Every partition, topics in name order. */
  allPartitions(): TopicPartition[] {
    const out: TopicPartition[] = [];
    for (const name of [...this.topics.keys()].sort()) {
      const a = this.topics.get(name)!;
      for (let p = 0; p < a.partitions.length; p++) out.push({ topic: name, partition: p });
    }
    return out;
  }

  partitionsOf(topic: string): TopicPartition[] {
    const n = this.topics.get(topic)?.partitions.length ?? 0;
    return Array.from({ length: n }, (_, partition) => ({ topic, partition }));
  }

  /** Partitions with a replica on any of the brokers. */
  partitionsOnBrokers(brokers: ReadonlySet<number>): TopicPartition[] {
    return this.allPartitions().filter((tp) =>
      this.replicas(tp.topic, tp.partition).some((r) => brokers.has(r)),
    );
  }

  partitionsLedBy(broker: number): TopicPartition[] {
    return this.allPartitions().filter((tp) => this.state(tp.topic, tp.partition)?.leader === broker);
  }

  /** Assigned replicas that cannot serve (UpdateMetadata `offlineReplicas`). */
  offlineReplicas(topic: string, partition: number): number[] {
    return this.replicas(topic, partition).filter((r) => !this.isOnline(r));
  }
}
