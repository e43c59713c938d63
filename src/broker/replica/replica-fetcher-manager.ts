// The follower side of the replica manager (Kafka's ReplicaFetcherManager): `num.replica.fetchers`
// fetchers per leader, a partition always on the same one (Kafka's hash of topic and partition),
// plugged into `ReplicaManager.setReplicaFetcherHooks`. A partition that becomes follower (a new
// leader epoch each time) leaves whatever fetcher had it — after the response being applied to
// it, if any — and starts again from its log end offset with the new leader, whose address comes
// from the LeaderAndIsr's live leaders (else this broker's image); without a live leader it
// waits for the next LeaderAndIsr. Idle fetchers are closed.

import type { Logger } from '../logger.js';
import type { Partition } from './partition.js';
import { partitionKey, ReplicaFetcher, type ReplicaFetcherConfig } from './replica-fetcher.js';
import type { LiveLeader, ReplicaFetcherHooks, TopicPartitionRef } from './transitions.js';

export interface ReplicaFetcherManagerOptions extends ReplicaFetcherConfig {
  /** `num.replica.fetchers`. */
  readonly numFetchers: number;
  /** A broker's address when the LeaderAndIsr does not list it (this broker's image). */
  readonly brokerAddress: (brokerId: number) => { readonly host: string; readonly port: number } | undefined;
  readonly logger: Logger;
}

/** Java's String.hashCode. */
function javaHash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(31, h) + s.charCodeAt(i)) | 0;
  return h;
}

/** Kafka's AbstractFetcherManager.getFetcherId. */
export function fetcherIdFor(topic: string, partition: number, numFetchers: number): number {
  return Math.abs((Math.imul(31, javaHash(topic)) + partition) | 0) % numFetchers;
}

export class ReplicaFetcherManager implements ReplicaFetcherHooks {
  readonly #fetchers = new Map<string, ReplicaFetcher>();
  /** Which fetcher has each partition. */
  readonly #where = new Map<string, ReplicaFetcher>();
  readonly #options: ReplicaFetcherManagerOptions;
  #closed = false;

  constructor(options: ReplicaFetcherManagerOptions) {
    this.#options = options;
  }

  /** The fetcher a partition is on (tests, metrics). */
  fetcherOf(topic: string, partition: number): ReplicaFetcher | undefined {
    return this.#where.get(partitionKey(topic, partition));
  }

  get fetcherCount(): number {
    return this.#fetchers.size;
  }

  async onBecomeFollower(
    partitions: readonly Partition[],
    liveLeaders: readonly LiveLeader[],
  ): Promise<void> {
    await this.#remove(partitions.map((p) => ({ topic: p.topic, partition: p.index })));
    if (this.#closed) return;
    const groups = new Map<ReplicaFetcher, Partition[]>();
    for (const p of partitions) {
      if (p.isLeader || p.leaderId < 0) continue;
      const live = liveLeaders.find((l) => l.brokerId === p.leaderId);
      const address =
        live !== undefined
          ? { host: live.hostName, port: live.port }
          : this.#options.brokerAddress(p.leaderId);
      if (address === undefined) {
        this.#options.logger.log('info', 'no address for the leader: waiting for the next LeaderAndIsr', {
          topic: p.topic,
          partition: p.index,
          leader: p.leaderId,
        });
        continue;
      }
      const f = this.#fetcher(
        p.leaderId,
        address.host,
        address.port,
        fetcherIdFor(p.topic, p.index, this.#options.numFetchers),
      );
      groups.set(f, [...(groups.get(f) ?? []), p]);
      this.#where.set(partitionKey(p.topic, p.index), f);
    }
    for (const [f, ps] of groups) f.add(ps);
    await this.#closeIdle();
  }

  async removeFetchers(partitions: readonly TopicPartitionRef[]): Promise<void> {
    await this.#remove(partitions);
    await this.#closeIdle();
  }

  async close(): Promise<void> {
    this.#closed = true;
    const all = [...this.#fetchers.values()];
    this.#fetchers.clear();
    this.#where.clear();
    await Promise.all(all.map((f) => f.close()));
  }

  async #remove(partitions: readonly TopicPartitionRef[]): Promise<void> {
    const byFetcher = new Map<ReplicaFetcher, string[]>();
    for (const p of partitions) {
      const key = partitionKey(p.topic, p.partition);
      const f = this.#where.get(key);
      if (f === undefined) continue;
      this.#where.delete(key);
      byFetcher.set(f, [...(byFetcher.get(f) ?? []), key]);
    }
    await Promise.all([...byFetcher].map(([f, keys]) => f.remove(keys)));
  }

  #fetcher(leaderId: number, host: string, port: number, fetcherId: number): ReplicaFetcher {
    const key = `${leaderId}@${host}:${port}#${fetcherId}`;
    let f = this.#fetchers.get(key);
    if (f === undefined) {
      f = new ReplicaFetcher(leaderId, host, port, fetcherId, this.#options);
      this.#fetchers.set(key, f);
    }
    return f;
  }

  async #closeIdle(): Promise<void> {
    const idle: ReplicaFetcher[] = [];
    for (const [key, f] of this.#fetchers) {
      if (f.size === 0) {
        this.#fetchers.delete(key);
        idle.push(f);
      }
    }
    await Promise.all(idle.map((f) => f.close()));
  }
}
