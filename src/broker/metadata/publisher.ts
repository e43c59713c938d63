// Every broker's view of the cluster (Kafka's ZkMetadataCache plus the config watchers of a ZK
// broker). UpdateMetadata from the controller sets the live brokers, the controller and the
// partition states (leader -2 removes a partition, and a topic with none left); topic configs
// and dynamic broker configs are read from the MetadataStore — a topic's when it first appears,
// again on every `configChanged` notification, everything after a session expiry. Subscribers
// (replica manager, coordinators) get one ordered event stream: topics created / grown /
// deleted, configs changed, live brokers changed, and this broker's leadership changes (which
// the controller-request receiver publishes). Admin commands wait here (`waitFor`) until a
// change they wrote is visible on this broker.
//
// Updates run one at a time (a queue), so a config read for a new topic can never reorder two
// UpdateMetadata requests. A config read that fails or hangs does not hold metadata back: the
// topic is published with the overrides known so far and the read is retried in the background.

import { ErrorCode, KafkaError } from '../../protocol/errors.js';
import type { UpdateMetadataRequest } from '../../protocol/messages/generated/update-metadata.js';
import type { Logger } from '../logger.js';
import { silentLogger } from '../logger.js';
import type { LeadershipChange, TopicPartitionRef } from '../replica/transitions.js';
import {
  type ClusterBroker,
  ClusterImage,
  type ClusterPartitionImage,
  type ClusterTopicImage,
  clusterTopic,
} from './cluster-image.js';
import { type UpdateMetadataPartition, updateMetadataPartitions } from './controller/request-forms.js';
import type { MetadataStore } from './store/metadata-store.js';
import type { BrokerEndpoint, ConfigEntity } from './store/records.js';
import { topicNameError } from './topic-names.js';
import { ZERO_UUID } from './uuid.js';

/** Kafka's LeaderAndIsr.LeaderDuringDelete: the partition is being deleted. */
export const LEADER_DURING_DELETE = -2;

export type PublisherEvent =
  | { readonly kind: 'created'; readonly topic: ClusterTopicImage }
  | {
      readonly kind: 'partitions-added';
      readonly topic: ClusterTopicImage;
      readonly added: readonly ClusterPartitionImage[];
    }
  | { readonly kind: 'configs-changed'; readonly topic: ClusterTopicImage }
  /** The topic as it was before the deletion (its partitions included). */
  | { readonly kind: 'deleted'; readonly topic: ClusterTopicImage }
  /** '' = the cluster-wide default entity, else a node id. */
  | { readonly kind: 'broker-configs-changed'; readonly entity: string }
  | { readonly kind: 'brokers-changed'; readonly brokers: readonly ClusterBroker[] }
  | ({ readonly kind: 'leadership' } & LeadershipChange);

export type PublisherListener = (event: PublisherEvent) => void;

export interface UpdateMetadataResult {
  /** Partitions the request removed (leader -2), for the coordinators' cleanup (Kafka's onPartitionsDeleted). */
  readonly deletedPartitions: readonly TopicPartitionRef[];
}

export interface MetadataPublisherOptions {
  readonly clusterId: string;
  readonly store: Pick<MetadataStore, 'configs' | 'configEntities' | 'watch'>;
  /** The listener whose endpoint becomes a broker's `host`/`port` (default: its first endpoint). */
  readonly listenerName?: string;
  readonly logger?: Logger;
  /** How long a topic's first config read may hold its UpdateMetadata back (default 10000). */
  readonly configReadTimeoutMs?: number;
  /** Background retries of failed config reads (defaults 1000 / 30000). */
  readonly configRetryBackoffMs?: number;
  readonly configRetryBackoffMaxMs?: number;
}

type Configs = Readonly<Record<string, string>>;

interface Waiter {
  readonly done: (image: ClusterImage) => boolean;
  readonly resolve: (ok: boolean) => void;
  readonly reject: (err: unknown) => void;
  readonly timer: NodeJS.Timeout;
}

/** Security protocol ids of UpdateMetadata endpoints (Kafka's SecurityProtocol). */
const SECURITY_PROTOCOLS: Readonly<Record<number, string>> = {
  0: 'PLAINTEXT',
  1: 'SSL',
  2: 'SASL_PLAINTEXT',
  3: 'SASL_SSL',
};

/** The store's `<default>` broker entity is the image's '' (as `MetadataImage` has it). */
const imageEntity = (storeName: string) => (storeName === '<default>' ? '' : storeName);
const storeEntity = (entity: string) => (entity === '' ? '<default>' : entity);

export class MetadataPublisher {
  readonly image: ClusterImage;
  readonly #o: MetadataPublisherOptions;
  readonly #logger: Logger;
  readonly #listeners = new Set<PublisherListener>();
  readonly #waiters = new Set<Waiter>();
  #queue: Promise<unknown> = Promise.resolve();
  /** Topic overrides read from the store (topics in the image, and topics LeaderAndIsr asked for). */
  readonly #topicConfigs = new Map<string, Configs>();
  /** Bumped by every config notification: a read started before it must not be cached. */
  readonly #configGen = new Map<string, number>();
  readonly #configReads = new Map<string, { gen: number; read: Promise<Configs> }>();
  readonly #retries = new Map<string, NodeJS.Timeout>();
  #unwatch: (() => void) | null = null;
  #closed = false;

  constructor(options: MetadataPublisherOptions) {
    this.#o = options;
    this.#logger = options.logger ?? silentLogger;
    this.image = new ClusterImage(options.clusterId);
  }

  /** Watches the store and reads the dynamic broker configs. Throws if the store cannot be read. */
  async start(): Promise<void> {
    this.#unwatch ??= this.#o.store.watch({
      configChanged: (entity) => this.#onConfigChanged(entity),
      sessionExpired: () => {
        void this.#run(() => this.#reloadAll());
      },
    });
    await this.#run(async () => {
      for (const name of await this.#o.store.configEntities('brokers')) {
        this.image.setBrokerConfigs(
          imageEntity(name),
          await this.#o.store.configs({ type: 'brokers', name }),
        );
      }
      this.#checkWaiters();
    });
  }

  // -- What admin commands read (topic-commands' LocalMetadataView) ----------------------------

  topic(name: string): ClusterTopicImage | undefined {
    return this.image.topic(name);
  }

  brokerConfigs(entity: string): Configs {
    return this.image.brokerConfigs(entity);
  }

  /**
   * Resolves true as soon as `done(image)` holds (checked now and after every change this
   * publisher applies), false after `timeoutMs` or when the publisher closes. A `done` that
   * throws rejects.
   */
  waitFor(done: (image: ClusterImage) => boolean, timeoutMs: number): Promise<boolean> {
    try {
      if (done(this.image)) return Promise.resolve(true);
    } catch (e) {
      return Promise.reject(e);
    }
    if (this.#closed) return Promise.resolve(false);
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        done,
        resolve,
        reject,
        timer: setTimeout(
          () => {
            this.#waiters.delete(waiter);
            resolve(false);
          },
          Math.max(0, timeoutMs),
        ),
      };
      this.#waiters.add(waiter);
    });
  }

  // -- Events ---------------------------------------------------------------------------------

  /** Adds a listener; returns a function that removes it. Listeners are called in order, synchronously. */
  subscribe(listener: PublisherListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** This broker gained or lost partition leaderships (the controller-request receiver reports them). */
  publishLeadership(changes: readonly LeadershipChange[]): void {
    for (const c of changes) this.#emit({ kind: 'leadership', ...c });
  }

  // -- Inputs ---------------------------------------------------------------------------------

  /**
   * Applies an UpdateMetadata (epochs already checked by the receiver). Throws
   * KafkaError(INVALID_REQUEST) for a malformed request, before changing anything.
   */
  applyUpdateMetadata(req: UpdateMetadataRequest): Promise<UpdateMetadataResult> {
    let brokers: ClusterBroker[];
    let parts: UpdateMetadataPartition[];
    try {
      brokers = liveBrokers(req, this.#o.listenerName);
      parts = updateMetadataPartitions(req);
      for (const p of parts) {
        const index = p.state.partitionIndex;
        if (topicNameError(p.topic) !== null || !Number.isInteger(index) || index < 0)
          throw new KafkaError(
            ErrorCode.INVALID_REQUEST,
            `UpdateMetadata names an invalid partition ${p.topic.slice(0, 249)}-${index}`,
          );
      }
    } catch (e) {
      return Promise.reject(e);
    }
    return this.#run(() => this.#applyUpdateMetadata(req, brokers, parts));
  }

  /**
   * A topic's config overrides, from the cache or the store (LeaderAndIsr needs them to create
   * logs before UpdateMetadata has announced the topic). Rejects when the store cannot answer
   * within `configReadTimeoutMs`.
   */
  topicConfigs(name: string): Promise<Configs> {
    const cached = this.#topicConfigs.get(name);
    if (cached !== undefined) return Promise.resolve(cached);
    return this.#readTopicConfigs(name);
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#unwatch?.();
    this.#unwatch = null;
    for (const t of this.#retries.values()) clearTimeout(t);
    this.#retries.clear();
    for (const w of this.#waiters) {
      clearTimeout(w.timer);
      w.resolve(false);
    }
    this.#waiters.clear();
  }

  // -- Internals ------------------------------------------------------------------------------

  #run<T>(fn: () => Promise<T>): Promise<T> {
    const p = this.#queue.then(fn);
    this.#queue = p.catch(() => {});
    return p;
  }

  #emit(event: PublisherEvent): void {
    for (const l of this.#listeners) {
      try {
        l(event);
      } catch (e) {
        this.#logger.log('error', 'metadata listener failed', {
          event: event.kind,
          error: e instanceof Error ? e.message : String(e),
        });
      }
    }
  }

  #checkWaiters(): void {
    for (const w of [...this.#waiters]) {
      let ok: boolean;
      try {
        ok = w.done(this.image);
      } catch (e) {
        this.#waiters.delete(w);
        clearTimeout(w.timer);
        w.reject(e);
        continue;
      }
      if (ok) {
        this.#waiters.delete(w);
        clearTimeout(w.timer);
        w.resolve(true);
      }
    }
  }

  async #applyUpdateMetadata(
    req: UpdateMetadataRequest,
    brokers: ClusterBroker[],
    parts: readonly UpdateMetadataPartition[],
  ): Promise<UpdateMetadataResult> {
    const byTopic = new Map<string, { topicId: string | null; parts: UpdateMetadataPartition[] }>();
    for (const p of parts) {
      let g = byTopic.get(p.topic);
      if (g === undefined) {
        g = { topicId: null, parts: [] };
        byTopic.set(p.topic, g);
      }
      g.topicId ??= p.topicId;
      g.parts.push(p);
    }
    // Configs of topics this request introduces, before anything is published.
    const fresh = [...byTopic]
      .filter(([name, g]) => {
        const old = this.image.topic(name);
        const recreated =
          old !== undefined && g.topicId !== null && old.topicId !== ZERO_UUID && old.topicId !== g.topicId;
        return (
          (old === undefined || recreated) && g.parts.some((p) => p.state.leader !== LEADER_DURING_DELETE)
        );
      })
      .map(([name]) => name);
    await Promise.all(fresh.map((name) => this.#configsForNewTopic(name)));

    const events: PublisherEvent[] = [];
    const deletedPartitions: TopicPartitionRef[] = [];
    this.image.setController(req.controllerId, req.controllerEpoch);
    if (!sameBrokers(this.image.brokers, brokers)) {
      this.image.setBrokers(brokers);
      events.push({ kind: 'brokers-changed', brokers: this.image.brokers });
    }
    for (const [name, g] of byTopic) {
      let old = this.image.topic(name);
      if (old !== undefined && g.topicId !== null && old.topicId !== ZERO_UUID && old.topicId !== g.topicId) {
        // The name now belongs to a new topic: the old one is gone.
        this.image.removeTopic(name);
        events.push({ kind: 'deleted', topic: old });
        old = undefined;
      }
      const partitions = new Map<number, ClusterPartitionImage>();
      for (const p of old?.partitions ?? []) partitions.set(p.partition, p);
      const added: ClusterPartitionImage[] = [];
      for (const { state: s } of g.parts) {
        if (s.leader === LEADER_DURING_DELETE) {
          partitions.delete(s.partitionIndex);
          deletedPartitions.push({ topic: name, partition: s.partitionIndex });
          continue;
        }
        const img: ClusterPartitionImage = {
          partition: s.partitionIndex,
          leader: s.leader,
          leaderEpoch: s.leaderEpoch,
          replicas: s.replicas,
          isr: s.isr,
          offlineReplicas: s.offlineReplicas,
          partitionEpoch: s.zkVersion,
          controllerEpoch: s.controllerEpoch,
        };
        if (old !== undefined && !partitions.has(s.partitionIndex)) added.push(img);
        partitions.set(s.partitionIndex, img);
      }
      if (partitions.size === 0) {
        if (old !== undefined) {
          this.image.removeTopic(name);
          this.#forgetTopic(name);
          events.push({ kind: 'deleted', topic: old });
        }
        continue;
      }
      const topicId = g.topicId ?? (old !== undefined ? old.topicId : ZERO_UUID);
      const topic = clusterTopic(name, topicId, partitions.values(), this.#topicConfigs.get(name) ?? {});
      this.image.putTopic(topic);
      if (old === undefined) events.push({ kind: 'created', topic });
      else if (added.length > 0)
        events.push({
          kind: 'partitions-added',
          topic,
          added: added.sort((a, b) => a.partition - b.partition),
        });
    }
    for (const e of events) this.#emit(e);
    this.#checkWaiters();
    return { deletedPartitions };
  }

  /** Makes sure the configs of a new topic are cached; never throws (failure → retry later). */
  async #configsForNewTopic(name: string): Promise<void> {
    if (this.#topicConfigs.has(name)) return;
    try {
      await this.#readTopicConfigs(name);
    } catch (e) {
      this.#logger.log('warn', 'topic configs not readable yet; publishing the topic without them', {
        topic: name,
        error: e instanceof Error ? e.message : String(e),
      });
      this.#scheduleRetry({ type: 'topics', name }, 0);
    }
  }

  #readTopicConfigs(name: string): Promise<Configs> {
    const gen = this.#configGen.get(name) ?? 0;
    const inFlight = this.#configReads.get(name);
    if (inFlight !== undefined && inFlight.gen === gen) return inFlight.read;
    // Bounded: a read the store never answers must not hold every later read of the topic.
    const timeoutMs = this.#o.configReadTimeoutMs ?? 10_000;
    const fromStore = this.#o.store.configs({ type: 'topics', name });
    const read = withTimeout(fromStore, timeoutMs, `config read of topic ${name}`).then((configs) => {
      if ((this.#configGen.get(name) ?? 0) === gen) this.#topicConfigs.set(name, configs);
      return configs;
    });
    const entry = { gen, read };
    this.#configReads.set(name, entry);
    const clear = () => {
      if (this.#configReads.get(name) === entry) this.#configReads.delete(name);
    };
    read.then(clear, clear);
    return read;
  }

  #forgetTopic(name: string): void {
    this.#topicConfigs.delete(name);
    this.#configGen.delete(name);
    const t = this.#retries.get(`topics/${name}`);
    if (t !== undefined) clearTimeout(t);
    this.#retries.delete(`topics/${name}`);
  }

  #onConfigChanged(entity: ConfigEntity): void {
    // Users, clients and IPs hold credentials and quotas, which their owners read themselves.
    if (this.#closed || (entity.type !== 'topics' && entity.type !== 'brokers')) return;
    if (entity.type === 'topics') {
      this.#configGen.set(entity.name, (this.#configGen.get(entity.name) ?? 0) + 1);
      // Only what this broker holds; a topic it has not seen yet is read when it appears.
      if (this.image.topic(entity.name) === undefined && !this.#topicConfigs.has(entity.name)) return;
    }
    void this.#run(() => this.#refresh(entity, 0));
  }

  /** Re-reads one entity's configs and publishes a change; on failure retries later. */
  async #refresh(entity: ConfigEntity, attempt: number): Promise<void> {
    if (this.#closed) return;
    const timeoutMs = this.#o.configReadTimeoutMs ?? 10_000;
    let configs: Configs;
    try {
      configs =
        entity.type === 'topics'
          ? await this.#readTopicConfigs(entity.name)
          : await withTimeout(
              this.#o.store.configs(entity),
              timeoutMs,
              `config read of brokers/${entity.name}`,
            );
    } catch (e) {
      this.#logger.log('warn', 'config read failed; retrying', {
        entity: `${entity.type}/${entity.name}`,
        error: e instanceof Error ? e.message : String(e),
      });
      this.#scheduleRetry(entity, attempt + 1);
      return;
    }
    if (entity.type === 'topics') {
      this.#topicConfigs.set(entity.name, configs);
      const topic = this.image.topic(entity.name);
      if (topic !== undefined && !sameConfigs(topic.configs, configs)) {
        const updated = clusterTopic(topic.name, topic.topicId, topic.partitions, configs);
        this.image.putTopic(updated);
        this.#emit({ kind: 'configs-changed', topic: updated });
      }
    } else {
      const name = imageEntity(entity.name);
      if (!sameConfigs(this.image.brokerConfigs(name), configs)) {
        this.image.setBrokerConfigs(name, configs);
        this.#emit({ kind: 'broker-configs-changed', entity: name });
      }
    }
    this.#checkWaiters();
  }

  #scheduleRetry(entity: ConfigEntity, attempt: number): void {
    if (this.#closed) return;
    const key = `${entity.type}/${entity.name}`;
    if (this.#retries.has(key)) return;
    const base = this.#o.configRetryBackoffMs ?? 1000;
    const max = this.#o.configRetryBackoffMaxMs ?? 30_000;
    const delay = Math.min(max, base * 2 ** Math.min(attempt, 20));
    const timer = setTimeout(() => {
      this.#retries.delete(key);
      if (entity.type === 'topics' && this.image.topic(entity.name) === undefined) return;
      void this.#run(() => this.#refresh(entity, attempt));
    }, delay);
    timer.unref?.();
    this.#retries.set(key, timer);
  }

  /** After a session expiry every watch may have been missed: re-read every config held. */
  async #reloadAll(): Promise<void> {
    let entities: string[];
    try {
      entities = await this.#o.store.configEntities('brokers');
    } catch (e) {
      this.#logger.log('warn', 'broker config entities not readable after session expiry', {
        error: e instanceof Error ? e.message : String(e),
      });
      entities = [];
    }
    const known = new Set([...entities, '<default>', ...this.image.brokerConfigEntities().map(storeEntity)]);
    for (const name of known) await this.#refresh({ type: 'brokers', name }, 0);
    const topics = new Set([...this.#topicConfigs.keys(), ...[...this.image.topics].map((t) => t.name)]);
    for (const name of topics) {
      this.#configGen.set(name, (this.#configGen.get(name) ?? 0) + 1);
      await this.#refresh({ type: 'topics', name }, 0);
    }
  }
}

/** The live brokers of an UpdateMetadata, endpoints included (v0: one PLAINTEXT host/port). */
function liveBrokers(req: UpdateMetadataRequest, listenerName: string | undefined): ClusterBroker[] {
  return req.liveBrokers.map((b) => {
    const endpoints: BrokerEndpoint[] =
      b.endpoints.length > 0
        ? b.endpoints.map((e) => {
            const securityProtocol = SECURITY_PROTOCOLS[e.securityProtocol] ?? String(e.securityProtocol);
            return { listener: e.listener || securityProtocol, securityProtocol, host: e.host, port: e.port };
          })
        : [{ listener: 'PLAINTEXT', securityProtocol: 'PLAINTEXT', host: b.v0Host, port: b.v0Port }];
    const main = (listenerName && endpoints.find((e) => e.listener === listenerName)) || endpoints[0]!;
    if (!Number.isInteger(b.id) || b.id < 0 || main.port < 0 || main.port > 65535)
      throw new KafkaError(ErrorCode.INVALID_REQUEST, `UpdateMetadata lists an invalid broker ${b.id}`);
    return { nodeId: b.id, host: main.host, port: main.port, rack: b.rack, endpoints };
  });
}

function sameBrokers(a: readonly ClusterBroker[], b: readonly ClusterBroker[]): boolean {
  if (a.length !== b.length) return false;
  const sorted = [...b].sort((x, y) => x.nodeId - y.nodeId);
  return a.every((x, i) => {
    const y = sorted[i]!;
    return (
      x.nodeId === y.nodeId &&
      x.host === y.host &&
      x.port === y.port &&
      x.rack === y.rack &&
      JSON.stringify(x.endpoints) === JSON.stringify(y.endpoints)
    );
  });
}

export function sameConfigs(a: Configs | undefined, b: Configs): boolean {
  if (a === undefined) return false;
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => b[k] === a[k]);
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const t = setTimeout(
      () => reject(new KafkaError(ErrorCode.REQUEST_TIMED_OUT, `${what} timed out after ${ms} ms`)),
      ms,
    );
    p.then(
      (v) => {
        clearTimeout(t);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(t);
        reject(e);
      },
    );
  });
}

/** "Topic exists (with this id, if given) and every partition has a leader", for admin waits. */
export function topicReady(name: string, options: { topicId?: string; partitions?: number } = {}) {
  return (image: ClusterImage): boolean => {
    const t = image.topic(name);
    if (t === undefined || (options.topicId !== undefined && t.topicId !== options.topicId)) return false;
    if (t.partitions.length === 0 || t.partitions.length < (options.partitions ?? 0)) return false;
    return t.partitions.every((p) => p.leader >= 0);
  };
}

/** "This topic (this incarnation, if an id is given) is gone". */
export function topicGone(name: string, topicId?: string) {
  return (image: ClusterImage): boolean => {
    const t = image.topic(name);
    return t === undefined || (topicId !== undefined && t.topicId !== topicId);
  };
}

/** The store entity of an image broker-config entity ('' → `<default>`). */
export { storeEntity as brokerConfigStoreEntity };
