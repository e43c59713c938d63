// The broker-side wiring every coordinator shares for its internal topic (__consumer_offsets,
// __transaction_state): create the topic on first use (as Kafka does on the first
// FindCoordinator), load the partitions this broker leads and unload the others as leadership
// changes (the controller's LeaderAndIsr/StopReplica, relayed by the metadata publisher), and
// answer "which broker coordinates key X".
import { ErrorCode, KafkaError } from '../../../protocol/errors.js';
import type { BrokerConfig } from '../../config/broker-config.js';
import type { Logger } from '../../logger.js';
import type { MetadataView } from '../../metadata/cluster-image.js';
import type { CreateTopicSpec, TopicCommands } from '../../metadata/topic-commands.js';

export interface CoordinatorLocation {
  errorCode: number;
  nodeId: number;
  host: string;
  port: number;
}

/** What the wiring needs of a coordinator (group or transaction). */
export interface PartitionedCoordinator {
  readonly runtime: {
    status(partition: number): 'loading' | 'active' | undefined;
    partitions(): number[];
  };
  partitionFor(key: string): number;
  onElection(partition: number): Promise<void>;
  onResignation(partition: number): void;
}

export interface InternalTopicDeps {
  readonly config: BrokerConfig;
  readonly image: MetadataView;
  readonly commands: TopicCommands;
  readonly logger: Logger;
}

/** An `onError` for a coordinator's runtime: failures are logged, per partition. */
export function logCoordinatorError(logger: Logger, what: string): (partition: number, err: unknown) => void {
  return (partition, err) =>
    logger.log('warn', `${what} error`, {
      partition,
      error: err instanceof Error ? err.message : String(err),
    });
}

export class InternalTopic {
  #creating: Promise<void> | null = null;
  /** Loads in progress, so that FindCoordinator right after creating the topic can wait. */
  readonly #loads = new Map<number, Promise<void>>();

  /** `spec` builds the CreateTopics request (read when the topic is first needed). */
  constructor(
    readonly name: string,
    private readonly deps: InternalTopicDeps,
    private readonly coordinator: PartitionedCoordinator,
    private readonly spec: () => CreateTopicSpec,
  ) {}

  /**
   * This broker gained (`isLeader`) or lost the leadership of `partition` at
   * `leaderEpoch` — the metadata publisher's leadership events, which follow the controller's
   * LeaderAndIsr/StopReplica in order (Kafka's onLeadershipChange → onElection/onResignation).
   * A gain loads the partition's shard unless it is loaded or loading; a loss unloads it.
   */
  onLeadershipChange(partition: number, isLeader: boolean, leaderEpoch: number): void {
    const status = this.coordinator.runtime.status(partition);
    this.deps.logger.log('info', `${this.name} partition ${isLeader ? 'led' : 'no longer led'} here`, {
      partition,
      leaderEpoch,
    });
    if (isLeader) {
      if (status === undefined) this.#load(partition);
    } else if (status !== undefined) {
      this.coordinator.onResignation(partition);
    }
  }

  #load(partition: number): void {
    const load = this.coordinator
      .onElection(partition)
      .catch((err: unknown) =>
        this.deps.logger.log('error', `loading ${this.name} partition failed`, {
          partition,
          error: err instanceof Error ? err.message : String(err),
        }),
      )
      .finally(() => {
        // A resignation and a new election during the load replaced the entry: keep that one.
        if (this.#loads.get(partition) === load) this.#loads.delete(partition);
      });
    this.#loads.set(partition, load);
  }

  /** Creates the topic on first use; concurrent callers share one creation. */
  ensureTopic(): Promise<void> {
    if (this.deps.image.topic(this.name) !== undefined) return Promise.resolve();
    this.#creating ??= this.#createTopic().finally(() => {
      this.#creating = null;
    });
    return this.#creating;
  }

  /**
   * Creates the topic on first use and waits for the shard of `key`: a fresh topic loads in no
   * time, so the answer comes once it is ready rather than after COORDINATOR_LOAD_IN_PROGRESS
   * retries.
   */
  async ensureReady(key: string): Promise<void> {
    if (this.deps.image.topic(this.name) !== undefined) return;
    await this.ensureTopic();
    await this.#loads.get(this.coordinator.partitionFor(key));
  }

  async #createTopic(): Promise<void> {
    try {
      await this.deps.commands.createTopic(this.spec());
    } catch (e) {
      if (!(e instanceof KafkaError && e.code === ErrorCode.TOPIC_ALREADY_EXISTS)) throw e;
    }
  }

  /** FindCoordinator for `key`: the leader of its partition. */
  async locate(key: string): Promise<CoordinatorLocation> {
    const none = (errorCode: number): CoordinatorLocation => ({ errorCode, nodeId: -1, host: '', port: -1 });
    try {
      await this.ensureReady(key);
    } catch (e) {
      this.deps.logger.log('warn', `cannot create ${this.name}`, {
        error: e instanceof Error ? e.message : String(e),
      });
      return none(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    }
    const topic = this.deps.image.topic(this.name);
    const p = topic?.partitions[this.coordinator.partitionFor(key)];
    if (p === undefined || p.leader < 0) return none(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    const broker = this.deps.image.broker(p.leader);
    if (broker === undefined) return none(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    return { errorCode: ErrorCode.NONE, nodeId: broker.nodeId, host: broker.host, port: broker.port };
  }
}
