// An in-memory MetadataStore with ZooKeeper's semantics, for tests and for the embedded broker.
// `MemoryMetadataService` plays the ensemble (all state, the zxid counter, sessions); each broker
// gets its own session with `service.connect()`. Ephemerals (broker registrations, /controller)
// belong to a session and vanish when it ends, so controller failover, broker loss and fencing can
// be driven deterministically with no ZooKeeper:
//
// - `expireSession(store)`: the server expires the session (its ephemerals go, the others' watches
//   fire) and the store at once opens a new one and tells its listeners `sessionExpired`.
// - `disconnect(store)` / `reconnect(store)`: while disconnected every call fails with
//   CONNECTION_LOSS and watch events wait; after the session timeout (on the service's clock) the
//   server expires the session, which the store only learns when it reconnects — as a real
//   client does (SIGSTOP, network loss, kill -9 without reconnect).
// - `injectConnectionLoss(store)`: the next call fails with CONNECTION_LOSS, before or after it
//   was applied (a lost reply), to test the "re-read before retrying" paths.
//
// Watches fire asynchronously (setImmediate), coalesced per kind and topic/entity.

import { type Clock, systemClock, type TimerHandle } from '../../coordinator/runtime/clock.js';
import { Ensemble, type WatchEvent } from './memory-ensemble.js';
import { aclKey, cloneDurableState, type DurableState } from './memory-state.js';
import { type MetadataStore, MetadataStoreError, type MetadataStoreListener } from './metadata-store.js';
import type {
  AclEntryRecord,
  AclResourceRecord,
  BrokerInfo,
  ConfigEntity,
  ControllerLease,
  PartitionState,
  PartitionStateWrite,
  PartitionWriteResult,
  ProducerIdBlock,
  TopicAssignment,
  VersionedAcls,
} from './records.js';

/** Kafka's default `zookeeper.session.timeout.ms`. */
export const DEFAULT_SESSION_TIMEOUT_MS = 18_000;

export interface MemoryMetadataServiceOptions {
  /** Drives the expiry of disconnected sessions (a MockClock in tests). */
  readonly clock?: Clock;
  readonly sessionTimeoutMs?: number;
  /** Initial durable state (the local store's file); empty when omitted. */
  readonly initialState?: DurableState;
  /** What the stores report as `kind` (the embedded local store says 'local'). */
  readonly kind?: MetadataStore['kind'];
}

export interface ConnectionLossFault {
  /** The call is applied, then its reply is "lost" (default: fails before being applied). */
  readonly afterApply?: boolean;
  /** How many calls fail this way (default 1). */
  readonly times?: number;
}

interface SessionRecord {
  readonly id: number;
  /** False once the server expired or closed it. */
  alive: boolean;
  expiryTimer: TimerHandle | null;
}

export class MemoryMetadataService {
  readonly #ensemble: Ensemble;
  readonly #stores = new Set<MemoryMetadataStore>();
  readonly #clock: Clock;
  readonly #sessionTimeoutMs: number;
  readonly #kind: MetadataStore['kind'];
  #nextSession = 1;

  constructor(options: MemoryMetadataServiceOptions = {}) {
    this.#clock = options.clock ?? systemClock;
    this.#sessionTimeoutMs = options.sessionTimeoutMs ?? DEFAULT_SESSION_TIMEOUT_MS;
    this.#kind = options.kind ?? 'zookeeper';
    this.#ensemble = new Ensemble(options.initialState, (e) => this.#fanOut(e));
  }

  /** Opens a session: one broker's view of the ensemble. */
  connect(options: { readonly sessionTimeoutMs?: number } = {}): MemoryMetadataStore {
    const store = new MemoryMetadataStore(
      this.#kind,
      this.#ensemble,
      () => this.#newSession(),
      (s) => this.#endSession(s),
    );
    store.sessionTimeoutMs = options.sessionTimeoutMs ?? this.#sessionTimeoutMs;
    this.#stores.add(store);
    return store;
  }

  /** The server expires the store's session now; the store opens a new one and says `sessionExpired`. */
  expireSession(store: MetadataStore): void {
    const s = this.#own(store);
    this.#endSession(s.session);
    s.renewSession();
  }

  /** Cuts the store off: calls fail with CONNECTION_LOSS; the session expires after its timeout. */
  disconnect(store: MetadataStore): void {
    const s = this.#own(store);
    if (s.status !== 'connected') return;
    s.status = 'disconnected';
    const session = s.session;
    session.expiryTimer = this.#clock.setTimer(s.sessionTimeoutMs, () => this.#endSession(session));
    s.emitConnection((l) => l.disconnected?.());
  }

  /** Reconnects: `reconnected` if the session outlived the outage, else a new session and `sessionExpired`. */
  reconnect(store: MetadataStore): void {
    const s = this.#own(store);
    if (s.status !== 'disconnected') return;
    s.status = 'connected';
    s.session.expiryTimer?.cancel();
    s.session.expiryTimer = null;
    if (s.session.alive) {
      s.emitConnection((l) => l.reconnected?.());
      s.flushSoon();
    } else {
      s.renewSession();
    }
  }

  injectConnectionLoss(store: MetadataStore, fault: ConnectionLossFault = {}): void {
    this.#own(store).faults.push({ afterApply: fault.afterApply ?? false, left: fault.times ?? 1 });
  }

  /** A copy of the durable state (what the local store persists). */
  snapshot(): DurableState {
    return cloneDurableState(this.#ensemble.state);
  }

  /** Counts changes to durable state; grows by at least one per successful write. */
  get changeCount(): number {
    return this.#ensemble.changeCount;
  }

  get lastZxid(): bigint {
    return this.#ensemble.state.zxid;
  }

  #own(store: MetadataStore): MemoryMetadataStore {
    if (!(store instanceof MemoryMetadataStore) || !this.#stores.has(store))
      throw new Error('not a store of this MemoryMetadataService');
    return store;
  }

  #newSession(): SessionRecord {
    return { id: this.#nextSession++, alive: true, expiryTimer: null };
  }

  #endSession(session: SessionRecord): void {
    if (!session.alive) return;
    session.alive = false;
    session.expiryTimer?.cancel();
    session.expiryTimer = null;
    this.#ensemble.dropSession(session.id);
  }

  #fanOut(event: WatchEvent): void {
    for (const store of this.#stores) store.deliver(event);
  }
}

type Notify = (l: MetadataStoreListener) => void;

export class MemoryMetadataStore implements MetadataStore {
  /** @internal state below is driven by MemoryMetadataService. */
  status: 'connected' | 'disconnected' | 'closed' = 'connected';
  session: SessionRecord;
  sessionTimeoutMs = DEFAULT_SESSION_TIMEOUT_MS;
  readonly faults: { afterApply: boolean; left: number }[] = [];
  readonly #listeners = new Set<MetadataStoreListener>();
  /** Data watch events waiting for delivery, coalesced by key. */
  readonly #pending = new Map<string, Notify>();
  /** Connection events, delivered even while disconnected. */
  #connection: Notify[] = [];
  #flushScheduled = false;

  constructor(
    readonly kind: MetadataStore['kind'],
    private readonly ensemble: Ensemble,
    private readonly openSession: () => SessionRecord,
    private readonly endSession: (s: SessionRecord) => void,
  ) {
    this.session = openSession();
  }

  async start(): Promise<void> {
    this.#check();
  }

  clusterId(): Promise<string> {
    return this.#op(() => this.ensemble.clusterId());
  }

  watch(listener: MetadataStoreListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  whenConnected(timeoutMs: number): Promise<boolean> {
    if (this.status !== 'disconnected') return Promise.resolve(this.status === 'connected');
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        stop();
        resolve(this.status === 'connected');
      };
      // A real timer, not the service's clock: this bounds a wait, it is not a session event.
      const timer = setTimeout(done, timeoutMs);
      const stop = this.watch({ reconnected: done, sessionExpired: done });
    });
  }

  registerBroker(broker: Omit<BrokerInfo, 'epoch'>): Promise<bigint> {
    return this.#op(() => this.ensemble.registerBroker(this.session.id, broker));
  }

  liveBrokers(): Promise<BrokerInfo[]> {
    return this.#op(() => this.ensemble.liveBrokers());
  }

  tryElectController(nodeId: number): Promise<ControllerLease | null> {
    return this.#op(() => this.ensemble.tryElectController(this.session.id, nodeId));
  }

  controllerId(): Promise<number> {
    return this.#op(() => this.ensemble.controllerId());
  }

  controllerEpoch(): Promise<number> {
    return this.#op(() => this.ensemble.controllerEpoch());
  }

  resignController(lease: ControllerLease): Promise<void> {
    return this.#op(() => this.ensemble.resignController(lease));
  }

  topicNames(): Promise<string[]> {
    return this.#op(() => this.ensemble.topicNames());
  }

  assignments(names?: readonly string[]): Promise<TopicAssignment[]> {
    return this.#op(() => this.ensemble.assignments(names));
  }

  createTopic(assignment: TopicAssignment, configs: Readonly<Record<string, string>>): Promise<void> {
    return this.#op(() => this.ensemble.createTopic(assignment, configs));
  }

  setAssignment(assignment: TopicAssignment, lease?: ControllerLease): Promise<void> {
    return this.#op(() => this.ensemble.setAssignment(assignment, lease));
  }

  partitionStates(topic: string): Promise<Map<number, PartitionState>> {
    return this.#op(() => this.ensemble.partitionStates(topic));
  }

  writePartitionStates(
    lease: ControllerLease,
    writes: readonly PartitionStateWrite[],
  ): Promise<PartitionWriteResult[]> {
    return this.#op(() => this.ensemble.writePartitionStates(lease, writes));
  }

  requestTopicDeletion(name: string): Promise<void> {
    return this.#op(() => this.ensemble.requestTopicDeletion(name));
  }

  pendingTopicDeletions(): Promise<string[]> {
    return this.#op(() => this.ensemble.pendingTopicDeletions());
  }

  completeTopicDeletion(lease: ControllerLease, name: string): Promise<void> {
    return this.#op(() => this.ensemble.completeTopicDeletion(lease, name));
  }

  configs(entity: ConfigEntity): Promise<Record<string, string>> {
    return this.#op(() => this.ensemble.configs(entity));
  }

  setConfigs(entity: ConfigEntity, configs: Readonly<Record<string, string>>): Promise<void> {
    return this.#op(() => this.ensemble.setConfigs(entity, configs));
  }

  updateConfigs(
    entity: ConfigEntity,
    update: (current: Record<string, string>) => Record<string, string> | null,
  ): Promise<Record<string, string> | null> {
    // The ensemble is synchronous: read, update and write are one step.
    return this.#op(() => {
      const next = update(this.ensemble.configs(entity));
      if (next !== null) this.ensemble.setConfigs(entity, next);
      return next;
    });
  }

  configEntities(type: ConfigEntity['type']): Promise<string[]> {
    return this.#op(() => this.ensemble.configEntities(type));
  }

  allAcls(): Promise<VersionedAcls[]> {
    return this.#op(() => this.ensemble.allAcls());
  }

  acls(resource: AclResourceRecord): Promise<VersionedAcls> {
    return this.#op(() => this.ensemble.acls(resource));
  }

  writeAcls(
    resource: AclResourceRecord,
    acls: readonly AclEntryRecord[],
    expectedVersion: number,
  ): Promise<void> {
    return this.#op(() => this.ensemble.writeAcls(resource, acls, expectedVersion));
  }

  allocateProducerIdBlock(_nodeId: number, size: number): Promise<ProducerIdBlock> {
    return this.#op(() => this.ensemble.allocateProducerIdBlock(size));
  }

  async close(): Promise<void> {
    if (this.status === 'closed') return;
    this.status = 'closed';
    this.endSession(this.session);
    this.#listeners.clear();
    this.#pending.clear();
    this.#connection = [];
  }

  // -- Driven by the service -------------------------------------------------------------------

  /** A watch event from the ensemble: queued, dropped if this session is gone. */
  deliver(event: WatchEvent): void {
    if (this.status === 'closed' || !this.session.alive) return;
    const [key, notify] = watchCall(event);
    if (!this.#pending.has(key)) this.#pending.set(key, notify);
    if (this.status === 'connected') this.flushSoon();
  }

  emitConnection(notify: Notify): void {
    this.#connection.push(notify);
    this.flushSoon();
  }

  /** After an expiry: a fresh session, watches lost, owner told to re-read everything. */
  renewSession(): void {
    if (this.status === 'closed') return;
    this.session = this.openSession();
    this.#pending.clear();
    this.emitConnection((l) => l.sessionExpired?.());
  }

  flushSoon(): void {
    if (this.#flushScheduled) return;
    this.#flushScheduled = true;
    setImmediate(() => this.#flush());
  }

  #flush(): void {
    this.#flushScheduled = false;
    const calls = this.#connection;
    this.#connection = [];
    if (this.status === 'connected') {
      calls.push(...this.#pending.values());
      this.#pending.clear();
    }
    for (const call of calls) {
      for (const l of [...this.#listeners]) {
        try {
          call(l);
        } catch {
          // A listener's failure must not starve the others of their events.
        }
      }
    }
  }

  #check(): void {
    if (this.status === 'closed') throw new MetadataStoreError('SESSION_EXPIRED', 'the store is closed');
    if (this.status === 'disconnected')
      throw new MetadataStoreError('CONNECTION_LOSS', 'disconnected from the metadata service');
  }

  async #op<T>(fn: () => T): Promise<T> {
    this.#check();
    const fault = this.faults[0];
    if (fault !== undefined) {
      if (--fault.left <= 0) this.faults.shift();
      if (!fault.afterApply) throw new MetadataStoreError('CONNECTION_LOSS', 'injected connection loss');
      fn();
      throw new MetadataStoreError('CONNECTION_LOSS', 'injected connection loss (the call was applied)');
    }
    return fn();
  }
}

function watchCall(e: WatchEvent): [string, Notify] {
  switch (e.kind) {
    case 'brokers':
      return ['brokers', (l) => l.brokersChanged?.()];
    case 'controller':
      return ['controller', (l) => l.controllerChanged?.()];
    case 'topics':
      return ['topics', (l) => l.topicsChanged?.()];
    case 'deletions':
      return ['deletions', (l) => l.topicDeletionRequested?.()];
    case 'assignment':
      return [`assignment/${e.topic}`, (l) => l.assignmentChanged?.(e.topic)];
    case 'config':
      return [`config/${e.entity.type}/${e.entity.name}`, (l) => l.configChanged?.(e.entity)];
    case 'acls':
      return [`acls/${aclKey(e.resource)}`, (l) => l.aclsChanged?.(e.resource)];
  }
}
