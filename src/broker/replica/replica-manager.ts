// All partition replicas hosted by this broker, driven by the controller as Kafka's ReplicaManager
// (the embedded broker's own controller included): LeaderAndIsr creates or adopts logs and moves
// each partition to the newer leader epoch, StopReplica stops (and deletes) replicas; both report
// the leadership changes of this broker. At startup the logs of topics the metadata store no
// longer has (or has under another topic id) are removed before the controller speaks.

import { ErrorCode, KafkaError } from '../../protocol/errors.js';
import type { LogManager } from '../../storage/index.js';
import type { ConfigResolver } from '../config/config-resolver.js';
import { logConfigFor } from '../config/log-config-for.js';
import { topicMessageFormatWarning } from '../config/message-format-version.js';
import type { Logger } from '../logger.js';
import { ZERO_UUID } from '../metadata/uuid.js';
import { type IsrProposal, Partition, type PartitionEnv } from './partition.js';
import type {
  LeaderAndIsrInput,
  LeadershipChange,
  LiveLeader,
  PartitionError,
  ReplicaFetcherHooks,
  ReplicaTransitionResult,
  StopReplicaInput,
  TopicPartitionRef,
} from './transitions.js';

/** StopReplica leader epochs that skip the epoch check (Kafka's LeaderAndIsr.NoEpoch / EpochDuringDelete). */
const NO_EPOCH = -1;
const EPOCH_DURING_DELETE = -2;

export interface BecomeLeaderOrFollowerOptions {
  /** The topic's config overrides (from the store), read only for partitions that need a log. */
  readonly topicConfigs: (topic: string) => Promise<Readonly<Record<string, string>>>;
  /** The request's live leaders, handed to the follower hook. */
  readonly liveLeaders?: readonly LiveLeader[];
  /**
   * The broker epoch the controller sent the request for (-1n: none): a same-epoch state that
   * names this broker leader lifts a fence set under an older registration (`confirmsLeadership`).
   */
  readonly brokerEpoch?: bigint;
}

/** What a leader needs from the cluster (set by `replica/replication.ts` in a broker). */
export interface LeaderReplicationEnv {
  /** The broker is alive and may join an ISR. */
  isReplicaIsrEligible(brokerId: number): boolean;
  /** This broker's registration epoch (-1 when unknown). */
  brokerEpoch(): bigint;
  /** Sends an ISR change to the controller (AlterPartition). */
  submitIsrChange(proposal: IsrProposal): void;
}

/** The environment every partition of this broker sees; without replication, a lone leader's. */
class BrokerPartitionEnv implements PartitionEnv {
  replication: LeaderReplicationEnv | null = null;
  /** See `ReplicaManager.setLeaderWriteGuard`. */
  writeGuard: (() => boolean) | null = null;
  /** `replica.lag.time.max.ms` (a static config, read once). */
  readonly #lagMs: number;

  constructor(configs: ConfigResolver) {
    this.#lagMs = Number(configs.brokerValue('replica.lag.time.max.ms') ?? 30_000);
  }

  now(): number {
    return Date.now();
  }

  replicaLagTimeMaxMs(): number {
    return this.#lagMs;
  }

  isReplicaIsrEligible(brokerId: number): boolean {
    return this.replication?.isReplicaIsrEligible(brokerId) ?? false;
  }

  brokerEpoch(): bigint {
    return this.replication?.brokerEpoch() ?? -1n;
  }

  mayWriteAsLeader(): boolean {
    return this.writeGuard?.() ?? true;
  }

  get submitIsrChange(): ((proposal: IsrProposal) => void) | undefined {
    const r = this.replication;
    return r === null ? undefined : (proposal) => r.submitIsrChange(proposal);
  }

  /** ISR changes the controller accepted for partitions led here (read by /metrics). */
  readonly isrChanges = { shrinks: 0, expands: 0 };

  isrChanged(shrunk: boolean): void {
    if (shrunk) this.isrChanges.shrinks++;
    else this.isrChanges.expands++;
  }
}

export class ReplicaManager {
  private readonly partitions = new Map<string, Partition>();
  /** The same partitions by topic then index: `get` builds no key (Fetch asks per partition). */
  readonly #byTopic = new Map<string, Map<number, Partition>>();
  private readonly closeListeners = new Set<() => void>();
  private closing = false;
  private fetcherHooks: ReplicaFetcherHooks = {};
  readonly #env: BrokerPartitionEnv;
  /** The deprecation warning last logged per topic (`message.format.version`, as Kafka logs it). */
  readonly #formatWarned = new Map<string, string>();

  constructor(
    private readonly logs: LogManager,
    private readonly configs: ConfigResolver,
    private readonly nodeId: number,
    private readonly logger: Logger,
  ) {
    this.#env = new BrokerPartitionEnv(configs);
  }

  /** ISR shrinks and expands of partitions led here, accepted by the controller. */
  get isrChanges(): { readonly shrinks: number; readonly expands: number } {
    return this.#env.isrChanges;
  }

  private static key(topic: string, partition: number): string {
    return `${topic}\u0000${partition}`;
  }

  get isClosing(): boolean {
    return this.closing;
  }

  /** The partition if this broker hosts it. */
  get(topic: string, partition: number): Partition | undefined {
    return this.#byTopic.get(topic)?.get(partition);
  }

  /** The partition, or KafkaError(UNKNOWN_TOPIC_OR_PARTITION). */
  getOrThrow(topic: string, partition: number): Partition {
    const p = this.get(topic, partition);
    if (!p) throw new KafkaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    return p;
  }

  all(): IterableIterator<Partition> {
    return this.partitions.values();
  }

  /**
   * At startup, before the controller's first LeaderAndIsr: removes the logs of topics the
   * metadata store no longer has, of an older topic with the same name (another topic id), and
   * of partitions past the topic's count. Everything else waits on disk to be adopted.
   */
  async removeStaleLogs(
    topics: readonly { name: string; topicId: string; partitions: number }[],
  ): Promise<void> {
    const byName = new Map(topics.map((t) => [t.name, t]));
    for (const log of this.logs.allLogs()) {
      const topic = byName.get(log.topic);
      const stale = !topic || topic.topicId !== log.topicId || log.partition >= topic.partitions;
      if (stale) {
        this.logger.log('warn', 'removing log of a deleted topic', {
          topic: log.topic,
          partition: log.partition,
        });
        await this.logs.deleteLog(log.topic, log.partition);
      }
    }
  }

  // -- Controller-driven transitions (cluster mode) ------------------------------------------

  /** Where the replica fetcher plugs in (`replica/replication.ts`); replaces earlier hooks. */
  setReplicaFetcherHooks(hooks: ReplicaFetcherHooks): void {
    this.fetcherHooks = hooks;
  }

  /** Lets leaders change their ISR through the controller (`replica/replication.ts`). */
  setLeaderReplication(env: LeaderReplicationEnv | null): void {
    this.#env.replication = env;
  }

  /** Kafka's isr-expiration task: every leader drops followers that lag too long. */
  maybeShrinkIsrs(): void {
    for (const p of this.partitions.values()) if (p.isLeader) p.maybeShrinkIsr();
  }

  /** Pushes a topic's (re-read) overrides into its logs, merged over the broker's values. */
  updateTopicConfig(topic: string, overrides: Readonly<Record<string, string>>): void {
    this.logs.updateConfig(topic, this.#logConfig(topic, overrides));
  }

  /** A topic's log config; warns (once per value) about an ignored `message.format.version`. */
  #logConfig(topic: string, overrides: Readonly<Record<string, string>>) {
    const ibp = this.configs.brokerValue('inter.broker.protocol.version');
    const warning = topicMessageFormatWarning(topic, overrides, ibp);
    if (warning !== null && this.#formatWarned.get(topic) !== warning) this.logger.log('warn', warning);
    if (warning === null) this.#formatWarned.delete(topic);
    else this.#formatWarned.set(topic, warning);
    return logConfigFor(this.configs, overrides);
  }

  /**
   * LeaderAndIsr, per partition, as Kafka's ReplicaManager: a topic id that differs from the
   * log's → INCONSISTENT_TOPIC_ID; a leader epoch newer than this replica's → applied (this
   * broker not among the replicas → UNKNOWN_TOPIC_OR_PARTITION); an equal or older one →
   * STALE_CONTROLLER_EPOCH, except an equal one that confirms a fenced leadership (answered
   * NONE, nothing else changes: see `Partition.confirmsLeadership`). A state with an older
   * partition epoch than the one applied (known through an AlterPartition answer) is skipped
   * without error, as Kafka's Partition.makeLeader.
   * Missing logs are created (or adopted from disk) with the topic's configs, all read before
   * anything changes: a config read that fails rejects the call with nothing applied. The caller
   * serializes calls (one controller request at a time).
   */
  async becomeLeaderOrFollower(
    states: readonly LeaderAndIsrInput[],
    options: BecomeLeaderOrFollowerOptions,
  ): Promise<ReplicaTransitionResult> {
    const inputs = new Map<string, LeaderAndIsrInput>();
    for (const s of states) inputs.set(ReplicaManager.key(s.topic, s.partition), s);
    const errors = new Map<string, PartitionError>();
    const setError = (s: TopicPartitionRef, errorCode: number) =>
      errors.set(ReplicaManager.key(s.topic, s.partition), {
        topic: s.topic,
        partition: s.partition,
        errorCode,
      });
    const accepted: LeaderAndIsrInput[] = [];
    const confirmed: { p: Partition; s: LeaderAndIsrInput }[] = [];
    for (const [key, s] of inputs) {
      setError(s, ErrorCode.NONE); // keeps request order; overwritten below
      const existing = this.partitions.get(key);
      const requestId = s.topicId !== null && s.topicId !== ZERO_UUID ? s.topicId : null;
      const logId = existing?.topicId ?? this.logs.getLog(s.topic, s.partition)?.topicId;
      const currentEpoch = existing?.leaderEpoch ?? -1;
      if (requestId !== null && logId !== undefined && logId !== ZERO_UUID && logId !== requestId) {
        this.logger.log('error', 'LeaderAndIsr topic id differs from the log', {
          topic: s.topic,
          partition: s.partition,
          logTopicId: logId,
          requestTopicId: requestId,
        });
        setError(s, ErrorCode.INCONSISTENT_TOPIC_ID);
      } else if (s.leaderEpoch > currentEpoch) {
        if (s.replicas.includes(this.nodeId)) accepted.push(s);
        else setError(s, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
      } else if (existing?.confirmsLeadership(s.leader, s.leaderEpoch, options.brokerEpoch ?? -1n)) {
        confirmed.push({ p: existing, s });
      } else {
        setError(s, ErrorCode.STALE_CONTROLLER_EPOCH);
      }
    }
    // Every config needed for a new log first, so that a store failure changes nothing.
    const needed = new Set(accepted.filter((s) => !this.get(s.topic, s.partition)).map((s) => s.topic));
    const configs = new Map<string, Readonly<Record<string, string>>>();
    await Promise.all(
      [...needed].map(async (t) => {
        configs.set(t, await options.topicConfigs(t));
      }),
    );
    // Checked again: a fence set meanwhile, under a newer registration, stays.
    for (const { p, s } of confirmed) {
      if (!p.confirmsLeadership(s.leader, s.leaderEpoch, options.brokerEpoch ?? -1n)) continue;
      p.unfence();
      this.logger.log('info', 'the controller confirmed this leadership: writes accepted again', {
        topic: s.topic,
        partition: s.partition,
        leaderEpoch: s.leaderEpoch,
      });
    }
    const toLead = accepted.filter((s) => s.leader === this.nodeId);
    const toFollow = accepted.filter((s) => s.leader !== this.nodeId);
    // Kafka's makeLeaders: fetchers stop before the partition becomes leader.
    if (toLead.length > 0)
      await this.callHook('removeFetchers', () => this.fetcherHooks.removeFetchers?.(toLead));
    const changes: LeadershipChange[] = [];
    const followers: Partition[] = [];
    for (const s of [...toLead, ...toFollow]) {
      try {
        const p =
          this.get(s.topic, s.partition) ?? (await this.createPartition(s, configs.get(s.topic) ?? {}));
        if (s.partitionEpoch < p.partitionEpoch) {
          this.logger.log('info', 'skipped LeaderAndIsr state with an older partition epoch', {
            topic: s.topic,
            partition: s.partition,
            partitionEpoch: s.partitionEpoch,
            current: p.partitionEpoch,
          });
          continue;
        }
        const wasLeader = p.isLeader;
        p.applyLeaderAndIsr(s);
        if (!p.isLeader) followers.push(p);
        if (p.isLeader !== wasLeader) {
          changes.push({
            topic: p.topic,
            topicId: p.topicId,
            partition: p.index,
            isLeader: p.isLeader,
            leaderEpoch: p.leaderEpoch,
          });
        }
      } catch (e) {
        this.logger.log('error', 'LeaderAndIsr transition failed', {
          topic: s.topic,
          partition: s.partition,
          error: e instanceof Error ? e.message : String(e),
        });
        setError(s, e instanceof KafkaError ? e.code : ErrorCode.KAFKA_STORAGE_ERROR);
      }
    }
    if (followers.length > 0) {
      await this.callHook('onBecomeFollower', () =>
        this.fetcherHooks.onBecomeFollower?.(followers, options.liveLeaders ?? []),
      );
    }
    return { errors: [...errors.values()], leadershipChanges: changes };
  }

  /**
   * StopReplica, per partition, as Kafka's ReplicaManager.stopReplicas: a hosted replica stops
   * when the request's leader epoch is -1 (not sent), -2 (deletion) or ≥ its own, else
   * FENCED_LEADER_EPOCH; a replica not hosted is fine (its log, if a restart left one, is
   * deleted when asked). Fetchers stop; with `deletePartition` the replica goes and its log is
   * deleted (a failure → KAFKA_STORAGE_ERROR). A deleted replica that was leader is reported as
   * a lost leadership.
   */
  async stopReplicas(inputs: readonly StopReplicaInput[]): Promise<ReplicaTransitionResult> {
    const byKey = new Map<string, StopReplicaInput>();
    for (const s of inputs) byKey.set(ReplicaManager.key(s.topic, s.partition), s);
    const errors = new Map<string, PartitionError>();
    const stopping: StopReplicaInput[] = [];
    for (const [key, s] of byKey) {
      const p = this.partitions.get(key);
      const epoch = s.leaderEpoch;
      const ok =
        p === undefined || epoch === NO_EPOCH || epoch === EPOCH_DURING_DELETE || epoch >= p.leaderEpoch;
      errors.set(key, {
        topic: s.topic,
        partition: s.partition,
        errorCode: ok ? ErrorCode.NONE : ErrorCode.FENCED_LEADER_EPOCH,
      });
      if (ok) stopping.push(s);
    }
    if (stopping.length > 0)
      await this.callHook('removeFetchers', () => this.fetcherHooks.removeFetchers?.(stopping));
    const changes: LeadershipChange[] = [];
    for (const s of stopping) {
      if (!s.deletePartition) continue;
      const key = ReplicaManager.key(s.topic, s.partition);
      const p = this.partitions.get(key);
      if (p !== undefined) {
        this.partitions.delete(key);
        const inTopic = this.#byTopic.get(s.topic);
        inTopic?.delete(s.partition);
        if (inTopic?.size === 0) this.#byTopic.delete(s.topic);
        p.failWaiters();
        if (p.isLeader) {
          changes.push({
            topic: p.topic,
            topicId: p.topicId,
            partition: p.index,
            isLeader: false,
            leaderEpoch: p.leaderEpoch,
          });
        }
      }
      try {
        await this.logs.deleteLog(s.topic, s.partition);
      } catch (e) {
        this.logger.log('error', 'StopReplica could not delete the log', {
          topic: s.topic,
          partition: s.partition,
          error: e instanceof Error ? e.message : String(e),
        });
        errors.set(key, {
          topic: s.topic,
          partition: s.partition,
          errorCode: e instanceof KafkaError ? e.code : ErrorCode.KAFKA_STORAGE_ERROR,
        });
      }
    }
    return { errors: [...errors.values()], leadershipChanges: changes };
  }

  /** A new replica: its log is created, or adopted when it is already on disk. */
  private async createPartition(
    s: LeaderAndIsrInput,
    overrides: Readonly<Record<string, string>>,
  ): Promise<Partition> {
    const requestId = s.topicId !== null && s.topicId !== ZERO_UUID ? s.topicId : null;
    const log = await this.logs.createLog(s.topic, s.partition, {
      topicId: requestId ?? this.logs.getLog(s.topic, s.partition)?.topicId ?? ZERO_UUID,
      config: this.#logConfig(s.topic, overrides),
    });
    const key = ReplicaManager.key(s.topic, s.partition);
    const raced = this.partitions.get(key);
    if (raced) return raced;
    const p = new Partition(
      s.topic,
      log.topicId,
      log,
      { partition: s.partition, leader: -1, leaderEpoch: -1, replicas: [], isr: [] },
      this.nodeId,
      this.#env,
    );
    this.partitions.set(key, p);
    let inTopic = this.#byTopic.get(s.topic);
    if (inTopic === undefined) {
      inTopic = new Map();
      this.#byTopic.set(s.topic, inTopic);
    }
    inTopic.set(s.partition, p);
    return p;
  }

  private async callHook(name: string, call: () => void | Promise<void>): Promise<void> {
    try {
      await call();
    } catch (e) {
      this.logger.log('error', `replica fetcher hook ${name} failed`, {
        error: e instanceof Error ? e.message : String(e),
      });
    }
  }

  /** A check every write as leader passes first (false: NOT_LEADER_OR_FOLLOWER); see broker.ts. */
  setLeaderWriteGuard(guard: () => boolean): void {
    this.#env.writeGuard = guard;
  }

  /**
   * The metadata-store session is lost (past its timeout) or expired: another broker may have
   * been made leader meanwhile, so no partition led here accepts writes until the controller
   * speaks again (a newer LeaderAndIsr, or one confirming the leadership for a registration
   * newer than `brokerEpoch`, unfences it) or the session turns out intact (the caller unfences
   * what it fenced). Returns the partitions it fenced. `registrationLost`: registration
   * `brokerEpoch` is gone (a session expiry), so leaders fenced already are fenced under it too:
   * a confirmation sent for it comes too late.
   */
  fenceLeaders(brokerEpoch: bigint, { registrationLost = false } = {}): Partition[] {
    const fenced: Partition[] = [];
    for (const p of this.partitions.values()) {
      if (!p.isLeader) continue;
      if (!p.fenced) fenced.push(p);
      else if (!registrationLost) continue;
      p.fence(brokerEpoch);
    }
    return fenced;
  }

  /** Called once at shutdown: wakes parked operations so they answer now. */
  beginShutdown(): void {
    this.closing = true;
    for (const p of this.partitions.values()) p.failWaiters();
    for (const l of this.closeListeners) l();
    this.closeListeners.clear();
  }

  /** Registers a wake-up for shutdown; returns an unsubscribe function. */
  onShutdown(listener: () => void): () => void {
    if (this.closing) {
      listener();
      return () => {};
    }
    this.closeListeners.add(listener);
    return () => this.closeListeners.delete(listener);
  }
}
