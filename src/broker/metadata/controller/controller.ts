// The controller (Kafka's KafkaController in ZooKeeper mode). Every broker runs one; the one that
// wins the election through the store (`/controller`, fenced by the controller epoch) is active:
// it alone writes partition states, and it tells brokers through the ControllerChannel.
//
// Everything runs as events in one serial queue: store watches (brokers, topics, assignments,
// deletions, configs, the controller itself), broker requests (ControlledShutdown, AlterPartition,
// ElectLeaders) and StopReplica answers. A deposed controller — a fenced write (NOT_CONTROLLER),
// another controller seen, its session expired — drops its channel queues at once and abandons
// the event; all it knew is discarded and rebuilt from the store if it is elected again.

import { ErrorCode, KafkaError } from '../../../protocol/errors.js';
import type {
  AlterPartitionRequest,
  AlterPartitionResponse,
} from '../../../protocol/messages/generated/alter-partition.js';
import { type Clock, systemClock, type TimerHandle } from '../../coordinator/runtime/clock.js';
import { type Logger, silentLogger } from '../../logger.js';
import type { MetadataStore, MetadataStoreListener } from '../store/metadata-store.js';
import type { ControllerLease, TopicPartition } from '../store/records.js';
import type { ActiveController, LeadershipController } from './active-controller.js';
import { ActiveTerm, type ControllerDeps, type TopicElectionConfig } from './active-term.js';
import { alterPartition } from './alter-partition.js';
import { processBrokerChange } from './broker-changes.js';
import { ConnectionGate } from './connection-gate.js';
import { controlledShutdown } from './controlled-shutdown.js';
import type { ControllerChannel } from './controller-channel.js';
import { ControllerMovedError, isStoreError } from './controller-errors.js';
import { type ElectionOutcome, electLeaders } from './elect-leaders.js';
import { EventQueue } from './event-queue.js';
import { initializeTerm } from './failover.js';
import {
  autoLeaderRebalance,
  DEFAULT_LEADER_REBALANCE,
  FIRST_CHECK_DELAY_MS,
  type LeaderRebalanceConfig,
} from './leader-rebalance.js';
import { processConfigChange } from './partition-elections.js';
import { maybeCompleteReassignments } from './partition-reassignment.js';
import {
  alterPartitionReassignments,
  listPartitionReassignments,
  type OngoingReassignment,
  type ReassignmentRequest,
  type ReassignmentResult,
} from './reassignment-requests.js';
import { processPartitionModifications, processTopicChange } from './topic-changes.js';
import { onStopReplicaOutcome, processTopicDeletion } from './topic-deletion.js';

export type { TopicElectionConfig } from './active-term.js';
export type { ElectionOutcome } from './elect-leaders.js';
export type { LeaderRebalanceConfig } from './leader-rebalance.js';
export type {
  OngoingReassignment,
  ReassignmentRequest,
  ReassignmentResult,
} from './reassignment-requests.js';

export interface ControllerOptions {
  readonly nodeId: number;
  readonly store: MetadataStore;
  readonly channel: ControllerChannel;
  readonly logger?: Logger;
  /** Retry delays after repeated connection losses (a MockClock in tests). */
  readonly clock?: Clock;
  /** The topic's effective `unclean.leader.election.enable` (read only when an ISR has no live member). */
  readonly topicConfig: (topic: string) => Promise<TopicElectionConfig>;
  /** `delete.topic.enable` (default true); when false, deletion requests are left pending. */
  readonly deleteTopicEnable?: boolean;
  /** `inter.broker.listener.name`: the endpoint LeaderAndIsr gives followers for each leader. */
  readonly interBrokerListener?: string;
  /** `auto.leader.rebalance.enable` and its check interval and threshold (Kafka's defaults). */
  readonly leaderRebalance?: LeaderRebalanceConfig;
}

export class Controller implements ActiveController, LeadershipController {
  readonly #deps: ControllerDeps;
  readonly #queue: EventQueue;
  readonly #gate: ConnectionGate;
  #term: ActiveTerm | null = null;
  #activeControllerId = -1;
  #unwatch: (() => void) | null = null;
  #closed = false;
  readonly #rebalance: LeaderRebalanceConfig;
  #rebalanceTimer: TimerHandle | null = null;

  constructor(options: ControllerOptions) {
    const clock = options.clock ?? systemClock;
    this.#rebalance = options.leaderRebalance ?? DEFAULT_LEADER_REBALANCE;
    this.#gate = new ConnectionGate(clock);
    this.#deps = {
      nodeId: options.nodeId,
      store: options.store,
      channel: options.channel,
      logger: options.logger ?? silentLogger,
      clock,
      gate: this.#gate,
      topicConfig: options.topicConfig,
      deleteTopicEnable: options.deleteTopicEnable ?? true,
      interBrokerListener: options.interBrokerListener,
      onStopReplicaOutcome: (term, outcome) =>
        this.#queue.put('stop-replica-response', () =>
          this.#runIn(term, (t) => onStopReplicaOutcome(t, outcome)),
        ),
    };
    this.#queue = new EventQueue((name, e) =>
      this.#log('error', 'controller event failed', { event: name, error: String(e) }),
    );
  }

  /** True while this node is the active controller. */
  get isActive(): boolean {
    return this.#term !== null && !this.#term.deposed;
  }

  /** The controller epoch of the active term; -1 when not active. */
  get epoch(): number {
    return this.isActive ? this.#term!.epoch : -1;
  }

  /** The controller this node last saw in the store (-1 = none). */
  get activeControllerId(): number {
    return this.isActive ? this.#deps.nodeId : this.#activeControllerId;
  }

  /** Watches the store and runs the first election; resolves when that election is over. */
  async start(): Promise<void> {
    if (this.#unwatch !== null || this.#closed) return;
    this.#unwatch = this.#deps.store.watch(this.#listener());
    await this.#queue.call(
      'startup',
      () => this.#elect(),
      () => undefined,
    );
  }

  /**
   * ControlledShutdown: the partitions the broker still leads. Throws KafkaError:
   * STALE_CONTROLLER_EPOCH when not the active controller (Kafka's ControllerMovedException),
   * STALE_BROKER_EPOCH for an older epoch than the registration, BROKER_NOT_AVAILABLE.
   */
  controlledShutdown(brokerId: number, brokerEpoch: bigint): Promise<TopicPartition[]> {
    return this.#queue.call(
      'controlled-shutdown',
      () => this.#api((t) => controlledShutdown(t, brokerId, brokerEpoch), controllerMoved),
      () => {
        throw controllerMoved();
      },
    );
  }

  /**
   * AlterPartition from a partition leader. `version` (the request's) picks topic ids (v2+) and
   * INELIGIBLE_REPLICA (v2+) over OPERATION_NOT_ATTEMPTED; without it, topics are found by id when
   * the request carries ids, by name otherwise.
   */
  alterPartition(request: AlterPartitionRequest, version?: number): Promise<AlterPartitionResponse> {
    const refused = (): AlterPartitionResponse => ({
      throttleTimeMs: 0,
      errorCode: ErrorCode.NOT_CONTROLLER,
      topics: [],
    });
    return this.#queue.call(
      'alter-partition',
      () =>
        this.#api(async (t) => {
          const response = await alterPartition(t, request, version);
          // As Kafka: answered first, then a grown ISR may complete a reassignment.
          const changed = response.topics.flatMap((topic) =>
            topic.partitions
              .filter((p) => p.errorCode === ErrorCode.NONE)
              .map((p) => ({ topic: topic.topicName, partition: p.partitionIndex })),
          );
          if (changed.length > 0)
            this.#queue.put('reassignment-isr-change', () =>
              this.#runIn(t, (term) => maybeCompleteReassignments(term, changed)),
            );
          return response;
        }).catch((e: unknown) => {
          if (e instanceof KafkaError && e.code === ErrorCode.NOT_CONTROLLER) return refused();
          throw e;
        }),
      refused,
    );
  }

  /** ElectLeaders: preferred (true) or unclean (false) election; null = every partition. */
  electLeaders(preferred: boolean, partitions: readonly TopicPartition[] | null): Promise<ElectionOutcome[]> {
    const refused = (): ElectionOutcome[] =>
      (partitions ?? []).map((tp) => ({
        ...tp,
        errorCode: ErrorCode.NOT_CONTROLLER,
        errorMessage: null,
        leader: -1,
      }));
    return this.#queue.call(
      'elect-leaders',
      () =>
        this.#api((t) => electLeaders(t, preferred, partitions)).catch((e: unknown) => {
          if (e instanceof KafkaError && e.code === ErrorCode.NOT_CONTROLLER) return refused();
          throw e;
        }),
      refused,
    );
  }

  /**
   * AlterPartitionReassignments: per-partition results; a null `replicas` cancels. Throws
   * KafkaError(NOT_CONTROLLER) when this node is not the active controller.
   */
  alterPartitionReassignments(requests: readonly ReassignmentRequest[]): Promise<ReassignmentResult[]> {
    return this.#queue.call(
      'alter-partition-reassignments',
      () => this.#api((t) => alterPartitionReassignments(t, requests)),
      () => {
        throw notController();
      },
    );
  }

  /** ListPartitionReassignments (null = every partition being reassigned). Throws NOT_CONTROLLER. */
  listPartitionReassignments(partitions: readonly TopicPartition[] | null): Promise<OngoingReassignment[]> {
    return this.#queue.call(
      'list-partition-reassignments',
      () => this.#api(async (t) => listPartitionReassignments(t, partitions)),
      () => {
        throw notController();
      },
    );
  }

  /** Resolves once no event runs or waits (tests drive the cluster step by step with it). */
  whenIdle(): Promise<void> {
    return this.#queue.whenIdle();
  }

  /** Stops: pending events dropped, the controller role given up so another broker takes over. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#unwatch?.();
    this.#rebalanceTimer?.cancel();
    this.#rebalanceTimer = null;
    const term = this.#term;
    this.#term = null;
    term?.depose();
    this.#queue.close();
    this.#gate.connectedAgain(); // wake an event waiting for the store: it finds itself deposed
    await this.#queue.whenIdle();
    if (term !== null) await this.#deps.store.resignController(term.lease).catch(() => {});
  }

  #listener(): MetadataStoreListener {
    const active = (name: string, key: string, fn: (t: ActiveTerm) => Promise<void>) =>
      this.#queue.put(name, () => this.#runIn(this.#term, fn), key);
    return {
      controllerChanged: () => this.#queue.put('controller-change', () => this.#elect(), 'elect'),
      brokersChanged: () => active('broker-change', 'brokers', processBrokerChange),
      topicsChanged: () => active('topic-change', 'topics', processTopicChange),
      assignmentChanged: (topic) =>
        active('partition-modifications', `assignment/${topic}`, (t) =>
          processPartitionModifications(t, topic),
        ),
      topicDeletionRequested: () => active('topic-deletion', 'deletions', processTopicDeletion),
      configChanged: (entity) =>
        active('config-change', `config/${entity.type}/${entity.name}`, (t) =>
          processConfigChange(t, entity),
        ),
      disconnected: () => this.#gate.disconnected(),
      reconnected: () => {
        this.#gate.connectedAgain();
        // An election missed while cut off (no controller at all) is caught up here.
        this.#queue.put('reconnected', () => this.#elect(), 'elect');
      },
      sessionExpired: () => {
        // Our ephemerals are gone: whatever we were, we are not the controller any more.
        const term = this.#term;
        if (term !== null) this.#resign(term, 'session expired');
        this.#gate.connectedAgain();
        this.#queue.put('session-expired', () => this.#elect(), 'elect');
      },
    };
  }

  /** Kafka's elect(): learn the controller, run for it when there is none. */
  async #elect(): Promise<void> {
    if (this.#closed) return;
    const { store, nodeId } = this.#deps;
    const id = await this.#retry(() => store.controllerId());
    this.#activeControllerId = id;
    const term = this.#term;
    if (term !== null && !term.deposed && id === nodeId) return;
    if (term !== null) this.#resign(term, id === -1 ? 'controller node gone' : `controller is now ${id}`);
    if (id !== -1 && id !== nodeId) return;
    const lease = await this.#retry(() => store.tryElectController(nodeId));
    if (lease === null || this.#closed) {
      this.#activeControllerId = await this.#retry(() => store.controllerId());
      if (lease !== null) await store.resignController(lease).catch(() => {});
      return;
    }
    this.#activeControllerId = nodeId;
    const t = new ActiveTerm(this.#deps, lease);
    this.#term = t;
    t.log('info', 'elected controller');
    await this.#runIn(t, initializeTerm);
    if (this.#rebalance.enable) this.#scheduleRebalance(t, FIRST_CHECK_DELAY_MS);
  }

  /** The automatic leader rebalance check of a term: runs as an event, then again after the interval. */
  #scheduleRebalance(term: ActiveTerm, delayMs: number): void {
    this.#rebalanceTimer?.cancel();
    // A timer longer than 2^31-1 ms would fire at once in Node; such intervals mean "never" anyway.
    this.#rebalanceTimer = this.#deps.clock.setTimer(Math.min(delayMs, 2 ** 31 - 1), () => {
      this.#rebalanceTimer = null;
      if (this.#closed || term !== this.#term || term.deposed) return;
      this.#queue.put(
        'auto-leader-rebalance',
        async () => {
          await this.#runIn(term, (t) =>
            autoLeaderRebalance(t, this.#rebalance.imbalancePerBrokerPercentage),
          );
          if (!this.#closed && term === this.#term && !term.deposed)
            this.#scheduleRebalance(term, this.#rebalance.checkIntervalMs);
        },
        'auto-leader-rebalance',
      );
    });
  }

  /** Runs an event for a term if it is still the active one; its failure ends the term. */
  async #runIn(term: ActiveTerm | null, fn: (t: ActiveTerm) => Promise<void>): Promise<void> {
    if (term === null || term !== this.#term || term.deposed) return;
    try {
      await fn(term);
    } catch (e) {
      this.#termFailed(term, e);
    }
  }

  /** A request that needs the active controller; NOT_CONTROLLER (as a KafkaError) otherwise. */
  async #api<T>(fn: (t: ActiveTerm) => Promise<T>, refused: () => KafkaError = notController): Promise<T> {
    const term = this.#term;
    if (term === null || term.deposed) throw refused();
    try {
      return await fn(term);
    } catch (e) {
      if (e instanceof KafkaError) throw e;
      this.#termFailed(term, e);
      throw refused();
    }
  }

  #termFailed(term: ActiveTerm, e: unknown): void {
    if (e instanceof ControllerMovedError) {
      this.#resign(term, e.message);
      this.#queue.put('controller-moved', () => this.#elect(), 'elect');
      return;
    }
    // Kafka's triggerControllerMove: a controller that failed half-way cannot be trusted with its
    // view; it steps down and the next term (possibly ours again) rebuilds from the store.
    term.log('error', 'controller event failed; resigning', {
      error: e instanceof Error ? (e.stack ?? e.message) : String(e),
    });
    const lease: ControllerLease = term.lease;
    this.#resign(term, 'event failed');
    this.#queue.put('controller-move', async () => {
      await this.#deps.store.resignController(lease).catch(() => {});
      await this.#elect();
    });
  }

  #resign(term: ActiveTerm, why: string): void {
    if (this.#term === term) {
      this.#term = null;
      this.#rebalanceTimer?.cancel();
      this.#rebalanceTimer = null;
    }
    if (!term.deposed) term.log('info', 'resigning as controller', { reason: why });
    term.depose();
  }

  /** Store calls outside a term: CONNECTION_LOSS waits for the connection and retries. */
  async #retry<T>(op: () => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await op();
      } catch (e) {
        if (!isStoreError(e, 'CONNECTION_LOSS') || this.#closed) throw e;
        await this.#gate.afterConnectionLoss(attempt);
      }
    }
  }

  #log(level: 'error' | 'warn' | 'info', msg: string, fields: Record<string, unknown>): void {
    this.#deps.logger.log(level, `controller: ${msg}`, { nodeId: this.#deps.nodeId, ...fields });
  }
}

function notController(): KafkaError {
  return new KafkaError(ErrorCode.NOT_CONTROLLER, 'This broker is not the active controller.');
}

/** Kafka's ControllerMovedException, which ControlledShutdown answers as STALE_CONTROLLER_EPOCH. */
function controllerMoved(): KafkaError {
  return new KafkaError(
    ErrorCode.STALE_CONTROLLER_EPOCH,
    'Controller moved to another broker. Aborting controlled shutdown.',
  );
}
