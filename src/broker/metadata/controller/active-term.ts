// One term of this node as the active controller: from winning an election (a lease on the
// controller epoch) until it is deposed. Holds the cached cluster view, the brokers whose channel
// queues it opened, and the store access rules every event follows: reads retried after
// CONNECTION_LOSS, NOT_CONTROLLER turning into "deposed", and nothing sent once deposed.

import type { Clock } from '../../coordinator/runtime/clock.js';
import type { Logger, LogLevel } from '../../logger.js';
import type { MetadataStore } from '../store/metadata-store.js';
import type { BrokerInfo, ControllerLease } from '../store/records.js';
import type { ConnectionGate } from './connection-gate.js';
import type { ControllerChannel } from './controller-channel.js';
import { ControllerContext } from './controller-context.js';
import { ControllerMovedError, isStoreError } from './controller-errors.js';
import { RequestBatch, type StopReplicaOutcome } from './request-batch.js';

export interface TopicElectionConfig {
  readonly uncleanLeaderElectionEnable: boolean;
}

export interface ControllerDeps {
  readonly nodeId: number;
  readonly store: MetadataStore;
  readonly channel: ControllerChannel;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly gate: ConnectionGate;
  readonly topicConfig: (topic: string) => Promise<TopicElectionConfig>;
  readonly deleteTopicEnable: boolean;
  /** Listener whose endpoint LeaderAndIsr names for leaders (default: each broker's first). */
  readonly interBrokerListener: string | undefined;
  /** Where StopReplica outcomes go (the controller turns them into events). */
  readonly onStopReplicaOutcome: (term: ActiveTerm, outcome: StopReplicaOutcome) => void;
}

export class ActiveTerm {
  readonly ctx = new ControllerContext();
  #deposed = false;
  /** Brokers this term opened a channel queue for, with the epoch it was opened at. */
  readonly #channelBrokers = new Map<number, bigint>();

  constructor(
    readonly deps: ControllerDeps,
    readonly lease: ControllerLease,
  ) {}

  get epoch(): number {
    return this.lease.epoch;
  }

  get deposed(): boolean {
    return this.#deposed;
  }

  /** Stops acting at once: the channel queues are dropped, later sends and writes refused. */
  depose(): void {
    if (this.#deposed) return;
    this.#deposed = true;
    for (const id of this.#channelBrokers.keys()) this.deps.channel.removeBroker(id);
    this.#channelBrokers.clear();
  }

  check(): void {
    if (this.#deposed) throw new ControllerMovedError();
  }

  /** A read (or an idempotent write): CONNECTION_LOSS waits for the connection and retries. */
  async read<T>(op: (store: MetadataStore) => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      this.check();
      try {
        return await op(this.deps.store);
      } catch (e) {
        if (isStoreError(e, 'NOT_CONTROLLER')) throw this.fenced(e.message);
        if (!isStoreError(e, 'CONNECTION_LOSS')) throw e;
        await this.deps.gate.afterConnectionLoss(attempt);
      }
    }
  }

  /** The store refused our lease: someone else is controller now. */
  fenced(why: string): ControllerMovedError {
    this.log('warn', 'controller write fenced: deposed', { epoch: this.epoch, reason: why });
    this.depose();
    return new ControllerMovedError(why);
  }

  /** Opens (or re-targets) a broker's channel queue. */
  addBroker(broker: BrokerInfo): void {
    if (this.#deposed) return;
    this.deps.channel.addBroker(broker);
    this.#channelBrokers.set(broker.nodeId, broker.epoch);
  }

  removeBroker(nodeId: number): void {
    if (this.#channelBrokers.delete(nodeId)) this.deps.channel.removeBroker(nodeId);
  }

  batch(): RequestBatch {
    return new RequestBatch(this);
  }

  /** Re-reads the partition states of topics after a lost conditional write or a lost reply. */
  async refreshStates(topics: Iterable<string>): Promise<void> {
    for (const topic of new Set(topics)) {
      if (!this.ctx.topics.has(topic)) continue;
      const states = await this.read((s) => s.partitionStates(topic));
      for (const st of states.values()) {
        // Kafka aborts when a state was written by a newer controller: we were deposed.
        if (st.controllerEpoch > this.epoch)
          throw this.fenced(`partition state of ${topic} written by controller epoch ${st.controllerEpoch}`);
      }
      this.ctx.states.set(topic, states);
    }
  }

  /** The topic's unclean.leader.election.enable, looked up once per event (cache per call site). */
  uncleanEnabled(topic: string, cache: Map<string, Promise<boolean>>): Promise<boolean> {
    let p = cache.get(topic);
    if (p === undefined) {
      p = this.deps.topicConfig(topic).then(
        (c) => c.uncleanLeaderElectionEnable,
        (e: unknown) => {
          this.log('warn', 'could not read topic config; no unclean election', { topic, error: String(e) });
          return false;
        },
      );
      cache.set(topic, p);
    }
    return p;
  }

  log(level: LogLevel, msg: string, fields: Readonly<Record<string, unknown>> = {}): void {
    this.deps.logger.log(level, `controller: ${msg}`, {
      nodeId: this.deps.nodeId,
      epoch: this.epoch,
      ...fields,
    });
  }
}
