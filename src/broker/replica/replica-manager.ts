// All partition replicas hosted by this broker. Follows the metadata image: creates logs for
// new topics/partitions, deletes them with their topic, pushes config changes into the logs.
// At startup it reconciles the log dirs with the image (logs of topics that no longer exist, or
// that belong to an older incarnation of a name, are removed).

import { ErrorCode, KafkaError } from '../../protocol/errors.js';
import type { LogManager } from '../../storage/index.js';
import type { ConfigResolver } from '../config/config-resolver.js';
import { logConfigFor } from '../config/log-config-for.js';
import type { Logger } from '../logger.js';
import type { MetadataImage, TopicChange, TopicImage } from '../metadata/metadata-image.js';
import { Partition } from './partition.js';

export class ReplicaManager {
  private readonly partitions = new Map<string, Partition>();
  private readonly closeListeners = new Set<() => void>();
  private closing = false;

  constructor(
    private readonly logs: LogManager,
    private readonly image: MetadataImage,
    private readonly configs: ConfigResolver,
    private readonly nodeId: number,
    private readonly logger: Logger,
  ) {}

  private static key(topic: string, partition: number): string {
    return `${topic}\u0000${partition}`;
  }

  get isClosing(): boolean {
    return this.closing;
  }

  /** The partition if this broker hosts it. */
  get(topic: string, partition: number): Partition | undefined {
    return this.partitions.get(ReplicaManager.key(topic, partition));
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

  async startup(): Promise<void> {
    for (const log of this.logs.allLogs()) {
      const topic = this.image.topic(log.topic);
      const stale = !topic || topic.topicId !== log.topicId || log.partition >= topic.partitions.length;
      if (stale) {
        this.logger.log('warn', 'removing log of a deleted topic', {
          topic: log.topic,
          partition: log.partition,
        });
        await this.logs.deleteLog(log.topic, log.partition);
      }
    }
    for (const topic of this.image.topics) await this.ensureTopic(topic);
  }

  async apply(change: TopicChange): Promise<void> {
    switch (change.kind) {
      case 'created':
      case 'partitions-added':
        await this.ensureTopic(change.topic);
        return;
      case 'configs-changed':
        this.logs.updateConfig(change.topic.name, logConfigFor(this.configs, change.topic.configs));
        return;
      case 'deleted':
        for (const p of change.topic.partitions) {
          this.partitions.delete(ReplicaManager.key(change.topic.name, p.partition));
          await this.logs.deleteLog(change.topic.name, p.partition);
        }
        return;
    }
  }

  private async ensureTopic(topic: TopicImage): Promise<void> {
    const config = logConfigFor(this.configs, topic.configs);
    for (const state of topic.partitions) {
      if (!state.replicas.includes(this.nodeId)) continue;
      const key = ReplicaManager.key(topic.name, state.partition);
      const existing = this.partitions.get(key);
      if (existing) {
        existing.updateState(state);
        continue;
      }
      const log = await this.logs.createLog(topic.name, state.partition, { topicId: topic.topicId, config });
      const p = new Partition(topic.name, topic.topicId, log, state, this.nodeId);
      this.partitions.set(key, p);
      p.maybeAdvanceHighWatermark();
    }
  }

  /** Called once at shutdown: wakes parked operations so they answer now. */
  beginShutdown(): void {
    this.closing = true;
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
