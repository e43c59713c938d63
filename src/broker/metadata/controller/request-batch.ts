// What one controller event tells brokers (Kafka's ControllerBrokerRequestBatch): LeaderAndIsr,
// UpdateMetadata and StopReplica entries are collected per broker while the event runs, then sent
// as at most one request of each kind per broker. Partition states are read from the context at
// send time, so a partition changed twice in one event is announced once, with its final state.
// Every LeaderAndIsr entry also announces the partition to every live broker in UpdateMetadata.

import type { StopReplicaResponse } from '../../../protocol/messages/generated/stop-replica.js';
import type { PartitionState, TopicPartition } from '../store/records.js';
import type { ActiveTerm } from './active-term.js';
import { tpKey } from './controller-context.js';
import {
  deletedTopicStates,
  leaderAndIsrRequest,
  liveBrokersForUpdateMetadata,
  type Sender,
  stopReplicaRequest,
  type UmState,
  updateMetadataRequest,
  updateMetadataStates,
} from './request-builders.js';

export interface StopReplicaOutcome {
  readonly brokerId: number;
  /** The partitions the request asked the broker to delete. */
  readonly deleted: readonly TopicPartition[];
  /** Null when the request never got an answer (broker gone, connection lost). */
  readonly response: StopReplicaResponse | null;
}

export class RequestBatch {
  readonly #leaderAndIsr = new Map<number, Map<string, TopicPartition & { isNew: boolean }>>();
  readonly #umBrokers = new Set<number>();
  readonly #umFull = new Set<number>();
  readonly #umPartitions = new Map<string, TopicPartition>();
  /** States of topics already removed from the context (deletion completed). */
  readonly #umDeleted: UmState[] = [];
  readonly #stopReplica = new Map<number, Map<string, TopicPartition & { deletePartition: boolean }>>();

  constructor(private readonly term: ActiveTerm) {}

  leaderAndIsr(brokers: Iterable<number>, tp: TopicPartition, isNew = false): void {
    const key = tpKey(tp.topic, tp.partition);
    for (const b of brokers) {
      if (b < 0) continue;
      const m = entriesOf(this.#leaderAndIsr, b);
      m.set(key, { topic: tp.topic, partition: tp.partition, isNew: isNew || (m.get(key)?.isNew ?? false) });
    }
    this.updateMetadata(this.term.ctx.liveBrokerIds(), [tp]);
  }

  /** UpdateMetadata to `brokers` (the live-broker list always; these partitions' states too). */
  updateMetadata(brokers: Iterable<number>, partitions: Iterable<TopicPartition> = []): void {
    for (const b of brokers) this.#umBrokers.add(b);
    for (const tp of partitions) this.#umPartitions.set(tpKey(tp.topic, tp.partition), tp);
  }

  /** UpdateMetadata with every partition: for brokers that just (re)joined or a new controller. */
  updateMetadataFull(brokers: Iterable<number>): void {
    for (const b of brokers) this.#umFull.add(b);
  }

  /** Announces, to every live broker, a deleted topic (leader -2) that is no longer in the context. */
  announceDeleted(
    topic: string,
    topicId: string,
    replicas: readonly (readonly number[])[],
    states: ReadonlyMap<number, PartitionState>,
  ): void {
    this.#umDeleted.push(...deletedTopicStates(topic, topicId, replicas, states));
    this.updateMetadata(this.term.ctx.liveBrokerIds());
  }

  stopReplica(brokers: Iterable<number>, tp: TopicPartition, deletePartition: boolean): void {
    const key = tpKey(tp.topic, tp.partition);
    for (const b of brokers) {
      const m = entriesOf(this.#stopReplica, b);
      const already = m.get(key)?.deletePartition ?? false;
      m.set(key, { topic: tp.topic, partition: tp.partition, deletePartition: already || deletePartition });
    }
  }

  /** Sends everything collected (nothing if the term was deposed meanwhile). */
  send(): void {
    const term = this.term;
    if (term.deposed) return;
    const ctx = term.ctx;
    const sender: Sender = { controllerId: term.deps.nodeId, controllerEpoch: term.epoch };
    const targets = new Set([
      ...this.#leaderAndIsr.keys(),
      ...this.#umBrokers,
      ...this.#umFull,
      ...this.#stopReplica.keys(),
    ]);
    const liveBrokers = liveBrokersForUpdateMetadata(ctx);
    let partial: UmState[] | null = null;
    let full: UmState[] | null = null;
    for (const b of [...targets].sort((x, y) => x - y)) {
      const broker = ctx.liveBrokers.get(b);
      if (broker === undefined) continue;
      const isFull = this.#umFull.has(b);
      let um = null;
      if (isFull) {
        full = full ?? [...updateMetadataStates(ctx, ctx.allPartitions()), ...this.#umDeleted];
        um = updateMetadataRequest(sender, broker, full, liveBrokers, true);
      } else if (this.#umBrokers.has(b)) {
        partial = partial ?? [...updateMetadataStates(ctx, this.#umPartitions.values()), ...this.#umDeleted];
        um = updateMetadataRequest(sender, broker, partial, liveBrokers, false);
      }
      const entries = this.#leaderAndIsr.get(b)?.values() ?? [];
      const lai = leaderAndIsrRequest(sender, ctx, broker, entries, term.deps.interBrokerListener);
      // A broker that (re)joined learns the cluster before its replicas' states; others get the
      // leaders ready before metadata points clients at them (Kafka's order within a batch).
      const channel = term.deps.channel;
      if (isFull && um)
        channel
          .updateMetadata(b, um)
          .then(checkAnswer(term, b, 'UpdateMetadata'), lost(term, b, 'UpdateMetadata'));
      if (lai)
        channel
          .leaderAndIsr(b, lai)
          .then(checkAnswer(term, b, 'LeaderAndIsr'), lost(term, b, 'LeaderAndIsr'));
      if (!isFull && um)
        channel
          .updateMetadata(b, um)
          .then(checkAnswer(term, b, 'UpdateMetadata'), lost(term, b, 'UpdateMetadata'));
      const stops = this.#stopReplica.get(b);
      if (stops !== undefined && stops.size > 0)
        this.#sendStopReplica(b, stopReplicaRequest(sender, ctx, broker, stops.values()));
    }
  }

  #sendStopReplica(brokerId: number, { request, deleted }: ReturnType<typeof stopReplicaRequest>): void {
    const term = this.term;
    term.deps.channel.stopReplica(brokerId, request).then(
      (response) => {
        if (deleted.length > 0) term.deps.onStopReplicaOutcome(term, { brokerId, deleted, response });
      },
      (e: unknown) => {
        term.log('debug', 'StopReplica not delivered', { broker: brokerId, error: String(e) });
        if (deleted.length > 0) term.deps.onStopReplicaOutcome(term, { brokerId, deleted, response: null });
      },
    );
  }
}

function entriesOf<V>(map: Map<number, Map<string, V>>, broker: number): Map<string, V> {
  let m = map.get(broker);
  if (m === undefined) {
    m = new Map();
    map.set(broker, m);
  }
  return m;
}

function checkAnswer(term: ActiveTerm, broker: number, api: string): (r: { errorCode: number }) => void {
  return (r) => {
    if (r.errorCode !== 0)
      term.log('warn', `${api} answered with an error`, { broker, errorCode: r.errorCode });
  };
}

function lost(term: ActiveTerm, broker: number, api: string): (e: unknown) => void {
  return (e) => term.log('debug', `${api} not delivered`, { broker, error: String(e) });
}
