// Establishes fetch positions for partitions that have none: first the group's committed offset
// (for group consumers), otherwise — or after seekToBeginning/End and OFFSET_OUT_OF_RANGE — the
// reset strategy through ListOffsets. Runs as one background task at a time, started from poll();
// results are applied only if the partition was not seeked meanwhile (its epoch is unchanged).
// auto.offset.reset=none with no committed offset is reported from poll() as
// NoOffsetForPartitionError, again on every poll until the application seeks.
// Both kinds of position carry the leader epoch they were recorded under and are validated
// against the current leader before fetching (KIP-320, `position-validation.ts`), as in Java.
import type { BrokerPool } from '../broker-pool.js';
import { KafkaClientError } from '../errors.js';
import type { Metadata } from '../metadata.js';
import type { ResolvedConsumerOptions } from './consumer-config.js';
import { NoOffsetForPartitionError } from './consumer-errors.js';
import { EARLIEST_TIMESTAMP, LATEST_TIMESTAMP, listOffsets } from './offset-lookup.js';
import type { GroupOffsets } from './offsets.js';
import type { PartitionState, SubscriptionState } from './subscription-state.js';

export class FetchPositions {
  readonly #pool: BrokerPool;
  readonly #metadata: Metadata;
  readonly #subs: SubscriptionState;
  readonly #opts: ResolvedConsumerOptions;
  readonly #offsets: GroupOffsets | null;
  readonly #done: () => void;
  #task: Promise<void> | null = null;
  #error: Error | null = null;
  #retryAt = 0;

  constructor(
    pool: BrokerPool,
    metadata: Metadata,
    subs: SubscriptionState,
    opts: ResolvedConsumerOptions,
    offsets: GroupOffsets | null,
    done: () => void,
  ) {
    this.#pool = pool;
    this.#metadata = metadata;
    this.#subs = subs;
    this.#opts = opts;
    this.#offsets = offsets;
    this.#done = done;
  }

  get busy(): boolean {
    return this.#task !== null;
  }

  /** Throws (once) the error of the last attempt, if it was not retriable. */
  takeError(): void {
    const e = this.#error;
    if (e !== null) {
      this.#error = null;
      throw e;
    }
  }

  /** Starts a lookup if some partition lacks a position and none is running. */
  update(): void {
    if (this.#task !== null || Date.now() < this.#retryAt) return;
    const states = this.#subs.assigned();
    const none = states.filter((s) => s.reset === 'none');
    if (none.length > 0 && this.#error === null)
      this.#error = new NoOffsetForPartitionError(none.map((s) => s.tp()));
    const committed = states.filter((s) => s.needsCommitted);
    const resets = states.filter((s) => s.reset === 'earliest' || s.reset === 'latest');
    if (committed.length === 0 && resets.length === 0) return;
    this.#task = this.#run(committed, resets)
      .catch((err: unknown) => {
        if (err instanceof KafkaClientError && err.retriable) {
          this.#opts.logger('debug', 'position lookup failed, will retry', { error: err.message });
          this.#retryAt = Date.now() + this.#opts.retryBackoffMs;
        } else this.#error = err as Error;
      })
      .finally(() => {
        this.#task = null;
        this.#done();
      });
  }

  async #run(committed: PartitionState[], resets: PartitionState[]): Promise<void> {
    const deadline = Date.now() + this.#opts.defaultApiTimeoutMs;
    if (committed.length > 0 && this.#offsets !== null) {
      const epochs = committed.map((s) => s.epoch);
      const found = await this.#offsets.fetch(
        committed.map((s) => s.tp()),
        deadline,
      );
      committed.forEach((s, i) => {
        if (s.epoch !== epochs[i] || !s.needsCommitted || this.#subs.getByKey(s.key) !== s) return;
        const c = found.get(s.key);
        if (c)
          s.seekUnvalidated(c.offset, c.leaderEpoch, this.#metadata.leaderAndEpoch(s.topic, s.partition));
        else {
          s.requestReset(this.#opts.autoOffsetReset);
          if (s.reset !== 'none') resets.push(s);
        }
      });
    }
    const todo = resets.filter((s) => s.reset === 'earliest' || s.reset === 'latest');
    if (todo.length === 0) return;
    const epochs = todo.map((s) => s.epoch);
    const strategies = todo.map((s) => s.reset);
    const res = await listOffsets(
      this.#pool,
      this.#metadata,
      todo.map((s) => ({
        topic: s.topic,
        partition: s.partition,
        timestamp: s.reset === 'earliest' ? EARLIEST_TIMESTAMP : LATEST_TIMESTAMP,
      })),
      this.#opts.isolationLevel,
      Math.max(0, deadline - Date.now()),
    );
    todo.forEach((s, i) => {
      if (s.epoch !== epochs[i] || s.reset !== strategies[i] || this.#subs.getByKey(s.key) !== s) return;
      const r = res.get(s.key);
      if (r) s.seekUnvalidated(r.offset, r.leaderEpoch, this.#metadata.leaderAndEpoch(s.topic, s.partition));
    });
  }
}
