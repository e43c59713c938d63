// The state machine of the in-memory ensemble: every MetadataStore operation applied to the shared
// state with ZooKeeper's rules — creation zxids, per-record versions bumped by every write,
// conditional writes, ephemerals owned by a session, and controller writes fenced by the version
// of `/controller_epoch`. Sessions, connection faults and watch delivery live in memory-store.ts;
// this file only decides outcomes and says which watches fire.

import { randomUuid } from '../uuid.js';
import { aclKey, configKey, type DurableState, emptyDurableState, parseConfigKey } from './memory-state.js';
import { MetadataStoreError } from './metadata-store.js';
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

/** What changed, as the watches of MetadataStoreListener name it. */
export type WatchEvent =
  | { readonly kind: 'brokers' | 'controller' | 'topics' | 'deletions' }
  | { readonly kind: 'assignment'; readonly topic: string }
  | { readonly kind: 'config'; readonly entity: ConfigEntity }
  | { readonly kind: 'acls'; readonly resource: AclResourceRecord };

interface Ephemeral {
  readonly session: number;
}

export class Ensemble {
  readonly state: DurableState;
  readonly brokers = new Map<number, Ephemeral & { readonly info: BrokerInfo }>();
  controller: (Ephemeral & { readonly nodeId: number }) | null = null;
  /** Number of changes to durable state so far (the local store persists up to it). */
  changeCount = 0;

  constructor(
    initial: DurableState | undefined,
    private readonly notify: (event: WatchEvent) => void,
  ) {
    this.state = initial ?? emptyDurableState();
  }

  private nextZxid(): bigint {
    this.changeCount++;
    this.state.zxid += 1n;
    return this.state.zxid;
  }

  private touch(): void {
    this.changeCount++;
    this.state.zxid += 1n;
  }

  clusterId(): string {
    if (this.state.clusterId === null) {
      this.state.clusterId = randomUuid();
      this.touch();
    }
    return this.state.clusterId;
  }

  // -- Ephemerals ---------------------------------------------------------------------------

  registerBroker(session: number, broker: Omit<BrokerInfo, 'epoch'>): bigint {
    const existing = this.brokers.get(broker.nodeId);
    if (existing !== undefined) {
      // ZooKeeper would answer NODE_EXISTS; Kafka treats its own session's node as success.
      if (existing.session === session) return existing.info.epoch;
      throw new MetadataStoreError('NODE_EXISTS', `broker ${broker.nodeId} is already registered`);
    }
    const epoch = this.nextZxid();
    this.brokers.set(broker.nodeId, { session, info: { ...broker, epoch } });
    this.notify({ kind: 'brokers' });
    return epoch;
  }

  liveBrokers(): BrokerInfo[] {
    return [...this.brokers.values()].map((b) => b.info).sort((a, b) => a.nodeId - b.nodeId);
  }

  tryElectController(session: number, nodeId: number): ControllerLease | null {
    const current = this.state.controllerEpoch;
    if (this.controller !== null) {
      // A retry after a lost reply: the node we created is still ours, so the election was won.
      if (this.controller.session === session && this.controller.nodeId === nodeId && current !== null)
        return { nodeId, epoch: current.epoch, epochVersion: current.version };
      return null;
    }
    // Kafka creates /controller_epoch with 0 at version 0, then bumps it in the same multi that
    // creates /controller: the first controller has epoch 1 at version 1.
    const next = { epoch: (current?.epoch ?? 0) + 1, version: (current?.version ?? 0) + 1 };
    this.state.controllerEpoch = next;
    this.touch();
    this.controller = { session, nodeId };
    this.notify({ kind: 'controller' });
    return { nodeId, epoch: next.epoch, epochVersion: next.version };
  }

  controllerId(): number {
    return this.controller?.nodeId ?? -1;
  }

  controllerEpoch(): number {
    return this.state.controllerEpoch?.epoch ?? 0;
  }

  resignController(lease: ControllerLease): void {
    if (this.controller === null || this.controller.nodeId !== lease.nodeId) return;
    if (!this.leaseHolds(lease)) return;
    this.controller = null;
    this.touch();
    this.notify({ kind: 'controller' });
  }

  /** Deletes the ephemerals of an ended session, as the server does at expiry or close. */
  dropSession(session: number): void {
    let brokersChanged = false;
    for (const [id, b] of this.brokers) {
      if (b.session === session) {
        this.brokers.delete(id);
        brokersChanged = true;
      }
    }
    if (brokersChanged) {
      this.touch();
      this.notify({ kind: 'brokers' });
    }
    if (this.controller?.session === session) {
      this.controller = null;
      this.touch();
      this.notify({ kind: 'controller' });
    }
  }

  // -- Topics ------------------------------------------------------------------------------

  topicNames(): string[] {
    return [...this.state.topics.keys()].sort();
  }

  assignments(names?: readonly string[]): TopicAssignment[] {
    const wanted = names ?? this.topicNames();
    const out: TopicAssignment[] = [];
    for (const name of wanted) {
      const t = this.state.topics.get(name);
      if (t !== undefined) out.push(t.assignment);
    }
    return out;
  }

  createTopic(assignment: TopicAssignment, configs: Readonly<Record<string, string>>): void {
    if (this.state.topics.has(assignment.name))
      throw new MetadataStoreError('NODE_EXISTS', `topic ${assignment.name} already exists`);
    this.state.topics.set(assignment.name, { assignment: freezeAssignment(assignment), states: new Map() });
    const key = configKey({ type: 'topics', name: assignment.name });
    if (Object.keys(configs).length > 0) this.state.configs.set(key, { ...configs });
    else this.state.configs.delete(key);
    this.touch();
    this.notify({ kind: 'topics' });
  }

  setAssignment(assignment: TopicAssignment, lease?: ControllerLease): void {
    if (lease !== undefined) this.checkLease(lease);
    const t = this.state.topics.get(assignment.name);
    if (t === undefined) throw new MetadataStoreError('NO_NODE', `topic ${assignment.name} does not exist`);
    this.state.topics.set(assignment.name, { assignment: freezeAssignment(assignment), states: t.states });
    this.touch();
    this.notify({ kind: 'assignment', topic: assignment.name });
  }

  partitionStates(topic: string): Map<number, PartitionState> {
    return new Map(this.state.topics.get(topic)?.states);
  }

  writePartitionStates(
    lease: ControllerLease,
    writes: readonly PartitionStateWrite[],
  ): PartitionWriteResult[] {
    this.checkLease(lease);
    return writes.map((w) => this.writeOne(w));
  }

  private writeOne(w: PartitionStateWrite): PartitionWriteResult {
    const { topic, partition } = w;
    const t = this.state.topics.get(topic);
    if (t === undefined || partition < 0 || partition >= t.assignment.partitions.length)
      return { topic, partition, ok: false, reason: 'NO_NODE' };
    const current = t.states.get(partition);
    let version: number;
    if (w.expectedVersion === -1) {
      if (current !== undefined) return { topic, partition, ok: false, reason: 'NODE_EXISTS' };
      version = 0;
    } else {
      if (current === undefined) return { topic, partition, ok: false, reason: 'NO_NODE' };
      if (current.version !== w.expectedVersion)
        return { topic, partition, ok: false, reason: 'BAD_VERSION' };
      version = current.version + 1;
    }
    const s = w.state;
    t.states.set(
      partition,
      Object.freeze({
        leader: s.leader,
        leaderEpoch: s.leaderEpoch,
        isr: Object.freeze([...s.isr]),
        controllerEpoch: s.controllerEpoch,
        leaderRecoveryState: s.leaderRecoveryState,
        version,
      }),
    );
    this.touch();
    return { topic, partition, ok: true, version };
  }

  // -- Deletion ----------------------------------------------------------------------------

  /** Idempotent, as Kafka treats an already marked topic as being deleted. NO_NODE for unknown topics. */
  requestTopicDeletion(name: string): void {
    if (!this.state.topics.has(name)) throw new MetadataStoreError('NO_NODE', `topic ${name} does not exist`);
    if (this.state.deletions.has(name)) return;
    this.state.deletions.add(name);
    this.touch();
    this.notify({ kind: 'deletions' });
  }

  pendingTopicDeletions(): string[] {
    return [...this.state.deletions].sort();
  }

  completeTopicDeletion(lease: ControllerLease, name: string): void {
    this.checkLease(lease);
    const existed = this.state.topics.delete(name);
    this.state.configs.delete(configKey({ type: 'topics', name }));
    const requested = this.state.deletions.delete(name);
    if (!existed && !requested) return;
    this.touch();
    if (existed) this.notify({ kind: 'topics' });
    if (requested) this.notify({ kind: 'deletions' });
  }

  // -- Configs and producer ids --------------------------------------------------------------

  configs(entity: ConfigEntity): Record<string, string> {
    return { ...this.state.configs.get(configKey(entity)) };
  }

  setConfigs(entity: ConfigEntity, configs: Readonly<Record<string, string>>): void {
    const key = configKey(entity);
    if (Object.keys(configs).length > 0) this.state.configs.set(key, Object.freeze({ ...configs }));
    else this.state.configs.delete(key);
    this.touch();
    this.notify({ kind: 'config', entity: parseConfigKey(key) });
  }

  configEntities(type: ConfigEntity['type']): string[] {
    const out: string[] = [];
    for (const key of this.state.configs.keys()) {
      const e = parseConfigKey(key);
      if (e.type === type) out.push(e.name);
    }
    return out.sort();
  }

  allocateProducerIdBlock(size: number): ProducerIdBlock {
    if (!Number.isInteger(size) || size <= 0) throw new RangeError(`invalid producer id block size ${size}`);
    const current = this.state.producerIds;
    const first = current?.next ?? 0n;
    this.state.producerIds = { next: first + BigInt(size), version: (current?.version ?? -1) + 1 };
    this.touch();
    return { firstProducerId: first, size };
  }

  // -- ACLs --------------------------------------------------------------------------------

  allAcls(): VersionedAcls[] {
    return [...this.state.acls.values()];
  }

  acls(resource: AclResourceRecord): VersionedAcls {
    return this.state.acls.get(aclKey(resource)) ?? { resource, acls: [], version: -1 };
  }

  /** ZooKeeper's conditional create / setData / delete of the resource's znode. */
  writeAcls(resource: AclResourceRecord, acls: readonly AclEntryRecord[], expectedVersion: number): void {
    const key = aclKey(resource);
    const current = this.state.acls.get(key)?.version ?? -1;
    if (current !== expectedVersion)
      throw new MetadataStoreError(
        'BAD_VERSION',
        `ACLs of ${key} are at version ${current}, not ${expectedVersion}`,
      );
    const frozen = Object.freeze({ ...resource });
    if (acls.length === 0) this.state.acls.delete(key);
    else
      this.state.acls.set(
        key,
        Object.freeze({
          resource: frozen,
          acls: Object.freeze(acls.map((a) => Object.freeze({ ...a }))),
          version: current + 1,
        }),
      );
    this.touch();
    this.notify({ kind: 'acls', resource: frozen });
  }

  // -- Fencing -----------------------------------------------------------------------------

  private leaseHolds(lease: ControllerLease): boolean {
    const e = this.state.controllerEpoch;
    return e !== null && e.version === lease.epochVersion && e.epoch === lease.epoch;
  }

  /** ZooKeeper: the multi's `check /controller_epoch <version>` fails, Kafka calls it ControllerMoved. */
  private checkLease(lease: ControllerLease): void {
    if (!this.leaseHolds(lease)) {
      const e = this.state.controllerEpoch;
      throw new MetadataStoreError(
        'NOT_CONTROLLER',
        `controller epoch ${lease.epoch} (version ${lease.epochVersion}) is stale; current is ${e?.epoch ?? 0} (version ${e?.version ?? 0})`,
      );
    }
  }
}

function freezeAssignment(a: TopicAssignment): TopicAssignment {
  return Object.freeze({
    name: a.name,
    topicId: a.topicId,
    partitions: Object.freeze(a.partitions.map((r) => Object.freeze([...r]))),
    ...(a.addingReplicas !== undefined ? { addingReplicas: Object.freeze({ ...a.addingReplicas }) } : {}),
    ...(a.removingReplicas !== undefined
      ? { removingReplicas: Object.freeze({ ...a.removingReplicas }) }
      : {}),
  });
}
